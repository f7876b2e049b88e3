"""The report of ``etg cert bits``: ``results.json``, ``report.md`` and ``report.html``.

The table is NIST's ``finalAnalysisReport`` with more said: per P-value column the ten
bins of its P-values (a histogram, drawn in the HTML page), the uniformity P-value, the
proportion passing against its acceptance range, what ``assess`` would flag, and, with
one sequence, the P-value itself. The verdict and the rule that made it come first.
``results.json`` holds every P-value of every sequence with its test's name and
parameters (``null`` where a test did not apply).
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rng.cert.nist.bits_run import BitsRun
from rng.cert.nist.second_level import (
    ALPHA,
    MIN_UNIFORMITY,
    ColumnSummary,
    assess_cycle_cap,
    thresholds,
)
from rng.cert.nist.suite import SECTIONS
from rng.cert.stats import fmt_p

REFERENCE = ("NIST SP 800-22 Rev. 1a (A. Rukhin et al., 2010), sections 2 and 4.2; P-values "
             "computed as NIST's reference implementation sts 2.1.2 computes them")


def _num(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def to_json(run: BitsRun) -> dict[str, Any]:
    v = run.verdict
    cols = []
    for i, (c, s) in enumerate(zip(run.columns, run.summaries, strict=True)):
        cols.append({"test": c.name, "section": SECTIONS[c.key], "column": c.label,
                     "parameters": c.params,
                     "p_values": [_num(x) for x in run.p[:, i].tolist()],
                     "statistics": [_num(x) for x in run.statistic[:, i].tolist()],
                     "second_level": s.to_json()})
    return {
        "verdict": "PASS" if v.passed else "FAIL", "passed": v.passed, "summary": v.text,
        "rule": v.rule,
        "source": {"name": run.info.name, "format": run.opts.fmt, "bits": run.info.bits,
                   "sha256": run.info.sha256},
        "length": run.opts.params.n, "sequences": run.streams,
        "parameters": asdict(run.opts.params), "reference": REFERENCE,
        "minimum_pass_rate": pass_rates(run),
        "judged": [{"test": j.column.name, "column": j.column.label, "figure": j.figure,
                    "p_value": j.p_value, "rejected": j.rejected} for j in v.judged],
        "flagged_by_assess": list(run.assess_flags),
        "software": run.software,
        "skipped": skipped(run),
        "flagged_over_every_sequence": list(v.flagged),
        "run": {"command": run.opts.command, "started": run.started,
                "finished": run.finished, "seconds": round(run.seconds, 3),
                "ran_on": run.where, "from_checkpoint": run.resumed},
        "columns": cols,
    }


def pass_rates(run: BitsRun) -> dict[str, Any]:
    """assess's closing lines: the minimum pass rate for the general tests and for the
    random excursions tests, at their sample sizes."""
    out: dict[str, Any] = {}
    for kind, pick in (("general", lambda s: not s.column.key.startswith("random")),
                       ("random excursions", lambda s: s.column.key.startswith("random"))):
        sizes = [s.tested for s in run.summaries if pick(s)]
        if sizes:
            size = max(sizes)
            out[kind] = {"sample_size": size, "minimum_passing": thresholds(size)[0]}
    return out


def _row_cells(s: ColumnSummary, one: bool) -> list[str]:
    uni = "----" if s.uniformity is None else f"{s.uniformity:.6f}" + (
        " *" if s.uniformity_flag else "")
    prop = "------" if not s.tested else f"{s.passed}/{s.tested}" + (
        " *" if s.proportion_flag else "")
    cells = [*map(str, s.histogram), uni, prop, s.range_text()]
    if one:
        cells.append("n/a" if s.first_level is None else fmt_p(s.first_level))
    return [*cells, s.column.title]


def markdown(run: BitsRun) -> str:
    one = run.streams == 1
    head = [f"C{i}" for i in range(1, 11)] + ["P-VALUE", "PROPORTION", "range"]
    head += ["p-value"] if one else []
    head.append("statistical test")
    lines = [f"# SP 800-22 on {run.info.name}", "", f"**{run.verdict.text}**", "",
             *_about(run), "", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_row_cells(s, one)) + " |" for s in run.summaries]
    lines += ["", *_closing(run), ""]
    return "\n".join(lines)


def _about(run: BitsRun) -> list[str]:
    o, info = run.opts, run.info
    bits = "" if info.bits is None else f", {info.bits:,} bits"
    out = [f"- source: `{info.name}` ({o.fmt}{bits})"
           + (f", SHA-256 `{info.sha256}`" if info.sha256 else ""),
           f"- {run.streams:,} sequence(s) of {o.params.n:,} bits; tests: "
           + ", ".join(sorted({c.name for c in run.columns}, key=_order(run))),
           f"- parameters: block frequency M = {o.params.block_frequency_m}, non-overlapping "
           f"template m = {o.params.template_m}, overlapping template m = "
           f"{o.params.overlapping_m}, approximate entropy m = {o.params.apen_m}, serial m = "
           f"{o.params.serial_m}, linear complexity M = {o.params.linear_m}",
           f"- command: `{o.command}`; where: {run.where}; {run.started} to {run.finished} "
           f"({run.seconds:.1f} s)" + (f"; {run.resumed} sequence(s) from the checkpoint"
                                       if run.resumed else ""),
           f"- method: {REFERENCE}. The verdict: " + _rule_text(run)]
    sw = run.software
    if sw:
        out.append(f"- software: {sw['version']}; program hash (SHA-256) "
                   f"`{sw['program_hash']}` over {sw['program_files']} files ({sw['file_set']}; "
                   "each file's SHA-256 in program-files.txt)")
    left = skipped(run)
    if left:
        out.append("- left out (`--skip`): " + ", ".join(left) + ". NIST's assess runs "
                   "every test at any length and prints P-values even where the standard's "
                   "conditions for a test do not hold (SP 800-22 2.9, 2.11.7, 2.14.7, "
                   "2.15.7; at 10^5 bits: Universal, Serial and both random excursions "
                   "tests, 29 columns, whose values there can fail a good source); `etg "
                   "cert bits` refuses such a length for them (exit 2, naming the test) "
                   "until they are left out, so their columns are not in this report.")
    return out


def skipped(run: BitsRun) -> list[str]:
    """NIST's names of the tests of the suite that this run left out."""
    from rng.cert.nist.suite import KEYS, NAMES

    return [NAMES[k] for k in KEYS if k not in run.opts.params.tests]


