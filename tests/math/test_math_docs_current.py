"""Docs that restate data are checked (issue 48): docs/rules.md's settings against the
Rules Submissions, the shipped docs/par/ against the rules and math digests."""

from __future__ import annotations

import json
import re
from pathlib import Path

from firmware.engine.rules import VARIANTS, read_rules_file
from firmware.math.par import published


def _every_setting() -> set[str]:
    return set().union(*(read_rules_file(v).specs for v in VARIANTS))


def test_finding_5_the_settings_table_of_docs_rules_md_is_current() -> None:
    """docs/rules.md named settings by hand and missed some (`decks`, `push22`,
    `envy_bonus`, `super_bonus_25_or_more`): the table is written from the files."""
    text = published.RULES_DOC.read_text(encoding="utf-8")
    assert published.rules_doc_section(text) == published.settings_table(), (
        "docs/rules.md's settings table is stale: run make rules-doc")
    table = published.rules_doc_section(text)
    named = set(re.findall(r"^\| `([a-z0-9_]+)` \|", table, flags=re.M))
    assert named == _every_setting()


def test_every_rs_mark_of_docs_rules_md_names_a_setting() -> None:
    text = published.RULES_DOC.read_text(encoding="utf-8")
    marked = set(re.findall(r"\*\*\(RS\)\*\*[^`]{0,40}`([a-z0-9_]+)`", text))
    assert marked and marked <= _every_setting(), sorted(marked - _every_setting())


def test_the_settings_table_sees_a_change_of_a_default(tmp_path: Path) -> None:
    text = published.RULES_DOC.read_text(encoding="utf-8")
    stale = text.replace("| `burn_cards` | blackjack | 1 |", "| `burn_cards` | blackjack | 2 |")
    assert stale != text
    assert published.rules_doc_section(stale) != published.settings_table()
    doc = tmp_path / "rules.md"
    doc.write_text(stale, encoding="utf-8")
    published.write_rules_doc(doc)
    assert doc.read_text(encoding="utf-8") == text


def test_finding_5_the_shipped_par_sheets_are_current() -> None:
    """Each shipped sheet names the Rules Submission and math sources it was computed
    from; a change to either without `make par` fails here."""
    assert published.stale_sheets() == [], "docs/par is stale: run make par"


def test_a_stale_sheet_is_seen(tmp_path: Path) -> None:
    from firmware.math.cache import source_sha256
    from firmware.math.par.configurations import rules_digest

    for v in VARIANTS:  # copies made current, then two made stale and one removed
        data = json.loads((published.SHEETS / f"par-{v}.json").read_text(encoding="utf-8"))
        data["document"]["software"] = f"etg-firmware; math SHA-256 {source_sha256()}"
        data["document"]["rules_submission"] = f"rules SHA-256 {rules_digest(v)}"
        (tmp_path / f"par-{v}.json").write_text(json.dumps(data), encoding="utf-8")
    assert published.stale_sheets(tmp_path) == []
    path = tmp_path / "par-bingo.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["document"]["software"] = data["document"]["software"][:-4] + "0000"
    data["document"]["rules_submission"] = data["document"]["rules_submission"][:-4] + "0000"
    path.write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "par-free-bet.json").unlink()
    got = published.stale_sheets(tmp_path)
    assert len(got) == 3
    assert any("par-free-bet.json: missing" in g for g in got)
    assert any("other firmware/math sources" in g for g in got)
    assert any("another firmware/rules/bingo.toml" in g for g in got)
