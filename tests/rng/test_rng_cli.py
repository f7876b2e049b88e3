"""`etg rng`: kat, selftest, stream (quiet on a closed pipe), draws and their formats."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from etgcore.cards import deck
from firmware.cli import main
from rng.cavp import shipped_vectors

ETG = [sys.executable, "-m", "firmware"]


def run(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> tuple[int, bytes, str]:
    rc = main(argv)
    out, err = capsysbinary.readouterr()
    return rc, out, err.decode()


def test_kat_runs_every_shipped_vector(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    rc, out, _ = run(["rng", "kat"], capsysbinary)
    lines = out.decode().splitlines()
    assert rc == 0
    assert lines[-1] == "1440 passed, 0 failed"
    skips = [ln for ln in lines if ln.startswith("SKIP")]
    assert len(skips) == 32 and all("Hash_DRBG is not implemented" in ln for ln in skips)


def _wrong_vector(tmp_path: Path) -> Path:
    """The shipped CTR_DRBG vectors with one returned bit of the first case changed."""
    src = next(p for p in shipped_vectors() if p.name == "CTR_DRBG_AES-256_use_df.rsp")
    text = src.read_text()
    i = text.index("ReturnedBits = ") + len("ReturnedBits = ")
    bad = tmp_path / "bad.rsp"
    bad.write_text(text[:i] + ("f" if text[i] != "f" else "e") + text[i + 1:])
    return bad


def test_kat_fails_on_a_wrong_vector(tmp_path: Path,
                                     capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    bad = _wrong_vector(tmp_path)
    rc, out, _ = run(["rng", "kat", "--quiet", "--vectors", str(bad)], capsysbinary)
    assert rc == 1
    assert out.decode().splitlines()[-1] == "239 passed, 1 failed"
    assert "COUNT [0]" in out.decode()


def test_kat_and_selftest_json(tmp_path: Path,
                               capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """--json: one document a lab's script parses, with every group and every check."""
    import json

    rc, out, _ = run(["rng", "kat", "--json"], capsysbinary)
    doc = json.loads(out)
    assert rc == 0 and doc["ok"] is True and (doc["passed"], doc["failed"]) == (1440, 0)
    assert doc["skipped_groups"] == 32 == sum(g["status"] == "skip" for g in doc["groups"])
    bad = _wrong_vector(tmp_path)
    rc, out, _ = run(["rng", "kat", "--json", "--vectors", str(bad)], capsysbinary)
    doc = json.loads(out)
    assert rc == 1 and doc["ok"] is False and doc["failed"] == 1
    assert [g["failed_counts"] for g in doc["groups"] if g["status"] == "fail"] == [[0]]
    rc, out, _ = run(["--set", "rng.entropy=os", "rng", "selftest", "--json"], capsysbinary)
    doc = json.loads(out)
    # 4 power-up checks (KAT, prediction resistance, reseed counter, health tests), the
    # conditioning component's KAT, then the entropy source
    assert rc == 0 and doc["ok"] is True and len(doc["checks"]) == 6
    assert all(c["ok"] for c in doc["checks"]) and "entropy source" in doc["checks"][-1]["name"]


