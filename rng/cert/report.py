"""The certification report: Markdown, HTML, JSON and PNG plots in one directory.

The report states the verdict first, then what was run (metadata, power-up self-test),
how the many tests were judged together, every test with statistic, p-value and verdict,
the lab's external battery, and the files the run left for the lab.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path

from rng.cert import plots
from rng.cert.meta import RunMetadata
from rng.cert.results import ALPHA, METHOD_TEXT, FamilyVerdict, TestResult, judge_family
from rng.cert.stats import fmt_p


@dataclass
class Section:
    title: str
    results: list[TestResult]
    plots: list[tuple[str, str]] = field(default_factory=list)  # (file name, caption)
    notes: list[str] = field(default_factory=list)


@dataclass
class Report:
    title: str
    meta: RunMetadata
    sections: list[Section]
    selftest: list[str] = field(default_factory=list)
    selftest_ok: bool = True
    external: list[str] = field(default_factory=list)  # dieharder lines, already formatted
    external_note: str = ""
    files: list[tuple[str, int, str]] = field(default_factory=list)  # name, bytes, sha256
    verdict: FamilyVerdict | None = None

    def judge(self) -> FamilyVerdict:
        all_results = [r for s in self.sections for r in s.results]
        self.verdict = judge_family(all_results, ALPHA)
        judged = iter(self.verdict.results)
        for s in self.sections:
            s.results = [next(judged) for _ in s.results]
        return self.verdict

    @property
    def passed(self) -> bool:
        v = self.verdict or self.judge()
        return v.passed and self.selftest_ok


def _fmt_stat(x: float) -> str:
    if x != x:
        return "n/a"
    if abs(x) >= 1e6 or (x != 0 and abs(x) < 1e-3):
        return f"{x:.4e}"
    return f"{x:.4f}"


def _verdict_line(rep: Report) -> str:
    v = rep.verdict or rep.judge()
    word = "PASS" if rep.passed else "FAIL"
    why = []
    if not rep.selftest_ok:
        why.append("the power-up self-test failed")
    if v.rejected:
        why.append(f"{len(v.rejected)} test(s) rejected by Holm at family-wise 1%: "
                   + "; ".join(f"{r.subject}: {r.name}" for r in v.rejected))
    tail = f" ({'; '.join(why)})" if why else ""
    return (f"{word}: {v.m} tests at the 99% level, Holm family-wise error rate 1%, "
            f"{v.raw_failures} single p-values below 0.01 (expected {v.expected_failures:.2f})"
            f"{tail}")


def _second_level(v: FamilyVerdict) -> list[str]:
    return [
        f"Tests judged: {v.m}; p-values below 0.01: {v.raw_failures} "
        f"(expected {v.expected_failures:.2f}; binomial P(at least this many) = "
        f"{fmt_p(v.binomial_p)}).",
        f"Kolmogorov-Smirnov test of the p-values against uniform (repeat tests left out): "
        f"D = {v.ks_statistic:.4f}, "
        f"p = {fmt_p(v.ks_p)} (supporting evidence only; see the method).",
        f"Holm rejections at family-wise 1%: {len(v.rejected)}.",
    ]


def to_markdown(rep: Report) -> str:
    v = rep.verdict or rep.judge()
    out = [f"# {rep.title}", "", f"**Verdict: {_verdict_line(rep)}**", "", "## Run", "",
           "| | |", "|---|---|"]
    out += [f"| {k} | {val} |" for k, val in rep.meta.rows()]
    if rep.selftest:
        out += ["", "## Power-up self-test (known-answer tests)", "", "```"]
        out += [*rep.selftest, "```"]
    out += ["", "## How the tests were judged", "", METHOD_TEXT, ""]
    out += [f"- {line}" for line in _second_level(v)]
    out += ["", "![p-values](pvalues.png)", ""]
    for s in rep.sections:
        out += [f"## {s.title}", ""]
        out += [f"{n}" for n in s.notes] + ([""] if s.notes else [])
        out += ["| test | statistic | null distribution | p-value | verdict | n | detail |",
                "|---|---|---|---|---|---|---|"]
        for r in s.results:
            out.append(f"| {r.name} | {_fmt_stat(r.statistic)} | {r.df} | "
                       f"{fmt_p(r.p_value) if r.applicable else 'n/a'} | {r.verdict} | {r.n:,} | "
                       f"{r.detail} |")
        out.append("")
        for name, caption in s.plots:
            out += [f"![{caption}]({name})", ""]
    out += ["## External battery (dieharder)", ""]
    if rep.external_note:
        out += [rep.external_note, ""]
    if rep.external:
        out += ["```", *rep.external, "```", ""]
    if rep.files:
        out += ["## Files for the lab", "", "| file | bytes | SHA-256 |", "|---|---|---|"]
        out += [f"| {n} | {size:,} | `{h}` |" for n, size, h in rep.files]
        out.append("")
    out += ["## References", ""]
    refs = sorted({r.reference for s in rep.sections for r in s.results if r.reference})
    out += [f"- {ref}" for ref in refs]
    return "\n".join(out) + "\n"


_CSS = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222}table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.88em}
td,th{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#eef}.FAIL{background:#fbb;font-weight:bold}.pass{color:#161}
.holm{background:#ffe9b0}.na{color:#888}.verdict{font-size:1.15em;padding:0.6em;
border-radius:4px}.ok{background:#dfd}.bad{background:#fdd}pre{background:#f5f5f5;
padding:0.6em;overflow-x:auto;font-size:0.85em}img{max-width:100%}
"""


