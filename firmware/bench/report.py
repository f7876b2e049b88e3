"""Scenario results: the PASS/FAIL lines, the summary line and the JUnit XML report."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Result:
    path: str
    name: str
    problems: tuple[str, ...]
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return not self.problems

    def line(self) -> str:
        if self.passed:
            return f"PASS {self.path}: {self.name}"
        return f"FAIL {self.path}: {self.name}: {'; '.join(self.problems)}"


def summary(results: Iterable[Result]) -> str:
    rs = list(results)
    passed = sum(r.passed for r in rs)
    return f"{passed} passed, {len(rs) - passed} failed"


def write_junit(path: str | Path, results: list[Result], mode: str) -> None:
    """A JUnit XML report (one testcase per scenario file) for CI dashboards."""
    failures = sum(not r.passed for r in results)
    suite = ET.Element(
        "testsuite", name=f"etg bench ({mode})", tests=str(len(results)),
        failures=str(failures), errors="0",
        time=f"{sum(r.seconds for r in results):.3f}",
    )
    for r in results:
        case = ET.SubElement(
            suite, "testcase", classname=r.path, name=r.name, time=f"{r.seconds:.3f}"
        )
        if not r.passed:
            fail = ET.SubElement(case, "failure", message=r.problems[0])
            fail.text = "\n".join(r.problems)
    root = ET.Element("testsuites")
    root.append(suite)
    tree = ET.ElementTree(root)
    ET.indent(tree)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    tree.write(path, encoding="utf-8", xml_declaration=True)
