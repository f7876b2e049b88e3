"""`etg run` checks every option before it creates anything (issue 38, item 8): a bad
value is one line on stderr and exit 2, and leaves no journal (nor its directory, key,
lock or socket) behind."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from firmware.cli import main

BAD = [
    (["--pace", "-1"], "--pace: '-1': seconds between cards, from 0 to 10"),
    (["--pace", "nan"], "--pace: 'nan'"),
    (["--pace", "11"], "--pace: '11'"),
    (["--rounds", "-1"], "--rounds must be 0 (no limit) or more"),
    (["--seats", "8"], "--seats 8: a table has 1 to 7 seats"),
    (["--control", "no/such/dir/ctl.sock"], "--control: no/such/dir/ctl.sock: no such directory"),
    (["--journal", "var/" + "j" * 120 + ".sqlite"],
     "a Unix socket path holds at most 107 bytes"),
]
if importlib.util.find_spec("RPi") is None:
    BAD.append((["--panel", "gpio"], "panel backend 'gpio' needs RPi.GPIO"))


@pytest.mark.parametrize(("argv", "said"), BAD, ids=[" ".join(a)[:30] for a, _ in BAD])
def test_a_bad_option_is_one_line_and_creates_nothing(
    argv: list[str], said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ETG_CONFIG", raising=False)
    code = main(["--set", 'journal.path="var/j.sqlite"', "run", "--headless", *argv])
    err = capsys.readouterr().err
    assert code == 2
    assert said in err
    assert len(err.splitlines()) == 1, err
    assert list(tmp_path.iterdir()) == []  # no var/, no journal, no socket
