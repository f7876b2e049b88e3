"""The pit view in a real browser (Debian's chromium, headless, driven by chromedriver):
log in, every table's tile appears, a tilt turns its tile red, and a disable pressed on
the table's page closes the table after the round in play; enable resumes it."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import time
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


def _log_in(browser: Any, rig: FloorRig) -> None:
    from selenium.webdriver.common.by import By

    browser.get(rig.url("/"))
    browser.find_element(By.ID, "name").send_keys(STAFF)
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    browser.find_element(By.ID, "login").click()


def _choose(browser: Any, select: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", select)).select_by_value(value)


def _summary(browser: Any) -> dict[str, str]:
    """The summary bar's counts (read in one go: the page redraws it as tiles change)."""
    return dict(browser.execute_script(
        "const o = {}; for (const k of ['open', 'closed', 'tilted', 'offline', 'quarantined',"
        " 'alarms', 'drop']) o[k] = document.getElementById('sum-' + k).textContent;"
        " return o;"))


def _bad_status_from(rig: FloorRig, tid: str) -> None:
    """A table's certificate sends a status that breaks the schema (an alarm)."""
    from firmware.floor.certs import ca_paths, identity
    from firmware.floor.mqtt import make_client

    me = identity(rig.dir, tid)
    c = make_client(tid, ca_paths(rig.dir).cert, me.cert, me.key, clean=True)
    c.connect("127.0.0.1", rig.broker_port, 10)
    c.loop_start()
    try:
        c.publish(f"etg/table/{tid}/status", b'{"seq": "twelve"}', qos=1).wait_for_publish(30)
    finally:
        c.loop_stop()
        c.disconnect()