def test_kat_reports_a_missing_file(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    rc, _, err = run(["rng", "kat", "--vectors", "/nonexistent.rsp"], capsysbinary)
    assert rc == 2 and err.count("\n") == 1 and "cannot read" in err


@pytest.mark.parametrize("content,problem", [
    (b"", "no test group"),
    (b"# only a comment\n", "no test group"),
    (b"\xff\xfe", "not a CAVP .rsp file"),
    (b"[HMAC_DRBG]\nCOUNT = 0\nEntropyInput = zz\n", "not a CAVP .rsp file"),
])
def test_kat_bad_vector_files_are_one_line(content: bytes, problem: str, tmp_path: Path,
                                           capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    bad = tmp_path / "bad.rsp"
    bad.write_bytes(content)
    rc, _, err = run(["rng", "kat", "--vectors", str(bad)], capsysbinary)
    assert rc == 2 and err.count("\n") == 1 and problem in err


def test_selftest_passes(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    rc, out, _ = run(["--set", "rng.entropy=os", "rng", "selftest", "--all"], capsysbinary)
    text = out.decode()
    assert rc == 0 and text.rstrip().endswith("self-test passed")
    assert text.count("known-answer tests: 480 passed, 0 failed") == 3


def test_stream_exits_quietly_when_the_reader_closes_the_pipe() -> None:
    """`etg rng stream | head -c 100`: 100 bytes, exit 0, nothing on stderr."""
    proc = subprocess.run(
        " ".join(ETG) + " rng stream | head -c 100; echo rc=${PIPESTATUS[0]} >&2",
        shell=True, capture_output=True, executable="/bin/bash", timeout=60,
    )
    assert len(proc.stdout) == 100
    assert proc.stderr.decode().strip() == "rc=0"


def test_stream_bytes_and_seed(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    rc, a, _ = run(["rng", "stream", "--bytes", "100000", "--seed-hex", "c0ffee"], capsysbinary)
    _, b, _ = run(["rng", "stream", "--bytes", "100000", "--seed-hex", "c0ffee"], capsysbinary)
    _, c, _ = run(["rng", "stream", "--bytes", "1000"], capsysbinary)
    assert rc == 0 and len(a) == 100000 and a == b and len(c) == 1000


def test_stream_is_the_drbgs_generate_requests_in_order(
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """The stream's writes (several requests each, generated into one reused buffer)
    carry exactly the bits of consecutive 2^19-bit generate requests, then the rest."""
    from rng.settings import RngSettings
    from rng.table_rng import open_table_rng

    n = 3 * (1 << 18) + 12345  # three whole writes, then a partial one
    rc, out, _ = run(["rng", "stream", "--bytes", str(n), "--seed-hex", "c0ffee"],
                     capsysbinary)
    with open_table_rng(RngSettings(seed_hex="c0ffee", cycle_hz=0.0), bench=True) as rng:
        assert rc == 0 and out == rng.random_bytes(n)


def test_stream_through_its_writer_process_is_the_same_bits(tmp_path: Path) -> None:
    """Over a real pipe and into --out FILE (the second process writes the slots): the
    same bytes as consecutive generate requests, in order, and nothing left running."""
    from rng.settings import RngSettings
    from rng.stream import SLOTS
    from rng.table_rng import open_table_rng

    n = (SLOTS + 2) * (1 << 20) + 12345  # the ring goes round more than once
    args = [*ETG, "rng", "stream", "--bytes", str(n), "--seed-hex", "c0ffee"]
    piped = subprocess.run(args, capture_output=True, timeout=60)
    filed = subprocess.run([*args, "--out", str(tmp_path / "s.bin")], capture_output=True,
                           timeout=60)
    with open_table_rng(RngSettings(seed_hex="c0ffee", cycle_hz=0.0), bench=True) as rng:
        want = rng.random_bytes(n)
    assert piped.returncode == 0 and piped.stderr == b"" and piped.stdout == want
    assert filed.returncode == 0 and (tmp_path / "s.bin").read_bytes() == want


@pytest.mark.parametrize("cmd", [["stream", "--bytes", "8"], ["draws", "--what", "card",
                                                                "--n", "3"]])
def test_seed_hex_is_refused_in_production(cmd: list[str],
                                           capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """Principle 7: bench powers stay on the bench."""
    prod = ["--set", "table.mode=production", "--set", "shoe.port=/dev/etg-shoe",
            "--set", "panel.backend=gpio"]
    rc, out, err = run([*prod, "rng", *cmd, "--seed", "00"], capsysbinary)
    assert rc == 2 and out == b""
    assert err.count("\n") == 1 and "--seed is a bench power" in err


def test_draws_formats(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    seed = ["--seed-hex", "01"]
    rc, out, _ = run(["rng", "draws", "--what", "target", "--n", "1000",
                      "--weights", "12:1,13:2,21:3", *seed], capsysbinary)
    values = out.decode().split()
    assert rc == 0 and len(values) == 1000 and set(values) <= {"12", "13", "21"}
    rc, out, _ = run(["rng", "draws", "--what", "card", "--n", "500", *seed], capsysbinary)
    cards = out.decode().split("\n")[:-1]
    assert rc == 0 and len(cards) == 500 and set(cards) <= set(deck())
    rc, out, _ = run(["rng", "draws", "--what", "shuffle", "--n", "3", "--decks", "2",
                      "--spanish", *seed], capsysbinary)
    shoes = [line.split(",") for line in out.decode().splitlines()]
    assert len(shoes) == 3 and all(sorted(s) == sorted(deck(spanish=True) * 2) for s in shoes)
    rc, out, _ = run(["rng", "draws", "--what", "card", "--n", "500", "--format", "bin",
                      *seed], capsysbinary)
    assert [deck()[b] for b in out] == cards  # bin = card index, same draws as csv
    rc, out, _ = run(["rng", "draws", "--what", "multiplier", "--n", "10", "--format", "bin",
                      "--weights", "2:1,100:1", *seed], capsysbinary)
    assert len(out) == 10 and set(out) <= {2, 100}


def test_draws_to_a_file(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    target = tmp_path / "shoes.csv"
    rc, out, err = run(["rng", "draws", "--what", "shuffle", "--n", "2", "-o", str(target)],
                       capsysbinary)
    assert rc == 0 and len(target.read_text().splitlines()) == 2
    assert out.decode() == f"wrote {target} (2 shoes, csv)\n" and err == ""  # as ui snapshot


def test_every_out_says_the_folders_it_creates(
        tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """One behaviour for every --out (README, "Files a command writes"): missing folders
    are created and said, once, on stderr; stdout says what was written."""
    target = tmp_path / "new" / "deeper" / "t.csv"
    rc, out, err = run(["rng", "draws", "--what", "target", "--n", "5", "--seed", "01",
                        "--out", str(target)], capsysbinary)
    assert rc == 0 and len(target.read_text().split()) == 5
    assert err == f"etg: --out: created the folder {target.parent}\n"
    assert out.decode() == f"wrote {target} (5 targets, csv)\n"
    rc, out, err = run(["rng", "stream", "--bytes", "16", "--seed", "01",
                        "--out", str(tmp_path / "s" / "x.bin")], capsysbinary)
    assert rc == 0 and (tmp_path / "s" / "x.bin").stat().st_size == 16
    assert err == f"etg: --out: created the folder {tmp_path / 's'}\n"
    assert out.decode() == f"wrote {tmp_path / 's' / 'x.bin'} (16 bytes)\n"
    rc, _, err = run(["rng", "draws", "--what", "target", "--n", "5", "--seed", "01",
                      "--out", str(target)], capsysbinary)
    assert rc == 0 and err == ""  # the folder is there now: nothing to say
    (tmp_path / "file").write_text("x")
    rc, out, err = run(["rng", "draws", "--what", "target", "--n", "5",
                        "--out", str(tmp_path / "file" / "t.csv")], capsysbinary)
    assert rc == 2 and out == b"" and err.count("\n") == 1 and "not a directory" in err


@pytest.mark.parametrize("argv,problem", [
    (["--what", "target", "--draws", "3", "--weights", "12:x"], "not VALUE:WEIGHT"),
    (["--what", "target", "--draws", "3", "--weights", "12:0"], "above 0"),
    (["--what", "card", "--draws", "3", "--weights", "12:1"], "target or multiplier only"),
    (["--what", "shuffle", "--draws", "3", "--decks", "0"], "--decks"),
    (["--what", "shuffle", "--draws", "3", "--decks", "9"], "1 to 8 decks"),
    (["--what", "target", "--draws", "3", "--weights", "99:1"], "99 is not a Bingo target"),
    (["--what", "multiplier", "--draws", "3", "--weights", "3:1"], "not a Bingo multiplier"),
    (["--what", "card", "--draws", "3", "--seed", "xyz"], "hexadecimal digits"),
    (["--what", "card", "--draws", "3", "--seed-hex", "xyz"], "hexadecimal digits"),
    (["--what", "card", "--draws", "x"], "not a whole number"),
    (["--what", "card"], "--draws N is required"),
    (["--what", "target", "--draws", "3", "--weights", f"{1 << 64}:1"], "64-bit"),
    (["--what", "target", "--draws", "3", "--weights", f"1:{1 << 62},2:{1 << 62}"],
     "below 2^63"),
])
def test_draws_bad_input_is_one_line(argv: list[str], problem: str,
                                     capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    try:
        rc = main(["rng", "draws", *argv])
    except SystemExit as exc:  # refused by the parser itself (the value's type)
        rc = int(exc.code or 0)
    err = capsysbinary.readouterr().err.decode()
    assert rc == 2 and problem in err and err.count("\n") == 1


def test_draw_weights_default_to_the_bingo_rules(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsysbinary: pytest.CaptureFixture[bytes],
                                                 ) -> None:
    import firmware.cli.command_line

    rules = tmp_path / "bingo.toml"
    rules.write_text('[settings]\ntarget_weights = { default = { "12" = 0, "20" = 5 }, '
                     'type = "weights", allowed = [12, 20] }\n')
    # the command line tells the command where Bingo's Rules Submission is
    monkeypatch.setattr(firmware.cli.command_line, "_rules_file",
                        lambda variant: tmp_path / f"{variant}.toml")
    rc, out, _ = run(["rng", "draws", "--what", "target", "--n", "20"], capsysbinary)
    assert rc == 0 and set(out.decode().split()) == {"20"}
    rc, _, err = run(["rng", "draws", "--what", "multiplier", "--n", "2"], capsysbinary)
    assert rc == 2 and "has no multiplier_weights" in err
    monkeypatch.setattr(firmware.cli.command_line, "_rules_file",
                        lambda variant: tmp_path / "missing.toml")
    rc, _, err = run(["rng", "draws", "--what", "target", "--n", "2"], capsysbinary)
    assert rc == 2 and "--weights" in err
