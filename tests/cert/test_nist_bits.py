"""`etg cert bits` end to end: NIST's sample files through the command, the second-level
table equal to NIST's assess, bad input, standard input, resume, the cluster."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from nist_assess_table import ASSESS_PASS_RATES, ASSESS_TABLE
from nist_reference import REFERENCE

from firmware.cli import main
from rng.cert.nist import bits_run
from rng.cert.nist.bits_report import pass_rates
from rng.cert.nist.bits_run import BitsOptions, run_bits
from rng.cert.nist.suite import SuiteParams
from rng.ctr_drbg import CtrDrbg
from rng.entropy import SeededSource

DATA = Path(__file__).parent / "data"
MILLION = 1_000_000
QUICK = ["--skip", "non-overlapping-template,linear-complexity,dft,universal,"
         "random-excursions,random-excursions-variant,serial,approximate-entropy,rank,"
         "overlapping-template"]


def ascii_sample(tmp_path: Path, name: str) -> Path:
    """The sample as NIST ships it: 0/1 characters in indented lines."""
    bits = np.unpackbits(np.fromfile(DATA / f"nist-{name}.bin", dtype=np.uint8))
    text = (bits + ord("0")).astype(np.uint8).tobytes().decode("ascii")
    path = tmp_path / f"data.{name}"
    path.write_text("".join(f"   {text[i:i + 50]}\n" for i in range(0, len(text), 50)))
    return path


def test_the_command_prints_the_references_p_values(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    f = ascii_sample(tmp_path, "pi")
    assert main(["cert", "bits", str(f), "--format", "ascii", "--length", "10^6",
                 "--streams", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    got = [p for col in doc["columns"] for p in col["p_values"]]
    assert [f"{p:.6f}" for p in got] == list(REFERENCE["pi"])
    assert doc["verdict"] == "PASS" and doc["sequences"] == 1
    capsys.readouterr()
    assert main(["cert", "bits", str(f), "--json"]) == 0  # the format told by the file
    again = json.loads(capsys.readouterr().out)
    assert again["source"]["format"] == "ascii" and again["columns"] == doc["columns"]
    non = [c for c in doc["columns"] if c["test"] == "NonOverlappingTemplate"]
    assert len(non) == 148 and non[0]["parameters"]["template"] == "000000001"
    assert non[0]["parameters"]["M"] == 125_000


def test_binary_sample_and_its_report(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "rep"
    assert main(["cert", "bits", str(DATA / "nist-sha1.bin"), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "n/a" in text and "RandomExcursions (x = -4)" in text and "PASS" in text
    assert "<svg" in (out / "report.html").read_text()
    md = (out / "report.md").read_text()
    assert "| 0.604458 |" in md or "0.604458" in md
    doc = json.loads((out / "results.json").read_text())
    excursion = [c for c in doc["columns"] if c["test"] == "RandomExcursions"]
    assert excursion[0]["p_values"] == [None]


def ctr_bytes(count: int) -> bytes:
    drbg = CtrDrbg(SeededSource(b"etg sp 800-22 second level"),
                   personalization=b"assess comparison")
    return b"".join(drbg.generate(1 << 16) for _ in range(0, count, 1 << 16))[:count]


def test_second_level_equals_nists_assess(tmp_path: Path) -> None:
    f = tmp_path / "ctr.bin"
    f.write_bytes(ctr_bytes(1_250_000))
    run = run_bits(BitsOptions(str(f), "binary", SuiteParams(MILLION), 10, progress=False))
    mine = [f"{' '.join(map(str, s.histogram))} | "
            + ("----" if s.uniformity is None else f"{s.uniformity:.6f}")
            + f" | {s.passed}/{s.tested}" for s in run.summaries]
    assert mine == list(ASSESS_TABLE)
    rates = pass_rates(run)
    assert {k: (v["minimum_passing"], v["sample_size"]) for k, v in rates.items()} == \
        ASSESS_PASS_RATES
    assert run.verdict.passed


@pytest.mark.parametrize(("argv", "message"), [
    (["--streams", "2"], "fewer than --streams 2 x --length 1,000,000"),
    (["--length", "10^5"], "Universal (SP 800-22 2.9) needs n >= 387,840"),
    (["--length", "10^5", "--skip", "universal,random-excursions,random-excursions-variant"],
     "Serial (SP 800-22 2.11) needs 2 <= m < floor(log2 n) - 2"),
    (["--skip", "banana"], "'banana' is not a test"),
    (["--format", "ascii"], "is not 0, 1 or whitespace"),
    (["--apen-m", "17"], "ApproximateEntropy (SP 800-22 2.12) needs 1 <= m"),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str,
                                          capsys: pytest.CaptureFixture) -> None:
    assert main(["cert", "bits", str(DATA / "nist-sha1.bin"), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_standard_input_needs_streams_and_is_read_as_it_goes(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    data = (DATA / "nist-sha1.bin").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["cert", "bits", "-"]) == 2
    assert "needs --streams" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["cert", "bits", "-", "--streams", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert f"{doc['columns'][0]['p_values'][0]:.6f}" == REFERENCE["sha1"][0]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data[:100_000])))
    assert main(["cert", "bits", "-", "--streams", "1", *QUICK]) == 2
    assert "ended in sequence 1" in capsys.readouterr().err


def test_binary_sequences_start_on_32_bit_words_as_assess_reads(tmp_path: Path) -> None:
    # sequences of 1,000 bits take 128 bytes each: the last 24 bits of each are skipped
    seq = np.zeros((3, 1024), dtype=np.uint8)
    seq[:, 1000:] = 1  # ones only where assess skips
    seq[1, :500] = 1
    f = tmp_path / "w.bin"
    np.packbits(seq.ravel()).tofile(f)
    p = SuiteParams(1000, tests=("frequency",))
    run = run_bits(BitsOptions(str(f), "binary", p, None, progress=False))
    assert run.streams == 3
    assert run.statistic[:, 0].tolist() == [1000 / 1000 ** 0.5, 0.0, 1000 / 1000 ** 0.5]


def test_a_killed_run_resumes_from_its_checkpoint(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "ctr.bin"
    f.write_bytes(ctr_bytes(4 * 125_000))
    params = SuiteParams(MILLION, tests=("frequency", "runs", "serial", "rank"))
    ck = tmp_path / "ck"
    opts = BitsOptions(str(f), "binary", params, 4, checkpoint=ck, progress=False)
    whole = run_bits(BitsOptions(str(f), "binary", params, 4, progress=False))
    real = bits_run.sequence_task

    def dies_at_2(params: SuiteParams, index: int, packed: bytes) -> bits_run.SequenceResult:
        if index == 2:
            raise KeyboardInterrupt
        return real(params, index, packed)

    monkeypatch.setattr(bits_run, "sequence_task", dies_at_2)
    with pytest.raises(KeyboardInterrupt):
        run_bits(opts)
    monkeypatch.setattr(bits_run, "sequence_task", real)
    again = run_bits(opts)
    assert again.resumed == 2 and np.array_equal(again.p, whole.p)
    other = BitsOptions(str(f), "binary", params, 3, checkpoint=ck, progress=False)
    with pytest.raises(Exception, match="a checkpoint of another run"):
        run_bits(other)


def test_the_cluster_gives_the_same_table(tmp_path: Path) -> None:
    f = tmp_path / "ctr.bin"
    f.write_bytes(ctr_bytes(4 * 125_000))
    params = SuiteParams(MILLION, tests=("frequency", "cumulative-sums", "dft", "universal"))
    here = run_bits(BitsOptions(str(f), "binary", params, 4, progress=False))
    there = run_bits(BitsOptions(str(f), "binary", params, 4, jobs=2, progress=False))
    assert "Dask" in there.where and np.array_equal(here.p, there.p)


def test_dieharder_alone_asks_for_its_whole_battery() -> None:
    from firmware.cli import build_parser
    from rng.cert.cli import _dieharder_tests

    argv = ["cert", "run", "--draws", "1000", "--out", "x", "--dieharder"]
    args = build_parser(argv).parse_args(argv)
    assert _dieharder_tests(args.dieharder) == (True, None)  # None: dieharder -a
    argv = ["cert", "run", "--draws", "1000", "--out", "x"]
    assert _dieharder_tests(build_parser(argv).parse_args(argv).dieharder)[1] != ()


def test_the_nist_rule_takes_assess_flags_literally_and_holm_does_not() -> None:
    from rng.cert.nist.second_level import summarize, thresholds, verdict
    from rng.cert.nist.suite import Column

    assert thresholds(1000) == (980, 999) and thresholds(10) == (8, 10)
    spread = (np.arange(1000) + 0.5) / 1000  # ten failures, perfectly uniform
    perfect = np.where(spread < 0.01, spread + 0.01, spread)  # no failure at all
    cols = [Column("frequency"), Column("runs")]
    fine = [summarize(cols[0], spread), summarize(cols[1], spread)]
    too_good = [summarize(cols[0], spread), summarize(cols[1], perfect)]
    assert too_good[1].proportion_flag  # 1000/1000 is above assess's range
    assert verdict(fine, 1000, "nist").passed and verdict(fine, 1000, "holm").passed
    assert not verdict(too_good, 1000, "nist").passed
    assert verdict(too_good, 1000, "holm").passed  # zero failures is no evidence of bias
    bad = np.where(spread < 0.05, spread / 10, spread)  # 50 failures in 1000
    worse = [summarize(cols[0], bad), summarize(cols[1], spread)]
    for rule in ("nist", "holm"):
        v = verdict(worse, 1000, rule)
        assert not v.passed and [j.column.key for j in v.judged if j.rejected] == ["frequency"]


def test_the_exact_uniformity_law_for_few_sequences_is_the_multinomial() -> None:
    import itertools

    from rng.cert.nist.second_level import uniformity_p

    for s in (3, 5):  # every way of throwing s values into ten bins
        squares: dict[int, float] = {}
        for throw in itertools.product(range(10), repeat=s):
            q = int((np.bincount(throw, minlength=10) ** 2).sum())
            squares[q] = squares.get(q, 0.0) + 0.1 ** s
        for q in squares:
            hist = np.zeros(10, dtype=np.int64)
            # a histogram with that sum of squares, found among the throws
            for throw in itertools.product(range(10), repeat=s):
                hist = np.bincount(throw, minlength=10)
                if int((hist ** 2).sum()) == q:
                    break
            tail = sum(v for k, v in squares.items() if k >= q)
            assert uniformity_p(hist) == pytest.approx(tail, abs=1e-12)
    assert uniformity_p(np.array([10] + [0] * 9)) == pytest.approx(1e-9)  # all in one bin
