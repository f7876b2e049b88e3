"""The first hour's documents (issue 45, findings 10 and 11): the README says its times are
an idle machine's, the LICENSE is the Apache-2.0 text `pyproject.toml` declares, and a
changelog names the version `pyproject.toml` ships."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: a stated duration: "25 s", "2-6 min", "about a minute", "9 s"
_TIME = re.compile(r"\b\d[\d.,]*(?:-\d[\d.,]*)? ?(?:s|ms|min|minutes?|seconds?)\b")


def test_finding_10_readme_times_are_an_idle_machines() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert re.search(r"times in this README.*\n?.*idle", text), "no note on the times"
    # the measured times are not said to be "here" (on whatever machine reads them)
    here = [line for line in text.splitlines() if _TIME.search(line)
            and re.search(r"\bhere\b", line)]
    assert not here, here


def test_finding_11_license_is_the_apache_2_text_pyproject_declares() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["license"] == "Apache-2.0"
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    headings = ["Definitions", "Grant of Copyright License", "Grant of Patent License",
                "Redistribution", "Submission of Contributions", "Trademarks",
                "Disclaimer of Warranty", "Limitation of Liability",
                "Accepting Warranty or Additional Liability"]
    for n, heading in enumerate(headings, start=1):  # all nine sections, in order
        assert re.search(rf"^ +{n}\. {heading}\.", text, re.M), heading
    assert "END OF TERMS AND CONDITIONS" in text
    assert "http://www.apache.org/licenses/LICENSE-2.0" in text  # the appendix


def test_finding_11_changelog_names_the_shipped_version() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(meta['project']['version'])}\b", text, re.M)
    assert re.search(r"^## Unreleased", text, re.M)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "(LICENSE)" in readme and "(CHANGELOG.md)" in readme
