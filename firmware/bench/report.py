"""Scenario results: the PASS/FAIL lines, the summary line and the JUnit XML report."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: control characters: a scenario's name (a TOML string may hold "\n" or "\u0001") must
#: not break the one-line-per-file output, nor make the JUnit XML ill-formed
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: what XML 1.0 cannot hold at all (also lone surrogates and U+FFFE/U+FFFF)
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def one_line(text: str) -> str:
    """``text`` with every control character (newlines included) shown as a space."""
    return _CONTROL.sub(" ", text)


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


@dataclass(frozen=True)
class Result:
    path: str
    name: str
    problems: tuple[str, ...]
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "name": self.name, "passed": self.passed,
                "problems": list(self.problems), "seconds": round(self.seconds, 3)}

    def line(self) -> str:
        head = f"{one_line(self.path)}: {one_line(self.name)}"
        if self.passed:
            return f"PASS {head}"
        return f"FAIL {head}: {one_line('; '.join(self.problems))}"


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
            suite, "testcase", classname=_xml(one_line(r.path)), name=_xml(one_line(r.name)),
            time=f"{r.seconds:.3f}",
        )
        if not r.passed:
            fail = ET.SubElement(case, "failure", message=_xml(one_line(r.problems[0])))
            fail.text = _xml("\n".join(one_line(p) for p in r.problems))
    root = ET.Element("testsuites")
    root.append(suite)
    tree = ET.ElementTree(root)
    ET.indent(tree)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    tree.write(path, encoding="utf-8", xml_declaration=True)
