"""The reports a person reads are HTML pages with real tables, rendered from templates
(autoescaped): the PAR sheet (`etg par --out`) and the lab report (`etg cert analyze
--out`, `etg cert run`). Read back with the standard library's HTML parser, as a browser
sees them (issue 20, point 10)."""

from __future__ import annotations

import random
from html.parser import HTMLParser
from pathlib import Path

import pytest

from etgcore.document import Bullets, Paragraph, table, to_html, to_markdown
from firmware.cli import main


class TableReader(HTMLParser):
    """Every ``<table>`` of a page: its caption and its rows of cell texts (th and td)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict[str, object]] = []
        self.pre: list[str] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._caption: list[str] | None = None
        self._in_pre = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append({"caption": "", "rows": []})
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "caption":
            self._caption = []
        elif tag == "pre":
            self._in_pre = True
            self.pre.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            rows = self.tables[-1]["rows"]
            assert isinstance(rows, list)
            rows.append(self._row)
            self._row = None
        elif tag == "caption" and self._caption is not None:
            self.tables[-1]["caption"] = "".join(self._caption).strip()
            self._caption = None
        elif tag == "pre":
            self._in_pre = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        elif self._caption is not None:
            self._caption.append(data)
        if self._in_pre:
            self.pre[-1] += data


def read_tables(page: str) -> TableReader:
    reader = TableReader()
    reader.feed(page)
    reader.close()
    return reader


def _table(reader: TableReader, first_head: str, caption: str = "") -> list[list[str]]:
    for t in reader.tables:
        rows = t["rows"]
        assert isinstance(rows, list)
        if rows and rows[0][0] == first_head and (not caption or t["caption"] == caption):
            return rows
    raise AssertionError(f"no table headed {first_head!r} {caption!r}")


def test_par_sheet_html_has_the_tables_of_the_markdown(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    out = tmp_path / "par"  # one configuration: every axis of the sheet pinned
    assert main(["par", "--variant", "blackjack", "--set", "decks=6", "--set",
                 "dealer_hits_soft_17=false", "--set", "blackjack_pays=3:2", "--out", str(out),
                 "--sim-rounds", "1000"]) == 0
    capsys.readouterr()
    page = (out / "par-blackjack.html").read_text(encoding="utf-8")
    md = (out / "par-blackjack.md").read_text(encoding="utf-8")
    assert "<pre>" not in page and "| item | value |" not in page  # no Markdown inside
    doc = read_tables(page)
    control = dict((r[0], r[1]) for r in _table(doc, "item")[1:])
    assert control["game"].startswith("Blackjack") and "blackjack.toml" in control[
        "rules submission"]
    configs = _table(doc, "#")
    assert [r[1] for r in configs[1:]] == ["6 decks, S17, Blackjack pays 3:2"]
    dealer = _table(doc, "up")
    assert dealer[0][:3] == ["up", "17", "18"] and [r[0] for r in dealer[1:]] == [
        "2", "3", "4", "5", "6", "7", "8", "9", "10", "A"]
    assert all(0 <= float(c) <= 1 for r in dealer[1:] for c in r[1:])
    hard = _table(doc, "hand", caption="Hard totals (two cards)")
    assert hard[0] == ["hand", "2", "3", "4", "5", "6", "7", "8", "9", "10", "A"]
    assert dict((r[0], r[1:]) for r in hard[1:])["17"] == ["S"] * 10
    lines = _table(doc, "line")
    assert lines[0][:3] == ["line", "probability (per round)", "net payout"]
    assert f"| {lines[1][0]} | {lines[1][1]} | {lines[1][2]} |" in md
    imgs = [f for f in ("par-blackjack-outcomes.png",) if f'src="{f}"' in page]
    assert imgs and (out / imgs[0]).is_file()


def test_lab_report_html_has_a_row_per_test(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(5)
    values = [str(v) for v in rng.choices(range(12, 22), [30, 25, 20, 15, 10, 8, 6, 4, 3, 2],
                                          k=20_000)]
    f = tmp_path / "targets.csv"
    f.write_text("\n".join(values) + "\n", encoding="ascii")
    out = tmp_path / "rep"
    assert main(["cert", "analyze", str(f), "--what", "target", "--weights",
                 "12:30,13:25,14:20,15:15,16:10,17:8,18:6,19:4,20:3,21:2", "--out",
                 str(out), "--json"]) in (0, 1)
    import json

    results = json.loads(capsys.readouterr().out)
    doc = read_tables((out / "report.html").read_text(encoding="utf-8"))
    tests = _table(doc, "test")
    assert tests[0] == ["test", "statistic", "null distribution", "p-value", "verdict", "n",
                        "detail"]
    rows = [r for t in doc.tables for r in t["rows"][1:]  # type: ignore[index, union-attr]
            if t["rows"][0][0] == "test"]  # type: ignore[index]
    assert len(rows) == len(results["tests"])
    assert {r[4] for r in rows} <= {"pass", "pass (Holm)", "FAIL", "n/a"}
    assert any(r[0].startswith("chi-square") for r in rows)
    run = dict((r[0], r[1]) for r in doc.tables[0]["rows"])  # type: ignore[union-attr]
    assert run["program version"].startswith("etg ")
    assert any(v.endswith("targets.csv (target)") for v in run.values())


def test_templates_escape_what_they_are_given() -> None:
    blocks = [Paragraph("a <b>tag</b> & **bold** with `code`"),
              table(["<x>", "y"], [["1 < 2", "a & b"]]), Bullets(("<li>",))]
    page = to_html("T <1>", blocks)
    assert "<b>tag</b>" not in page and "&lt;b&gt;tag&lt;/b&gt; &amp;" in page
    assert "<strong>bold</strong>" in page and "<code>code</code>" in page
    doc = read_tables(page)
    assert doc.tables[0]["rows"] == [["<x>", "y"], ["1 < 2", "a & b"]]
    md = to_markdown("T", blocks)
    assert "| <x> | y |" in md and "* <li>" in md