def to_html(rep: Report) -> str:
    v = rep.verdict or rep.judge()
    e = html.escape
    out = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
           f"<title>{e(rep.title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{e(rep.title)}</h1>",
           f"<p class='verdict {'ok' if rep.passed else 'bad'}'>{e(_verdict_line(rep))}</p>",
           "<h2>Run</h2><table>"]
    out += [f"<tr><th>{e(k)}</th><td>{e(val)}</td></tr>" for k, val in rep.meta.rows()]
    out.append("</table>")
    if rep.selftest:
        out += ["<h2>Power-up self-test (known-answer tests)</h2>",
                f"<pre>{e(chr(10).join(rep.selftest))}</pre>"]
    out += ["<h2>How the tests were judged</h2>", f"<p>{e(METHOD_TEXT)}</p><ul>"]
    out += [f"<li>{e(line)}</li>" for line in _second_level(v)]
    out += ["</ul>", "<img src='pvalues.png' alt='p-values'>"]
    for s in rep.sections:
        out.append(f"<h2>{e(s.title)}</h2>")
        out += [f"<p>{e(n)}</p>" for n in s.notes]
        out.append("<table><tr><th>test</th><th>statistic</th><th>null distribution</th>"
                   "<th>p-value</th><th>verdict</th><th>n</th><th>detail</th></tr>")
        for r in s.results:
            cls = {"FAIL": "FAIL", "pass": "pass", "pass (Holm)": "holm"}.get(r.verdict, "na")
            out.append(
                f"<tr class='{cls}'><td>{e(r.name)}</td><td>{_fmt_stat(r.statistic)}</td>"
                f"<td>{e(r.df)}</td><td>{fmt_p(r.p_value) if r.applicable else 'n/a'}</td>"
                f"<td>{e(r.verdict)}</td><td>{r.n:,}</td><td>{e(r.detail)}</td></tr>")
        out.append("</table>")
        out += [f"<figure><img src='{e(n)}' alt='{e(c)}'><figcaption>{e(c)}</figcaption>"
                "</figure>" for n, c in s.plots]
    out.append("<h2>External battery (dieharder)</h2>")
    if rep.external_note:
        out.append(f"<p>{e(rep.external_note)}</p>")
    if rep.external:
        out.append(f"<pre>{e(chr(10).join(rep.external))}</pre>")
    if rep.files:
        out.append("<h2>Files for the lab</h2><table><tr><th>file</th><th>bytes</th>"
                   "<th>SHA-256</th></tr>")
        out += [f"<tr><td>{e(n)}</td><td>{size:,}</td><td><code>{h}</code></td></tr>"
                for n, size, h in rep.files]
        out.append("</table>")
    refs = sorted({r.reference for s in rep.sections for r in s.results if r.reference})
    out += ["<h2>References</h2><ul>"] + [f"<li>{e(r)}</li>" for r in refs] + ["</ul>"]
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write(rep: Report, out_dir: Path) -> list[Path]:
    """Write report.md, report.html, results.json and pvalues.png; return the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    v = rep.verdict or rep.judge()
    plots.pvalues(out_dir / "pvalues.png", list(v.results))
    md = out_dir / "report.md"
    md.write_text(to_markdown(rep), encoding="utf-8")
    page = out_dir / "report.html"
    page.write_text(to_html(rep), encoding="utf-8")
    js = out_dir / "results.json"
    js.write_text(json.dumps({
        "verdict": "pass" if rep.passed else "fail",
        "alpha": ALPHA,
        "method": "Holm step-down, family-wise error rate 1%",
        "metadata": dict(rep.meta.rows()),
        "selftest_ok": rep.selftest_ok,
        "tests": [r.to_json() for r in v.results],
        "second_level": {"raw_failures": v.raw_failures, "expected": v.expected_failures,
                         "binomial_p": v.binomial_p, "ks_statistic": v.ks_statistic,
                         "ks_p": v.ks_p},
    }, indent=1, default=str), encoding="utf-8")
    return [md, page, js]
