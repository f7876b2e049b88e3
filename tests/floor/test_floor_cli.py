"""`etg floor` on the command line: certificates with private keys, the broker's generated
configuration and ACL, a table's [floor] keys; bad input is one line and exit 2."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from firmware.cli import main


def test_certs_broker_config_and_table_keys(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "floor"
    assert main(["floor", "certs", "--dir", str(d), "--tables", "BJ-01,BJ-02", "--json"]) == 0
    made = json.loads(capsys.readouterr().out)["created"]
    assert made == ["ca", "broker", "floor", "BJ-01", "BJ-02"]
    for key in (d / "ca.key", d / "floor.key", d / "tables" / "BJ-01.key"):
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert main(["floor", "certs", "--dir", str(d), "--tables", "BJ-01"]) == 0
    assert "nothing" in capsys.readouterr().out  # existing identities are kept

    assert main(["floor", "broker", "--dir", str(d), "--listen", "127.0.0.1:18883",
                 "--write-only"]) == 0
    conf = (d / "mosquitto.conf").read_text().splitlines()
    for line in ("allow_anonymous false", "require_certificate true",
                 "use_identity_as_username true", "listener 18883 127.0.0.1"):
        assert line in conf
    assert not any(line.startswith("listener") and "18883" not in line for line in conf)
    acl = (d / "broker.acl").read_text().splitlines()
    assert "pattern write etg/table/%u/records" in acl and "pattern read etg/command/%u" in acl
    assert "pattern write etg/table/%u/#" not in acl  # exactly its four topics
    assert not any(line.startswith(("topic write etg/table", "pattern write etg/command"))
                   for line in acl)

    capsys.readouterr()
    assert main(["floor", "table-config", "--dir", str(d), "BJ-02", "--toml"]) == 0
    toml = capsys.readouterr().out
    assert toml.startswith("[floor]") and "BJ-02.key" in toml and "floor.pem" in toml


@pytest.mark.parametrize("argv, says", [
    (["floor", "serve", "--broker", "nowhere"], "give HOST:PORT"),
    (["floor", "certs", "--tables", "bad id"], "letters, digits"),
    (["floor", "load", "--tables", "0"], "--tables must be 1..5000"),
    (["floor", "load", "--prefix", "a b"], "--prefix 'a b'"),
    (["floor", "load", "--broker", "127.0.0.1:1"], "no broker answers there"),
    (["floor", "serve", "--gaming-day-start", "25:00"], "give the gaming day's start"),
    (["floor", "serve", "--release-pubkey", "k.pub"], "goes with --approved-release"),
    (["floor", "serve", "--quarantine-after", "0"], "--quarantine-after must be 1..10000"),
    (["floor", "table-config", "NOPE"], "no certificate for table NOPE"),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], says: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*argv, "--dir", str(tmp_path / "floor")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0]


def test_floor_help_names_the_options_that_exist(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["floor", "--help"]) == 0
    text = capsys.readouterr().out
    assert "etg floor broker --dir DIR --listen HOST:PORT" in text and "--port" not in text
    assert main(["floor", "broker", "--help"]) == 0
    assert "--listen HOST:PORT" in capsys.readouterr().out