def _order(run: BitsRun) -> Any:
    names = [c.name for c in run.columns]
    return names.index


def _rule_text(run: BitsRun) -> str:
    if run.verdict.rule == "nist":
        return ("NIST's flags literally (a proportion outside its range or a uniformity "
                "P-value below 0.0001 fails; with one sequence, any P-value below 0.01).")
    return ("Holm's step-down procedure at a family-wise error rate of 1% over "
            + ("the sequence's P-values." if run.streams == 1 else
               "each column's binomial P-value of its failures and its uniformity P-value "
               f"(chi-square from {MIN_UNIFORMITY} sequences, the exact multinomial law "
               "below)."))


def _closing(run: BitsRun) -> list[str]:
    out = []
    for kind, r in pass_rates(run).items():
        out.append(f"The minimum pass rate for the {kind} tests is {r['minimum_passing']} "
                   f"of {r['sample_size']} sequences (p^ = {1 - ALPHA}, p^ - 3 sqrt(p^(1-p^)/s),"
                   " as NIST's assess computes it).")
    if run.verdict.flagged:
        out.append(f"Flagged (`*`) over every sequence each test applies to: "
                   f"{len(run.verdict.flagged)} column(s): "
                   + "; ".join(run.verdict.flagged[:10])
                   + ("; ..." if len(run.verdict.flagged) > 10 else ""))
    out.append(f"NIST's assess flags {len(run.assess_flags)} column(s)"
               + (": " + "; ".join(run.assess_flags[:10]) if run.assess_flags else "")
               + ("; ..." if len(run.assess_flags) > 10 else "")
               + ". It reads the random excursions columns otherwise: it leaves out every "
               "P-value of either test that prints as 0.000000 (it writes 0 where a test "
               "does not apply), and writes no random excursions P-value for a sequence "
               f"whose walk returns to zero more than {assess_cycle_cap(run.opts.params.n):,} "
               "times (max(1000, n/100)); the table above counts those sequences.")
    out.append("P-VALUE: the uniformity of the column's P-values (chi-square of the ten bins "
               "C1..C10, assess's expected count s // 10); PROPORTION: sequences with P >= "
               "0.01 of those the test applied to; range: p^ +- 3 sqrt(p^(1-p^)/s).")
    return out