def test_pit_view_summary_alarms_tilt_and_disable(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    with floor_rig(tmp_path, ["B1", "B2", "B3"]) as rig:
        rig.start_broker()
        rig.start_floor()
        rig.start_table("B1", auto_play=False)  # idle: nothing but our fault tilts it
        rig.start_table("B2")
        browser = _browser(tmp_path / "chromium-profile")
        try:
            _log_in(browser, rig)
            for tid in ("B1", "B2"):  # tiles appear (live, without a reload)
                wait_for(f"the tile of {tid}", lambda tid=tid: browser.find_elements(
                    By.ID, f"tile-{tid}"))
            wait_for("B1's status", lambda: "blackjack" in browser.find_element(
                By.ID, "tile-B1").text)
            wait_for("the summary: two open tables", lambda: _summary(browser)["open"] == "2")
            assert browser.find_element(By.ID, "legend").text.count("quarantined") == 1

            # an alarm: a bad message from B3's certificate, listed live, acknowledged
            _bad_status_from(rig, "B3")
            item = wait_for("the alarm in the list", lambda: [
                li for li in browser.find_elements(By.CSS_SELECTOR, "#alarms li.open")
                if "B3" in li.text and "bad-message" in li.text])[0]
            assert "`$.seq`" in item.text  # the schema names the field it refused
            assert browser.find_element(By.ID, "alarm-count").text == "1"
            item.find_element(By.CSS_SELECTOR, "button.ack").click()
            wait_for("the alarm acknowledged", lambda: any(  # (the list folds: none open)
                "acknowledged by pit" in li.get_attribute("textContent")
                for li in browser.find_elements(By.CSS_SELECTOR, "#alarms li.done")))
            assert browser.find_element(By.ID, "alarm-count").text == "0"
            assert sqlite3.connect(rig.db_url).execute(
                "SELECT ack_by FROM floor_alarms WHERE table_id = 'B3'").fetchall() == [("pit",)]

            # a tilt: the browser notes when the tile turns red; the journal when it tilted
            browser.execute_script("""
                window.__red = null; const el = document.getElementById('tile-B1');
                new MutationObserver(() => {
                  if (!window.__red && el.classList.contains('tilted')
                      && el.textContent.includes('panel'))
                    window.__red = [Date.now(), getComputedStyle(el).backgroundColor];
                }).observe(el, {attributes: true, childList: true, subtree: true});""")
            assert "tilted" not in browser.find_element(By.ID, "tile-B1").get_attribute("class")
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
            wait_for("the summary's tilted count", lambda: _summary(browser)["tilted"] == "1")
            _choose(browser, "f-state", "tilted")
            wait_for("only the tilted table shown", lambda: not browser.find_element(
                By.ID, "tile-B2").is_displayed() and browser.find_element(
                By.ID, "tile-B1").is_displayed())
            _choose(browser, "f-state", "")

            _disable_and_enable(browser, rig)
        finally:
            browser.quit()


def _disable_and_enable(browser: Any, rig: FloorRig) -> None:
    """Disable B2 from its page: a confirmation with a reason; only the action that
    applies is offered; it finishes the round in play, then closes."""
    from selenium.webdriver.common.by import By

    wait_for("B2 clickable", lambda: browser.find_element(By.ID, "tile-B2").is_displayed())
    browser.find_element(By.ID, "tile-B2").click()
    wait_for("B2's page", lambda: browser.find_elements(By.ID, "disable"))
    assert not browser.find_element(By.ID, "enable").is_displayed()  # open: no enable
    browser.find_element(By.ID, "disable").click()
    dialog = browser.find_element(By.ID, "confirm-disable")
    assert dialog.is_displayed() and "finishes the round in play" in dialog.text
    browser.find_element(By.ID, "cancel-disable").click()  # changed one's mind
    assert not dialog.is_displayed()
    browser.find_element(By.ID, "disable").click()
    browser.find_element(By.ID, "confirm").click()  # no reason: the form refuses
    assert dialog.is_displayed() and not _first(_journal(rig, "B2"), EventCode.FLOOR_COMMAND)
    browser.find_element(By.ID, "reason").send_keys("dealer change, table count")
    browser.find_element(By.ID, "confirm").click()
    closed = wait_for("B2 closed", lambda: _first(_journal(rig, "B2"), EventCode.TABLE_CLOSED))
    wait_for("the closed tile", lambda: "closed" in browser.find_element(
        By.ID, "tile").get_attribute("class"))
    wait_for("enable offered, disable not", lambda: browser.find_element(
        By.ID, "enable").is_displayed() and not browser.find_element(By.ID, "disable")
        .is_displayed())
    recs = _journal(rig, "B2")
    cmd = _first(recs, EventCode.FLOOR_COMMAND)
    assert cmd is not None and cmd < closed
    body = next(b for s, _k, _c, b in recs if s == cmd)
    assert body["action"] == "disable" and body["by"] == STAFF
    assert body["reason"] == "dealer change, table count"
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
    commands = browser.find_element(By.ID, "commands").text
    assert "disable by pit: dealer change, table count" in commands

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
    assert "coin in (wagered)" in browser.find_element(By.TAG_NAME, "main").text
    # feed lines: one time format, live and page-loaded alike
    stamp = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d · ")
    live = wait_for("a live round line", lambda: browser.find_elements(
        By.CSS_SELECTOR, "#rounds li"))[0].text
    browser.refresh()
    loaded = browser.find_elements(By.CSS_SELECTOR, "#rounds li")[0].text
    assert stamp.match(live) and stamp.match(loaded), (live, loaded)
    logged = sqlite3.connect(rig.db_url).execute(
        "SELECT action, by_name FROM floor_commands WHERE table_id = 'B2'"
        " ORDER BY at").fetchall()
    assert logged == [("disable", STAFF), ("enable", STAFF)]


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


def _populate(db_url: str, n: int) -> dict[str, int]:
    """``n`` tables in the floor database, a few of each state; returns the counts."""
    from firmware.floor import wire
    from firmware.floor.db import Database
    from firmware.floor.ledger import FloorLedger, Incoming

    db = Database(db_url)
    ledger = FloorLedger(db)
    now = time.time()
    batch, counts = [], {"tilted": 0, "closed": 0, "offline": 0, "open": 0}
    for i in range(1, n + 1):
        tid = f"P{i:04d}"
        state = ("tilted" if i % 97 == 0 else "closed" if i % 89 == 0
                 else "offline" if i % 83 == 0 else "open")
        counts[state] += 1
        status = {"seq": 10, "phase": "betting", "variant": "blackjack" if i % 3 else
                  "spanish21", "round": i, "closed": state == "closed", "ts": now,
                  "tilt": {"cause": "shoe jam", "code": "SHOE"} if state == "tilted" else None}
        batch += [Incoming(tid, "online", state != "offline", now),
                  Incoming(tid, "status", wire.status(json.dumps(status).encode()), now)]
        for n, more in ((1, 0), (2, i * 100)):  # a journal held from n=1: the day opens at 0
            batch.append(Incoming(tid, "record", wire.record({
                "kind": "meters", "n": n, "seq": 8 + n, "hash": "a" * 64,
                "ts_ns": time.time_ns(), "meters": {"credits_in": 100_000 + more,
                                                    "wagered": 50_000 + more,
                                                    "paid": 40_000 + more // 2}}), now))
    ledger.apply(batch)
    db.close()
    return counts


def test_finding_9_the_shown_count_counts_simulated_tables_while_shown(
        tmp_path: Path) -> None:
    """bc5b817 said "1000 of 0 tables shown" with the load test's tables shown."""
    from selenium.webdriver.common.by import By

    from firmware.floor import wire
    from firmware.floor.db import Database
    from firmware.floor.ledger import FloorLedger, Incoming

    with floor_rig(tmp_path, ["S1"]) as rig:
        db = Database(rig.db_url)
        now = time.time()
        FloorLedger(db).apply([Incoming(f"S{i}", "status", wire.status(json.dumps(
            {"seq": 1, "phase": "betting", "simulated": i > 3, "ts": now}).encode()), now)
            for i in range(1, 8)])
        db.close()
        rig.start_floor()
        browser = _browser(tmp_path / "chromium-profile")
        try:
            _log_in(browser, rig)
            shown = lambda: browser.find_element(By.ID, "shown").text  # noqa: E731
            wait_for("three tables", lambda: shown() == "3 of 3 tables shown")
            browser.find_element(By.ID, "f-sim").click()
            wait_for("seven tables", lambda: shown() == "7 of 7 tables shown (4 simulated)")
        finally:
            browser.quit()


def test_redteam_f9_alarmed_meters_are_left_out_of_the_summarys_drop_in_chromium(
        tmp_path: Path) -> None:
    """An unbalanced $10 trillion of credits in went into the floor's drop; now a table
    whose meters are under an open meters alarm is left out of drop and win (and the
    summary says one table was)."""
    from firmware.floor import wire
    from firmware.floor.db import Database
    from firmware.floor.ledger import FloorLedger, Incoming

    with floor_rig(tmp_path, ["S1"]) as rig:
        db = Database(rig.db_url)
        now, store = time.time(), FloorLedger(db)
        for tid, m in (("S1", {"credits_in": 1000, "credits": 1000, "balanced": True,
                               "seats": [{"seat": 1, "credits_in": 1000, "credits": 1000}]}),
                       ("EVIL2", {"credits_in": 10**15, "credits": 10**15,
                                  "balanced": False})):
            store.apply([Incoming(tid, "status", wire.status(json.dumps(
                {"seq": 1, "phase": "betting", "ts": now}).encode()), now),
                Incoming(tid, "record", wire.record({
                    "kind": "meters", "n": 1, "seq": 1, "hash": "ab" * 32,
                    "ts_ns": time.time_ns(), "meters": m}), now)])
        db.close()
        rig.start_floor()
        browser = _browser(tmp_path / "chromium-profile")
        try:
            _log_in(browser, rig)
            read = lambda: browser.execute_script(  # noqa: E731
                "const u = document.getElementById('sum-unverified');"
                " return u && [document.getElementById('sum-drop').textContent,"
                " u.textContent, document.querySelectorAll('#tiles a.tile').length];")
            wait_for("two tiles and the summary", lambda: (read() or [0, 0, 0])[2] == 2)
            assert read()[:2] == ["$10.00", "1"]
        finally:
            browser.quit()


def test_a_thousand_tiles_stay_usable(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    with floor_rig(tmp_path, ["P0001"]) as rig:
        counts = _populate(rig.db_url, 1000)
        rig.start_broker()
        rig.start_floor()
        browser = _browser(tmp_path / "chromium-profile")
        try:
            t0 = time.monotonic()
            _log_in(browser, rig)
            wait_for("1,000 tiles", lambda: browser.execute_script(
                "return document.querySelectorAll('#tiles a.tile').length") == 1000)
            print(f"1,000 tiles drawn {time.monotonic() - t0:.1f} s after logging in")
            s = _summary(browser)
            assert (s["open"], s["tilted"], s["closed"], s["offline"]) == (
                str(counts["open"]), str(counts["tilted"]), str(counts["closed"]),
                str(counts["offline"]))
            assert s["drop"] == "$" + f"{sum(100_000 + i * 100 for i in range(1, 1001)) / 100:,.2f}"
            # filter, then sort: the page answers with 1,000 tiles on it
            t1 = time.monotonic()
            _choose(browser, "f-state", "tilted")
            wait_for("the tilted tables only", lambda: browser.execute_script(
                "return [...document.querySelectorAll('#tiles a.tile')]"
                ".filter(e => !e.classList.contains('hidden')).length") == counts["tilted"])
            print(f"filter answered in {(time.monotonic() - t1) * 1000:.0f} ms")
            _choose(browser, "f-state", "")
            _choose(browser, "f-sort", "drop")
            wait_for("sorted by drop", lambda: browser.execute_script(
                "return document.querySelector('#tiles a.tile').id") == "tile-P1000")
            # live: one table's updates reach its tile among the thousand
            _statuses_from(rig, "P0001", 30)
            wait_for("P0001's last status", lambda: "round 1030" in browser.execute_script(
                "return document.getElementById('tile-P0001').textContent"))
            tile = browser.find_element(By.ID, "tile-P0001")  # the last one: scrolled to
            browser.execute_script("arguments[0].scrollIntoView()", tile)
            tile.click()
            wait_for("P0001's page", lambda: "table P0001" in browser.title)
            # the broker lost: every page says so, within seconds, and since when
            rig.stop_broker()
            banner = wait_for("the banner", lambda: browser.find_element(
                By.ID, "banner").text)
            assert banner.startswith("broker unreachable since 20"), banner
        finally:
            browser.quit()


def _statuses_from(rig: FloorRig, tid: str, k: int) -> None:
    from firmware.floor.certs import ca_paths, identity
    from firmware.floor.mqtt import make_client

    me = identity(rig.dir, tid)
    c = make_client(tid, ca_paths(rig.dir).cert, me.cert, me.key, clean=True)
    c.connect("127.0.0.1", rig.broker_port, 10)
    c.loop_start()
    try:
        for i in range(1, k + 1):
            body = {"seq": 10 + i, "phase": "dealing", "variant": "blackjack",
                    "round": 1000 + i, "ts": time.time(), "sent": time.time()}
            c.publish(f"etg/table/{tid}/status", json.dumps(body), qos=1).wait_for_publish(30)
    finally:
        c.loop_stop()
        c.disconnect()
