"""The first hour at the command line (issue 45, findings 6-8): every game the demo offers
starts with the shipped table.toml, a message names the option the user typed, a port out
of range says the range, and the two internal errors are one line and exit 2."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from etgcore.errors import ConfigError
from firmware.cli import main
from firmware.cli.run import _effective
from firmware.engine.rules import VARIANTS, read_rules_file

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "table.toml"


def _one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    lines = [x for x in err.strip().splitlines() if x.startswith("etg")]
    assert len(lines) == 1 and "error" in lines[0], err
    assert "internal error" not in err and "Traceback" not in err
    return lines[0]


def _args(**kw: object) -> argparse.Namespace:
    base: dict[str, object] = {
        "config": str(SHIPPED), "overrides": [], "variant": None, "shoe": "sim",
        "panel": None, "journal": None, "seats": None, "auto_play": False, "demo": False}
    base.update(kw)
    return argparse.Namespace(**base)


@pytest.mark.parametrize("variant", VARIANTS)
def test_finding_6_every_game_of_the_window_demo_starts_with_the_shipped_table(
        variant: str) -> None:
    """The shipped table.toml seats 7; Free Bet Blackjack seats at most 6 (§ 672a.2(a)):
    the window demo seats each game as many players as it seats."""
    cfg = _effective(_args(variant=variant, demo=True, panel="keyboard"))
    most = int(read_rules_file(variant).game["max_seats"])
    assert cfg.table.variant == variant and cfg.table.seats == min(7, most)


def test_finding_6_8_a_message_names_the_option_the_user_typed() -> None:
    with pytest.raises(ConfigError) as got:
        _effective(_args(variant="free-bet"))
    text = str(got.value)
    assert "with --variant free-bet" in text and "--set" not in text
    assert "give --seats 6" in text
    with pytest.raises(ConfigError) as got:
        _effective(_args(variant="free-bet", overrides=["table.seats=7"]))
    assert "with --set, --variant free-bet" in str(got.value)


def test_finding_6_make_run_takes_variant() -> None:
    make = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "$(if $(VARIANT),--variant $(VARIANT))" in make


def test_finding_8_http_port_out_of_range_says_the_range(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = _one_line_exit_2(capsys, ["floor", "serve", "--dir", str(tmp_path),
                                     "--http", "127.0.0.1:99999"])
    assert "the port must be 1 to 65535, not 99999" in line
    line = _one_line_exit_2(capsys, ["floor", "serve", "--dir", str(tmp_path),
                                     "--http", "localhost"])
    assert "give HOST:PORT" in line


def test_finding_7_rtp_rounds_1e99_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    line = _one_line_exit_2(capsys, ["rtp", "--rounds", "1e99"])
    assert "is more than the most a count may be, 10^18" in line


def test_finding_7_floor_staff_without_password_or_terminal_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ETG_FLOOR_PASSWORD", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # nothing on stdin
    import getpass

    def no_terminal(prompt: str = "", stream: object = None) -> str:
        raise EOFError  # what getpass meets with no terminal and an empty stdin

    monkeypatch.setattr(getpass, "getpass", no_terminal)
    line = _one_line_exit_2(capsys, ["floor", "staff", "--dir", str(tmp_path), "bob"])
    assert "no password" in line and "ETG_FLOOR_PASSWORD" in line
