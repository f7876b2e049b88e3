"""`etg meters` for people (issue 38, item 13): every amount written the same way (dollars
and cents, right-aligned in its column) and the balance said in words."""

from __future__ import annotations

import re

from firmware.cli.audit import meters_text
from firmware.journal.meters import round_deltas, summarize


def _meters() -> dict[str, object]:
    raw: dict[tuple[str, int, str], int] = {}

    def add(deltas: dict[tuple[str, int, str], int]) -> None:
        for k, v in deltas.items():
            raw[k] = raw.get(k, 0) + v

    for seat in (1, 2):
        add({("credits_in", seat, ""): 50_000, ("credits_in", 0, ""): 50_000,
             ("credits", seat, ""): 50_000, ("credits", 0, ""): 50_000})
    # seat 1 wins $5 on $5, seat 2 loses a $10 double and $2.50 of insurance
    add(round_deltas({1: {"blackjack": 500}, 2: {"blackjack": 1000, "insurance": 250}},
                     {1: {"blackjack": 1000}, 2: {}}, voided=False))
    return summarize(raw)


def test_every_amount_has_dollars_and_cents_and_the_balance_is_words() -> None:
    lines = meters_text(_meters())
    text = "\n".join(lines)
    amounts = re.findall(r"-?\$[\d,]+(?:\.\d+)?", text)
    assert amounts and all(re.fullmatch(r"-?\$\d{1,3}(,\d{3})*\.\d\d", a) for a in amounts)
    assert "True" not in text and "False" not in text
    assert lines[-1] == "balanced: yes (credits = credits in - credits out - wagered + paid)"
    head, table, seat1, seat2 = lines[1], lines[2], lines[3], lines[4]
    assert head.split() == ["games", "wagered", "paid", "credits", "in", "credits", "out",
                            "credits"]
    assert table.split() == ["table", "1", "$17.50", "$10.00", "$1,000.00", "$0.00",
                             "$992.50"]
    assert seat1.split()[:4] == ["seat", "1", "1", "$5.00"]
    assert seat2.split()[-1] == "$487.50"
    # the columns line up: every amount of a column ends where its heading ends
    ends = {line.index(a) + len(a) for line in lines[2:5] for a in line.split()[-1:]}
    assert ends == {len(head)}
    assert "insurance wagers: wagered $2.50, paid $0.00" in lines


def test_an_unbalanced_journal_says_no() -> None:
    m = _meters()
    m["balanced"] = False
    assert meters_text(m)[-1].startswith("balanced: NO ")
