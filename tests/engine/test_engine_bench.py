"""`etg bench run --mode engine` (docs/scenario-format.md): lines, exit codes,
JUnit, and every malformed file reported as a FAIL with its reason, never a traceback."""

from __future__ import annotations

import contextlib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.bench.runner import run_one
from firmware.bench.target import EngineTarget
from firmware.cli import main

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "tests" / "scenarios" / "blackjack"

GOOD = '''
name = "stand on 19"
variant = "blackjack"
[[round]]
shoe = ["TS", "8H", "9D", "KC"]
  [[round.seat]]
  seat = 1
  wager = 1000
  [[round.action]]
  seat = 1
  do = "stand"
  [[round.expect]]
  seat = 1
  net = NET
  result = "win"
  [round.dealer]
  total = 18
'''


def write(tmp_path: Path, text: str, name: str = "s.toml") -> str:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_every_blackjack_scenario_passes_in_engine_mode(capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(SCENARIOS.glob("*.toml"))
    assert len(files) >= 15
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert any(k in text for k in ("§", "ICD", "issue 3", "scenario format")), f
    rc = main(["bench", "run", "--mode", "engine", str(SCENARIOS)])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0, "\n".join(line for line in out if line.startswith("FAIL"))
    assert out[-1] == f"{len(files)} passed, 0 failed"
    assert all(line.startswith("PASS ") for line in out[:-1])


def test_pass_and_fail_lines_exit_code_and_junit(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    ok = write(tmp_path, GOOD.replace("NET", "1000"), "a.toml")
    bad = write(tmp_path, GOOD.replace("NET", "999"), "b.toml")
    junit = tmp_path / "out" / "report.xml"
    rc = main(["bench", "run", ok, bad, "--junit", str(junit)])
    out = capsys.readouterr().out.splitlines()
    assert rc == 1
    assert out[0] == f"PASS {ok}: stand on 19"
    assert out[1] == f"FAIL {bad}: stand on 19: round 1: seat 1 net 1000, expected 999"
    assert out[2] == "1 passed, 1 failed"
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    fail = suite.findall("testcase")[1].find("failure")
    assert fail is not None and "expected 999" in str(fail.get("message"))


def test_a_mode_without_its_driver_is_one_clear_user_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A depth whose driver is not installed (hil before issue 10) is a UserError line."""
    from etgcore.errors import UserError
    from firmware.bench import runner

    monkeypatch.setitem(runner.PENDING, "warp", "--mode warp needs the warp drive")
    with pytest.raises(UserError, match="needs the warp drive"):
        runner.driver_for("warp")
    with pytest.raises(UserError, match="unknown mode 'nope'"):
        runner.driver_for("nope")


def test_missing_path_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "run", str(tmp_path / "nope.toml")]) == 2
    assert "no such scenario" in capsys.readouterr().err
    assert main(["bench", "run", str(tmp_path)]) == 2
    assert "no scenario files" in capsys.readouterr().err


BASE = GOOD.replace("NET", "1000")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("name = 'x'\nvariant = \n", "not valid TOML"),
        (BASE.replace('name = "stand on 19"\n', ""), "missing key 'name'"),
        (BASE.replace('variant = "blackjack"', 'variant = "poker"'), "variant: 'poker'"),
        (BASE + "colour = 1\n", "unknown key 'colour'"),
        (BASE.replace('"KC"]', '"KX"]'), "round 1: shoe[3]: 'KX' is not a card"),
        (BASE.replace('do = "stand"', 'do = "fly"'), "round 1: action[0].do: 'fly'"),
        (BASE.replace("  seat = 1\n  wager = 1000", "  seat = 9\n  wager = 1000"),
         "round 1: seat[0].seat: must be in 1..7"),
        (BASE.replace('total = 18', 'total = "high"'), "round 1: dealer.total"),
        (BASE + '[[round.fault]]\nafter = 1\nshoe = "ERR,FIRE"\n', "fault[0].shoe: ERR needs"),
        (BASE + '[[round.console]]\nafter = 1\npress = "EJECT"\n', "console[0].press"),
        (BASE + '[round.outcome]\nstate = "exploded"\n', "outcome.state"),
        (BASE.replace('do = "stand"', 'do = "stand"\n  times = 2'), "only a double takes"),
        (BASE.replace('do = "stand"', 'do = "stand"\n  hand = 0'),
         "action[0].hand: hands are numbered from 1 like seats"),
        (BASE.replace('do = "stand"', 'do = "double"\n  times = 0'),
         "action[0].times: must be 1 or more, got 0"),
        ('name = "n"\nvariant = "blackjack"\nround = []\n', "at least one [[round]]"),
        ('name = "n"\nvariant = "blackjack"\n[rules]\ndecks = 99\n' + BASE.split('"blackjack"')[1],
         "rules.decks: must be an integer from 1 to 8"),
        ('name = "n"\nvariant = "blackjack"\n[rules]\nfoo = 1\n' + BASE.split('"blackjack"')[1],
         "rules.foo: unknown setting"),
    ],
)
def test_malformed_file_is_a_fail_with_the_reason(tmp_path: Path, text: str, reason: str) -> None:
    r = run_one(write(tmp_path, text), EngineTarget)
    assert not r.passed
    assert reason in r.problems[0], r.problems


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda t: t.replace('"9D", "KC"]', '"9D"]'),
         "round 1: too few cards in shoe: the table waits for a card to hole"),
        (lambda t: t.replace('do = "stand"', 'do = "hit"'),
         "round 1: too few cards in shoe: the table waits for a card to seat 1 hand 1"),
        (lambda t: t.replace('  seat = 1\n  do = "stand"', '  seat = 2\n  do = "stand"'),
         "round 1: next action is seat 2 hand 1 stand, the table waits for seat 1 hand 1"),
        (lambda t: t.replace('do = "stand"', 'do = "split"'),
         "round 1: rejected: seat 1 hand 1 split: split is not legal now"),
        (lambda t: t.replace('do = "stand"', 'do = "stand"\n  rejected = true'),
         "accepted: seat 1 hand 1 stand (the scenario expects it refused)"),
        (lambda t: t + '  [[round.action]]\n  seat = 1\n  do = "hit"\n',
         "round 1: action seat 1 hand 1 hit was never asked for"),
        (lambda t: t.replace("[[round.action]]\n  seat = 1\n  do = \"stand\"\n", ""),
         "no action left, the table waits for seat 1 hand 1"),
        (lambda t: t.replace("wager = 1000", "wager = 1000\n  credits = 10"),
         "round 1: seat 1 wager 1000 refused: seat 1 has 10 cents"),
        (lambda t: t.replace('[[round]]\n', '[[round]]\ndraws = { bingo_target = 12 }\n'),
         "`draws` given but the table never asked for a draw"),
        (lambda t: t + '  [[round.fault]]\n  after = 9\n  shoe = "ERR,JAM"\n',
         "shoe 'ERR,JAM' after card 9 never happened"),
        (lambda t: t + '  [[round.console]]\n  after = 2\n  press = "DEAL"\n',
         "rejected: console DEAL after card 2"),
        (lambda t: t + '  [round.outcome]\n  state = "voided"\n',
         "outcome state settled, expected voided"),
        (lambda t: t.replace('result = "win"', 'result = "push"'),
         "seat 1 result win, expected push"),
        (lambda t: t.replace("total = 18", "total = 19"), "dealer 18, expected 19"),
        (lambda t: t + "  [[round.expect]]\n  seat = 4\n  net = 0\n", "seat 4 did not play"),
    ],
)
def test_table_disagreement_is_a_fail_with_the_reason(
    tmp_path: Path, change: object, reason: str
) -> None:
    r = run_one(write(tmp_path, change(BASE)), EngineTarget)  # type: ignore[operator]
    assert not r.passed
    assert reason in "; ".join(r.problems), r.problems


def test_round_waiting_for_new_shoe_fails_clearly(tmp_path: Path) -> None:
    text = (SCENARIOS / "16-cut-card-new-shoe-burn.toml").read_text(encoding="utf-8")
    text = text.replace('  [[round.console]]\n  after = 0\n  press = "SHUFFLE"\n', "")
    r = run_one(write(tmp_path, text), EngineTarget)
    assert "round 2: seat 1 wager 1000 refused: wager: the table waits for a new shoe" in (
        r.problems[0])


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (BASE.replace('"TS", "8H"', '"ts", "8H"'), "round 1: shoe[0]: 'ts' is not a card"),
        (BASE.replace('"8H"', '" 8H"'), "round 1: shoe[1]: ' 8H' is not a card"),
        (BASE.replace("  net = 1000\n", ""), "round 1: expect[0]: missing key 'net'"),
        (BASE.replace("[[round]]\n", "[[round]]\ndraws = { bingo_targt = 21 }\n"),
         "round 1: draws: unknown key 'bingo_targt' (allowed: bingo_target, bingo_multiplier)"),
        (BASE.replace("wager = 1000", "wager = 1000\n  push22 = -5"),
         "round 1: seat[0].push22: must be 0 or more"),
        (BASE.replace("wager = 1000", "wager = 1000\n  push22 = 500"),
         "round 1: seat 1 push22 500 refused: Blackjack offers no optional wager 'push22'"),
        (BASE.replace('variant = "blackjack"', 'variant = "free-bet"').replace(
            "  seat = 1\n  wager = 1000", "  seat = 7\n  wager = 1000"),
         "round 1: no seat 7 at this table (seats 1..6)"),
    ],
)
def test_scenario_format_keys_checked_exactly(tmp_path: Path, text: str, reason: str) -> None:
    """scenario format: card codes exactly as written there, `net` required, `draws` keys,
    the `push22` seat key (our extension), a seat the variant's table does not have."""
    r = run_one(write(tmp_path, text), EngineTarget)
    assert not r.passed
    assert reason in "; ".join(r.problems), r.problems


def test_push22_seat_key_places_the_optional_wager(tmp_path: Path) -> None:
    """§ 672a.2(b)(4), baseline §4 through the scenario extension `push22` (docs/bench.md)."""
    text = (REPO / "tests/scenarios/free-bet/16-push22-wager.toml").read_text(encoding="utf-8")
    assert run_one(write(tmp_path, text), EngineTarget).passed
    wrong = text.replace("net = 5500", "net = 0", 1)
    r = run_one(write(tmp_path, wrong, "w.toml"), EngineTarget)
    assert r.problems == ("round 1: seat 1 net 5500, expected 0",)


def test_control_characters_keep_one_line_and_valid_junit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """scenario format: one line per file, and `--junit` stays well-formed XML."""
    text = BASE.replace('name = "stand on 19"', 'name = "two\\nlines \\u0001 & <x>"')
    ok = write(tmp_path, text, "a.toml")
    bad = write(tmp_path, text.replace("net = 1000", "net = 1"), "b.toml")
    (tmp_path / "dir.toml").mkdir()  # a directory named like a scenario is not one
    junit = tmp_path / "r.xml"
    assert main(["bench", "run", str(tmp_path), "--junit", str(junit)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [f"PASS {ok}: two lines   & <x>",
                   f"FAIL {bad}: two lines   & <x>: round 1: seat 1 net 1000, expected 1",
                   "1 passed, 1 failed"]
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    names = [c.get("name") for c in suite.iter("testcase")]
    assert names == ["two lines   & <x>", "two lines   & <x>"]


_ODD_VALUES = [None, 0, -1, 1, 7, 99, 10**12, 1.5, True, "", "x", "AS", "ts", [], ["AS"], {},
               {"a": 1}, "ERR,MISREAD", "HEL,1,X,1,SN1", "CUT", "LINK-DOWN", "CRD,XX", "VOID",
               "DEAL", "SHUFFLE", "double", "rescue", "blackjack", "bust", "tilted", 26]


def _paths(d: object, pre: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    items = d.items() if isinstance(d, dict) else enumerate(d) if isinstance(d, list) else []
    for k, v in items:
        out.append((*pre, k))
        out.extend(_paths(v, (*pre, k)))
    return out


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_any_mangled_scenario_is_a_fail_or_pass_never_a_traceback(data: st.DataObject) -> None:
    """scenario format: "a file that does not follow this format is reported as FAIL with the
    reason (which key, which round), never a traceback" — real files, keys and values
    mangled at random, played through the engine driver."""
    import copy
    import tomllib

    from etgcore.errors import UserError
    from firmware.bench.playback import play_scenario
    from firmware.bench.scenario import parse_scenario

    files = sorted((REPO / "tests" / "scenarios").rglob("*.toml"))
    f = data.draw(st.sampled_from(files))
    doc = copy.deepcopy(tomllib.loads(f.read_text(encoding="utf-8")))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = _paths(doc)
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent: object = doc
        for k in path[:-1]:
            parent = parent[k]  # type: ignore[index]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            odd = copy.deepcopy(data.draw(st.sampled_from(_ODD_VALUES)))
            parent[path[-1]] = odd  # type: ignore[index]
    with contextlib.suppress(UserError):  # a UserError is reported as a FAIL by run_one
        play_scenario(parse_scenario(doc, str(f)), EngineTarget())


def test_hands_count_from_1_and_times_is_any_positive_integer(tmp_path: Path) -> None:
    """scenario format (`hand`, `times`): hand 1 is the seat's first hand (the default);
    a hand the table does not wait for is a FAIL naming both hands; a 5x double is a
    well-formed action that the rules refuse (a 1x-only game here)."""
    stand1 = BASE.replace('do = "stand"', 'do = "stand"\n  hand = 1')
    assert run_one(write(tmp_path, stand1), EngineTarget).passed
    stand2 = BASE.replace('do = "stand"', 'do = "stand"\n  hand = 2')
    r = run_one(write(tmp_path, stand2), EngineTarget)
    assert r.problems == ("round 1: next action is seat 1 hand 2 stand, the table waits for "
                          "seat 1 hand 1",)
    five = BASE.replace('do = "stand"', 'do = "double"\n  times = 5\n  rejected = true\n'
                        '  [[round.action]]\n  seat = 1\n  do = "stand"')
    assert run_one(write(tmp_path, five), EngineTarget).passed
    unasked = BASE.replace('do = "stand"', 'do = "double"\n  times = 5')
    r = run_one(write(tmp_path, unasked), EngineTarget)
    assert r.problems[0].startswith("round 1: rejected: seat 1 hand 1 double 5x: double 5x is "
                                    "not allowed"), r.problems


def test_finding_5_a_tilt_where_settled_was_expected_says_why(tmp_path: Path) -> None:
    """baseline §5: a ten-spot in a Spanish 21 scenario fails with the table's own reason
    (a ten read from a 48-card shoe), not only "outcome state tilted, expected settled"."""
    text = (SCENARIOS.parent / "spanish21" / "01-ten-spot-tilts.toml").read_text(
        encoding="utf-8").replace('state = "tilted"', 'state = "settled"')
    r = run_one(write(tmp_path, text), EngineTarget)
    assert not r.passed
    why = "; ".join(r.problems)
    assert "outcome state tilted, expected settled (card TH cannot be in a spanish shoe" in why
    assert "48 cards: Spanish 21 removes the ten-spot cards" in why
