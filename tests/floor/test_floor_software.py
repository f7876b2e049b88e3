"""Remote software authentication from the pit, end to end: a real table running from an
unpacked signed release answers the floor's fresh seed with the seeded HMAC over its
installed files; the floor compares it with its own copy of the approved bundle. A changed
file on the table is a mismatch and an alarm; who asked, when, the seed and the answer are
kept. The floor's expected value is the release tooling's own (`etg release hmac`)."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from floor_rig import floor_rig, wait_for

from deploy import signing
from deploy.bundle import build_bundle, verify_bundle
from deploy.seeded_hmac import hmac_of_entries
from deploy.unpack import extract

if not shutil.which("mosquitto") and not Path("/usr/sbin/mosquitto").exists():
    pytest.skip("mosquitto is not installed (make setup installs it)", allow_module_level=True)

REPO = Path(__file__).resolve().parents[2]


def _checks(db: str) -> list[tuple[str, str, str | None, str | None, str | None]]:
    with sqlite3.connect(db) as c:
        return c.execute("SELECT by_name, seed, expected, answer, result FROM"
                         " floor_software_checks ORDER BY asked").fetchall()


def test_the_pit_asks_a_table_for_its_seeded_signature(tmp_path: Path) -> None:
    key, pub, _kid = signing.generate(tmp_path / "release")
    bundle = build_bundle(REPO, key, tmp_path / "etg.etgrel").path
    verified = verify_bundle(bundle, pub)
    installed, _ = extract(verified.contents, tmp_path / "releases")
    with floor_rig(tmp_path, ["SW1"]) as rig:
        # the table runs the installed release's program, writing nothing into it
        rig.env.update(PYTHONPATH=str(installed), PYTHONDONTWRITEBYTECODE="1")
        rig.table_cwd = installed
        rig.start_broker()
        rig.start_floor("--approved-release", str(bundle), "--release-pubkey", str(pub))
        rig.start_table("SW1")
        rig.log_in()
        wait_for("SW1 on the floor", lambda: rig.tiles().get("SW1", {}).get("online"))

        def ask() -> tuple[str, str, str | None, str | None, str | None]:
            before = len(_checks(rig.db_url))
            rig.post("/table/SW1/check-software")
            return wait_for("the table's answer", lambda: (
                rows[-1] if len(rows := _checks(rig.db_url)) > before and rows[-1][4]
                else None))

        by, seed, expected, answer, result = ask()
        assert (by, result) == ("pit", "match"), rig.log_text("floor")[-2000:]
        assert answer == expected == hmac_of_entries(bytes.fromhex(seed),
                                                     verified.contents.files.items())
        again = ask()
        assert again[1] != seed and again[4] == "match"  # a fresh seed each time

        victim = installed / "firmware" / "floor" / "topics.py"
        os.chmod(victim, 0o644)
        with victim.open("a") as f:
            f.write("# changed on the table\n")
        _by, _seed, expected, answer, result = ask()
        assert result == "mismatch" and answer != expected
        alarms = wait_for("the software alarm", lambda: [
            a for a in rig.tiles()["SW1"]["alarms"] if a["kind"] == "software"])
        assert "do not match" in alarms[0]["detail"]
        assert "software check of table SW1 (asked by pit" in rig.log_text("floor")
