"""`etg cert run` and `etg cert analyze` end to end: files, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from cert_fakes import MULTIPLIERS, TARGETS, good, modulo_biased_cards, repeated_seed

from firmware.cli import main
from rng.cert.tables import CARDS

TW = "12:30,13:25,14:20,15:15,16:10,17:8,18:6,19:4,20:3,21:2"
MW = "2:500,5:300,10:150,25:40,50:8,100:2"


def _write(path: Path, tokens: list[str], header: str = "", eol: str = "\n") -> Path:
    path.write_text(header + eol.join(tokens) + eol, encoding="ascii")
    return path


def _values(table, idx: np.ndarray) -> list[str]:
    return [table.labels[i] for i in idx.tolist()]


def test_analyze_good_targets_passes(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    f = _write(tmp_path / "t.csv", _values(TARGETS, good(TARGETS, 20_000, 1)), "# targets\n")
    out = tmp_path / "rep"
    assert main(["cert", "analyze", str(f), "--what", "target", "--weights", TW,
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "PASS:" in text and "gap test (value 21)" in text
    for name in ("report.md", "report.html", "results.json", "pvalues.png",
                 "target-counts.png", "target-serial.png"):
        assert (out / name).is_file(), name
    data = json.loads((out / "results.json").read_text())
    assert data["verdict"] == "pass" and len(data["tests"]) > 20


def test_analyze_biased_cards_fails_with_exit_1(tmp_path: Path,
                                                capsys: pytest.CaptureFixture) -> None:
    f = _write(tmp_path / "c.csv", [CARDS[i] for i in modulo_biased_cards(30_000, 2)],
               eol="\r\n")
    assert main(["cert", "analyze", str(f), "--what", "card"]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_analyze_json_is_the_results_document(tmp_path: Path,
                                              capsys: pytest.CaptureFixture) -> None:
    f = _write(tmp_path / "t.csv", _values(TARGETS, good(TARGETS, 20_000, 1)))
    assert main(["cert", "analyze", str(f), "--what", "target", "--weights", TW,
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)  # strict JSON: a test that does not apply
    assert doc["verdict"] == "pass" and len(doc["tests"]) > 20  # has a null statistic
    assert {"p_value", "verdict", "test"} <= set(doc["tests"][0])
    c = _write(tmp_path / "c.csv", [CARDS[i] for i in modulo_biased_cards(30_000, 2)])
    assert main(["cert", "analyze", str(c), "--what", "card", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "fail"


def test_analyze_pairs_and_repeats(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    t = _write(tmp_path / "t.csv", _values(TARGETS, repeated_seed(TARGETS, 8_000, 3, 2_000)))
    m = _write(tmp_path / "m.csv", [v + "x" for v in _values(MULTIPLIERS,
                                                             good(MULTIPLIERS, 8_000, 4))])
    code = main(["cert", "analyze", str(t), "--what", "target", "--weights", TW,
                 "--pair", str(m), "--pair-weights", MW])
    out = capsys.readouterr().out
    assert code == 1
    assert "target x multiplier independence" in out
    assert "FAIL" in out and "repeated subsequences" in out


@pytest.mark.parametrize(("content", "what", "message"), [
    ("17\n18\nbanana\n", "target", "line 3: 'banana' is not a target"),
    ("17\n\n18\n", "target", "line 2: empty line"),
    ("# header\n2\n7\n", "multiplier", "line 3: '7' is not a multiplier"),
    ("TD\nXX\n", "card", "line 2: 'XX' is not a card"),
])
def test_bad_outcome_files_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture,
                                        content: str, what: str, message: str) -> None:
    f = tmp_path / "bad.csv"
    f.write_text(content)
    extra = ["--weights", TW if what == "target" else MW] if what != "card" else []
    assert main(["cert", "analyze", str(f), "--what", what, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


def _shoe_lines(rows: np.ndarray) -> list[str]:
    return [",".join(CARDS[i] for i in row) for row in rows.tolist()]


def test_analyze_shuffles(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    rng = np.random.default_rng(5)
    rows = np.array([rng.permutation(np.tile(np.arange(52), 2)) for _ in range(300)])
    f = _write(tmp_path / "s.csv", _shoe_lines(rows))
    assert main(["cert", "analyze", str(f), "--what", "shuffle", "--out",
                 str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "shuffle-positions.png").is_file()
    assert "adjacent-pair frequencies" in capsys.readouterr().out


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda s: s.replace("AS", "ZZ", 1), "card 1 is not a card code"),
    (lambda s: s.rsplit(",", 1)[0], "cards where line 1 of the shoes has"),
    (lambda s: s.replace("AS", "KC", 1), "the shoe's cards differ from line 1"),
])
def test_bad_shoe_lines(tmp_path: Path, capsys: pytest.CaptureFixture, mutate, message) -> None:
    rows = np.tile(np.arange(52), (3, 1))
    lines = _shoe_lines(rows)
    lines[2] = mutate(lines[2])
    f = _write(tmp_path / "s.csv", lines)
    assert main(["cert", "analyze", str(f), "--what", "shuffle"]) == 2
    err = capsys.readouterr().err
    assert "line 3:" in err and message in err


def test_analyze_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    f = _write(tmp_path / "t.csv", ["17"] * 10)
    assert main(["cert", "analyze", str(tmp_path / "nope.csv"), "--what", "card"]) == 2
    assert main(["cert", "analyze", str(f), "--what", "target", "--weights", "12:x"]) == 2
    assert main(["cert", "analyze", str(f), "--what", "target", "--weights", "1,2"]) == 2
    m = _write(tmp_path / "m.csv", ["2"] * 9)
    assert main(["cert", "analyze", str(f), "--what", "target", "--weights", TW,
                 "--pair", str(m), "--pair-weights", MW]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "fewer lines than" in err


def _fake_dieharder(bin_dir: Path) -> None:
    script = bin_dir / "dieharder"
    script.write_text(
        "#!/bin/sh\n"
        "head -c 4096 > /dev/null\n"
        "echo '   test_name   |ntup| tsamples |psamples|  p-value |Assessment'\n"
        "echo '   diehard_birthdays|   0|       100|     100|0.51234567|  PASSED'\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def test_run_reproducible_bench_run(tmp_path: Path, capsys: pytest.CaptureFixture,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_dieharder(bin_dir)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    args = ["--set", "table.mode=bench", "cert", "run", "--draws", "3000", "--shoes", "260",
            "--decks", "1", "--stream-bytes", "125000", "--seed-hex", "00ff00ff00ff",
            "--target-weights", TW, "--multiplier-weights", MW, "--dieharder", "0",
            "--no-progress"]
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        assert main([*args, "--out", str(out)]) in (0, 1)
        outs.append(out)
    a, b = (json.loads((o / "results.json").read_text()) for o in outs)
    assert [t["p_value"] for t in a["tests"]] == [t["p_value"] for t in b["tests"]]
    assert a["metadata"]["seed"] == "00ff00ff00ff"
    assert (outs[0] / "draws" / "targets.csv").read_bytes() == (
        outs[1] / "draws" / "targets.csv").read_bytes()
    md = (outs[0] / "report.md").read_text()
    for needle in ("Holm", "program hash", "configuration hash", "ctr-drbg",
                   "known-answer tests", "diehard_birthdays", "SP 800-22 serial",
                   "card-by-position matrix", "target x multiplier independence",
                   "stream.bin", "draws/shuffles.csv"):
        assert needle in md, needle
    assert (outs[0] / "stream.bin").stat().st_size == 125000
    # all fifteen SP 800-22 tests on the stream's one 10^6-bit sequence, and the lab gets
    # the same P-values from stream.bin with etg cert bits
    assert "all 15 NIST SP 800-22 tests, sequences of 10^6 bits (1 sequence)" in md
    assert "SP 800-22 NonOverlappingTemplate (template 111111110)" in md
    inside = json.loads((outs[0] / "sp800-22" / "results.json").read_text())
    capsys.readouterr()
    assert main(["cert", "bits", str(outs[0] / "stream.bin"), "--json"]) in (0, 1)
    again = json.loads(capsys.readouterr().out)
    assert [c["p_values"] for c in again["columns"]] == [c["p_values"] for c in inside["columns"]]
    assert len((outs[0] / "draws" / "cards.csv").read_text().split()) == 3000
    assert len((outs[0] / "draws" / "shuffles.csv").read_text().splitlines()) == 260
    # the lab re-analyses exactly what was tested
    capsys.readouterr()
    assert main(["cert", "analyze", str(outs[0] / "draws" / "shuffles.csv"),
                 "--what", "shuffle"]) in (0, 1)


def test_seed_is_refused_in_production(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Guide principle 7: bench powers stay on the bench."""
    code = main(["--set", "table.mode=production", "--set", "shoe.port=/dev/etg-shoe",
                 "--set", "panel.backend=gpio", "cert", "run", "--draws", "1000",
                 "--out", str(tmp_path / "x"), "--seed-hex", "00", "--target-weights", TW,
                 "--multiplier-weights", MW])
    assert code == 2
    err = capsys.readouterr().err
    assert "production mode" in err and "seed" in err
    assert not (tmp_path / "x").exists()


