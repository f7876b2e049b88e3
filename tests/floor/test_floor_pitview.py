"""The pit view in a real browser (Debian's chromium, headless, driven by chromedriver):
log in, every table's tile appears, a tilt turns its tile red, and a disable pressed on
the table's page closes the table after the round in play; enable resumes it."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from floor_rig import PASSWORD, STAFF, FloorRig, floor_rig, wait_for

from firmware.journal import EventCode
from firmware.table.requests.json_lines import request as control

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
if not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
    pytest.skip("Debian's chromium and chromium-driver are not installed (make setup)",
                allow_module_level=True)
if not shutil.which("mosquitto") and not Path("/usr/sbin/mosquitto").exists():
    pytest.skip("mosquitto is not installed (make setup installs it)", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver")

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage")


def _browser(profile: Path) -> Any:
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for f in FLAGS:
        opts.add_argument(f)
    opts.add_argument(f"--user-data-dir={profile}")
    return webdriver.Chrome(service=Service(DRIVER), options=opts)


def _journal(rig: FloorRig, tid: str) -> list[tuple[int, str, int | None, dict[str, Any]]]:
    db = sqlite3.connect(f"file:{rig.journal(tid)}?mode=ro", uri=True)
    try:
        return [(s, k, c, json.loads(b)) for s, k, c, b in db.execute(
            "SELECT seq, kind, code, body FROM records ORDER BY seq")]
    finally:
        db.close()


def _first(recs: list[Any], code: int, after: int = 0) -> int | None:
    return next((s for s, k, c, _b in recs if k == "event" and c == code and s > after), None)


def test_pit_view_tiles_tilt_and_disable(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    with floor_rig(tmp_path, ["B1", "B2"]) as rig:
        rig.start_broker()
        rig.start_floor()
        rig.start_table("B1", auto_play=False)  # idle: nothing but our fault tilts it
        rig.start_table("B2")
        browser = _browser(tmp_path / "chromium-profile")
        try:
            browser.get(rig.url("/"))
            browser.find_element(By.ID, "name").send_keys(STAFF)
            browser.find_element(By.ID, "password").send_keys(PASSWORD)
            browser.find_element(By.ID, "login").click()
            for tid in ("B1", "B2"):  # tiles appear (live, without a reload)
                wait_for(f"the tile of {tid}", lambda tid=tid: browser.find_elements(
                    By.ID, f"tile-{tid}"))
            wait_for("B1's status", lambda: "blackjack" in browser.find_element(
                By.ID, "tile-B1").text)

            # a tilt: the browser notes when the tile turns red; the table's journal when
            # it tilted
            browser.execute_script("""
                window.__red = null; const el = document.getElementById('tile-B1');
                new MutationObserver(() => {
                  if (!window.__red && el.classList.contains('tilt')
                      && el.textContent.includes('panel'))
                    window.__red = [Date.now(), getComputedStyle(el).backgroundColor];
                }).observe(el, {attributes: true, childList: true, subtree: true});""")
            assert "tilt" not in browser.find_element(By.ID, "tile-B1").get_attribute("class")
            assert control(rig.control("B1"), {"cmd": "fault", "code": "PANEL",
                                               "detail": "pit view test"})["ok"]
            red_ms, color = wait_for("B1's tile to turn red",
                                     lambda: browser.execute_script("return window.__red"))
            tilt_ns = wait_for("B1's TILT record", lambda: next(
                (t for _s, _k, c, t, b in _journal_ts(rig, "B1")
                 if c == EventCode.TILT and b.get("code") == "PANEL"), None))
            latency = red_ms / 1000 - tilt_ns / 1e9
            print(f"tilt journaled -> tile red in the browser: {latency * 1000:.0f} ms")
            assert latency > -0.05  # the same clock: red never before the tilt
            assert color == "rgb(176, 0, 32)"
            assert "tilt" in browser.find_element(By.ID, "tile-B1").get_attribute("class")

            # disable B2 from its page: it finishes the round in play, then closes
            browser.find_element(By.ID, "tile-B2").click()
            wait_for("B2's page", lambda: browser.find_elements(By.ID, "disable"))
            browser.find_element(By.ID, "disable").click()
            closed = wait_for("B2 closed", lambda: _first(_journal(rig, "B2"),
                                                          EventCode.TABLE_CLOSED))
            wait_for("the closed tile", lambda: "closed" in browser.find_element(
                By.ID, "tile").get_attribute("class"))
            recs = _journal(rig, "B2")
            cmd = _first(recs, EventCode.FLOOR_COMMAND)
            assert cmd is not None and cmd < closed
            body = next(b for s, _k, _c, b in recs if s == cmd)
            assert body["action"] == "disable" and body["by"] == STAFF
            rounds_between = [s for s, k, _c, _b in recs if k == "round" and cmd < s < closed]
            assert len(rounds_between) <= 1  # only the round that was in play
            # the auto-players keep pressing BET: a few more of their inputs refused proves
            # the closed table went on taking presses, and took none of them
            refused = _refused(rig, "B2")
            wait_for("B2 to refuse more presses", lambda: _refused(rig, "B2") >= refused + 3)
            later = _journal(rig, "B2")
            assert not [b for s, k, _c, b in later if s > closed and k == "input"
                        and b["input"]["type"] in ("wager", "side-wager")]
            assert not [s for s, k, _c, _b in later if s > closed and k == "round"]

            browser.find_element(By.ID, "enable").click()
            opened = wait_for("B2 enabled", lambda: _first(_journal(rig, "B2"),
                                                           EventCode.TABLE_OPENED, closed))
            wait_for("a round after enabling", lambda: [
                s for s, k, _c, _b in _journal(rig, "B2") if k == "round" and s > opened])
            # the meters are money in dollars and cents, as served and as kept live by the page
            money = re.compile(r"^-?\$\d{1,3}(,\d{3})*\.\d\d$")
            wagered = browser.find_element(By.ID, "m-wagered").text
            assert money.match(wagered), wagered
            wait_for("the live meters to move", lambda: money.match(t := browser.find_element(
                By.ID, "m-wagered").text) and t != wagered)
            assert browser.find_element(By.ID, "m-games_played").text.replace(",", "").isdigit()
            logged = sqlite3.connect(rig.db_url).execute(
                "SELECT action, by_name FROM floor_commands WHERE table_id = 'B2'"
                " ORDER BY at").fetchall()
            assert logged == [("disable", STAFF), ("enable", STAFF)]
        finally:
            browser.quit()


def _refused(rig: FloorRig, tid: str) -> int:
    """Inputs the table refused so far (its bench control channel counts them)."""
    return int(control(rig.control(tid), {"cmd": "status"})["handled"].get("input:refused", 0))


def _journal_ts(rig: FloorRig, tid: str) -> list[tuple[int, str, int | None, int, Any]]:
    db = sqlite3.connect(f"file:{rig.journal(tid)}?mode=ro", uri=True)
    try:
        return [(s, k, c, t, json.loads(b)) for s, k, c, t, b in db.execute(
            "SELECT seq, kind, code, ts_ns, body FROM records WHERE kind = 'event'"
            " ORDER BY seq")]
    finally:
        db.close()
