"""Issue 46, a gap noticed: `table.max_seat_credits` was wider (100,000,000 by default)
than the 8 BCD digits in which a slot system reads a seat's current credits (poll 1A), so
an attendant's transfer could take a seat where 1A shows it rolled over. With SAS on, a
configuration with more is refused in one line; the default fits."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.sas.codes import MAX_FOUR_BYTE


def test_gap_max_seat_credits_past_1a_digits_is_refused_with_sas_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from firmware.cli import main

    path = tmp_path / "table.toml"
    path.write_text('[table]\nmax_seat_credits = 100000000\n[sas]\nport = "pty"\n',
                    encoding="utf-8")
    assert main(["--config", str(path), "config", "check"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    assert err[0].startswith(f"etg: error: {path}: table.max_seat_credits: 100,000,000 cents")
    assert "99999999" in err[0] and "1A" in err[0]


def test_the_default_fits_1a_and_sas_off_keeps_any_maximum() -> None:
    from etgcore.errors import ConfigError
    from firmware.config import load_config

    cfg = load_config(None, ["sas.port=pty"])  # the default: SAS on is accepted
    assert cfg.table.max_seat_credits == MAX_FOUR_BYTE
    load_config(None, ["sas.port=pty", f"table.max_seat_credits={MAX_FOUR_BYTE}"])
    load_config(None, ["table.max_seat_credits=1000000000"])  # no slot system: its own limit
    with pytest.raises(ConfigError, match="max_seat_credits"):  # a seat's own line counts
        load_config(None, ["table.seats=1", 'sas.seat_ports=["pty"]',
                           "table.max_seat_credits=1000000000"])