def test_batch_scaling_and_spanish_shoes(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "b"
    code = main(["--set", "table.mode=bench", "cert", "run", "--draws", "2000", "--shoes",
                 "40", "--decks", "2", "--spanish", "--stream-bytes", "4096", "--seed-hex",
                 "ab", "--scaling", "batch", "--target-weights", TW, "--multiplier-weights",
                 MW, "--dieharder", "none", "--out", str(out)])
    assert code in (0, 1)
    first = (out / "draws" / "shuffles.csv").read_text().splitlines()[0].split(",")
    assert len(first) == 96 and not any(c.startswith("T") for c in first)
    assert "rng.batch" in (out / "report.md").read_text()
    capsys.readouterr()
    assert main(["cert", "analyze", str(out / "draws" / "cards.csv"), "--what", "card",
                 "--spanish"]) in (0, 1)


def test_failed_self_test_stops_the_run(tmp_path: Path, capsys: pytest.CaptureFixture,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A power-up self-test failure makes the RNG unavailable: no draws, exit 1."""
    import rng.selftest
    from rng.selftest import Check

    monkeypatch.setattr(rng.selftest, "power_up_selftest",
                        lambda mech: [Check(f"{mech} known-answer tests", False, "1 failed")])
    out = tmp_path / "f"
    assert main(["cert", "run", "--draws", "1000", "--out", str(out), "--target-weights", TW,
                 "--multiplier-weights", MW]) == 1
    assert "FAIL  ctr-drbg known-answer tests" in capsys.readouterr().out
    assert "self-test failed" in (out / "report.md").read_text()
    assert not (out / "draws").exists()
