"""The certification report: Markdown, HTML, JSON and PNG plots in one directory.

The report states the verdict first, then what was run (metadata, power-up self-test),
how the many tests were judged together, every test with statistic, p-value and verdict,
the lab's external battery, and the files the run left for the lab.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
    #: the lines of the self-test checks that failed (the summary prints them)
    selftest_failed: list[str] = field(default_factory=list)
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
        out += ["| " + " | ".join(TEST_HEAD) + " |", "|" + "---|" * len(TEST_HEAD)]
        out += ["| " + " | ".join(_test_cells(r)) + " |" for r in s.results]
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
    out += [f"- {ref}" for ref in _references(rep)]
    return "\n".join(out) + "\n"


#: the columns of every test table (Markdown and HTML)
TEST_HEAD = ("test", "statistic", "null distribution", "p-value", "verdict", "n", "detail")
#: the row style of each verdict in the HTML page
_ROW_CSS = {"FAIL": "FAIL", "pass": "pass", "pass (Holm)": "holm"}


def _test_cells(r: TestResult) -> tuple[str, ...]:
    return (r.name, _fmt_stat(r.statistic), str(r.df),
            fmt_p(r.p_value) if r.applicable else "n/a", r.verdict, f"{r.n:,}", r.detail)


def to_html(rep: Report) -> str:
    """The report as an HTML page (``templates/report.html.j2``, autoescaped)."""
    from etgcore.document import render_html

    v = rep.verdict or rep.judge()
    sections = [{"title": s.title, "notes": s.notes, "plots": s.plots,
                 "rows": [{"css": _ROW_CSS.get(r.verdict, "na"), "cells": _test_cells(r)}
                          for r in s.results]} for s in rep.sections]
    return render_html(
        "rng.cert", "report.html.j2", title=rep.title, passed=rep.passed,
        verdict_line=_verdict_line(rep), meta=rep.meta.rows(), selftest=rep.selftest,
        method=METHOD_TEXT, second_level=_second_level(v), sections=sections,
        test_head=TEST_HEAD, external_note=rep.external_note, external=rep.external,
        files=rep.files, references=_references(rep))


def _references(rep: Report) -> list[str]:
    return sorted({r.reference for s in rep.sections for r in s.results if r.reference})


def _finite(d: dict[str, Any]) -> dict[str, Any]:
    """NaN (a statistic that does not apply) as null: JSON has no NaN."""
    return {k: None if isinstance(v, float) and v != v else v for k, v in d.items()}


def to_json(rep: Report) -> dict[str, object]:
    """The report as data: results.json, and what ``etg cert analyze --json`` prints."""
    v = rep.verdict or rep.judge()
    return {
        "verdict": "pass" if rep.passed else "fail",
        "alpha": ALPHA,
        "method": "Holm step-down, family-wise error rate 1%",
        "metadata": {k: str(val) for k, val in rep.meta.rows()},
        "selftest_ok": rep.selftest_ok,
        "tests": [_finite(r.to_json()) for r in v.results],
        "second_level": {"raw_failures": v.raw_failures, "expected": v.expected_failures,
                         "binomial_p": v.binomial_p, "ks_statistic": v.ks_statistic,
                         "ks_p": v.ks_p},
    }


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
    js.write_text(json.dumps(to_json(rep), indent=1, default=str), encoding="utf-8")
    return [md, page, js]