def _svg_histogram(hist: tuple[int, ...]) -> str:
    top = max(max(hist), 1)
    bars = "".join(f'<rect x="{i * 6}" y="{20 - 20 * h / top:.1f}" width="5" '
                   f'height="{20 * h / top:.1f}"/>' for i, h in enumerate(hist))
    return f'<svg width="60" height="20" class="hist">{bars}</svg>'


def _svg_proportion(s: ColumnSummary) -> str:
    if not s.tested:
        return ""
    def x(v: float) -> float:  # 0.95..1.0 across 100 px
        return max(0.0, min(100.0, (v - 0.95) / 0.05 * 100))
    half = 3.0 * math.sqrt(ALPHA * (1 - ALPHA) / s.tested)
    lo, hi = x(1 - ALPHA - half), x(1 - ALPHA + half)
    colour = "#c00" if s.proportion_flag else "#070"
    return (f'<svg width="100" height="12"><rect x="{lo:.1f}" y="3" width="{hi - lo:.1f}" '
            f'height="6" fill="#ddd"/><circle cx="{x(s.passed / s.tested):.1f}" cy="6" r="3" '
            f'fill="{colour}"/></svg>')


def html_page(run: BitsRun) -> str:
    e = html.escape
    one = run.streams == 1
    rows = []
    for s in run.summaries:
        cells = _row_cells(s, one)
        rows.append("<tr><td>" + _svg_histogram(s.histogram) + "</td>"
                    + "".join(f"<td>{e(c)}</td>" for c in cells[10:-1])
                    + f"<td>{_svg_proportion(s)}</td><td>{e(cells[-1])}</td></tr>")
    head = ["P-values (C1..C10)", "P-VALUE", "PROPORTION", "range"] + (
        ["p-value"] if one else []) + ["proportion vs range (0.95..1)", "statistical test"]
    about = "".join(f"<li>{e(x[2:].replace('`', ''))}</li>" for x in _about(run))
    closing = "".join(f"<p>{e(x)}</p>" for x in _closing(run))
    word = "pass" if run.verdict.passed else "fail"
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>SP 800-22: "
        f"{e(run.info.name)}</title><style>body{{font-family:sans-serif;margin:2em}}"
        "td,th{padding:2px 6px;border-bottom:1px solid #eee;font-size:90%}"
        ".pass{color:#070}.fail{color:#c00}.hist rect{fill:#358}</style></head><body>"
        f"<h1>SP 800-22 on {e(run.info.name)}</h1><p class='{word}'><b>{e(run.verdict.text)}"
        f"</b></p><ul>{about}</ul><table><tr>"
        + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>" + "".join(rows)
        + f"</table>{closing}</body></html>\n")


def write(run: BitsRun, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(to_json(run), indent=1) + "\n",
                                      encoding="utf-8")
    (out / "report.md").write_text(markdown(run), encoding="utf-8")
    (out / "report.html").write_text(html_page(run), encoding="utf-8")
    if run.program_files:
        (out / "program-files.txt").write_text(
            "".join(f"{d}  {name}\n" for name, d in run.program_files), encoding="utf-8")
