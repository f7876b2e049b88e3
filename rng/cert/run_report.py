"""What a certification run's report says besides the figures: the run's metadata (the
program, its configuration and seed, the path the draws took) and the sections of test
results, in the order a lab reads them."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from typing import Any

from etgcore.cli_context import CommandContext
from rng.cert.analyze import independence_plot, outcome_section, shuffle_section
from rng.cert.meta import RunMetadata, program_hash, rng_sources_digest
from rng.cert.report import Section
from rng.cert.tables import OutcomeTable

#: the report's rows naming what, with the seed and the command, determines its figures
INPUT_RULES = "Bingo weights: firmware/rules/bingo.toml (SHA-256)"
INPUT_RNG = "RNG sources: rng/**/*.py (SHA-256)"

_OVERLAP_NOTE = ("Every test merges exactly across tasks except the overlaps test, which "
                 "compares windows within each task and sampled windows across tasks.")


def run_metadata(cfg: Any, opts: Any, ctx: CommandContext, settings: Any,
                 seed: str) -> RunMetadata:
    """The run's identity, and ``program-files.txt`` (each program file's digest) beside
    the report, so the lab can check the program it certified."""
    files_list, kind = ctx.program_files()
    if not files_list:  # a report that names no software certifies nothing
        from rng.errors import RngError

        raise RngError("the program's release file set is empty: the report could not "
                        "name the software it tested")
    meta = RunMetadata(command=opts.command, mechanism=settings.mechanism,
                       mode=cfg.table.mode, seed_hex=seed, config_source=cfg.source,
                       config_hash=ctx.config_fingerprint(
                           dataclasses.replace(cfg, rng=settings)),
                       program_version=ctx.version,
                       program_hash=program_hash(files_list),
                       program_file_count=len(files_list))
    (opts.out / "program-files.txt").write_text(
        "".join(f"{digest}  {name}\n" for name, digest in files_list), encoding="utf-8")
    meta.extra["program files"] = (f"{len(files_list):,} ({kind}); each file's SHA-256 in "
                                   "program-files.txt")
    rules = ctx.rules_file("bingo")
    meta.extra[INPUT_RULES] = (hashlib.sha256(rules.read_bytes()).hexdigest()
                               if rules.is_file() else "none")
    meta.extra[INPUT_RNG] = rng_sources_digest()
    meta.extra["entropy claim"] = _entropy_claim(settings, seed)
    meta.extra["scaling path"] = ("TableRng.draw_bingo / randbelow / shuffle (the table's "
                                  "own calls)" if opts.scaling == "table" else
                                  "rng.batch via rng.lab.outcomes (etg rng draws)")
    return meta


def _entropy_claim(settings: Any, seed: str) -> str:
    """What the noise source is claimed to give and on what ground (the assessment, or
    the floor with no assessment: the report must say so)."""
    from rng.claim import claim_for
    from rng.entropy import resolve
    from rng.errors import RngError

    if seed:
        return "none: a fixed bench seed, no noise source"
    try:
        return claim_for(resolve(settings.entropy), settings.assessment).describe()
    except RngError as exc:
        return f"REFUSED: {exc}"


def report_sections(merged: Any, out: Path, stream_bytes: int,
                    tables: tuple[OutcomeTable, OutcomeTable], cards: OutcomeTable,
                    bits: Any) -> list[Section]:
    """The merged batteries as the report's sections (plots written into ``out``)."""
    tw, mw = tables
    pair = Section("Target x multiplier independence", merged.pairs.results(),
                   plots=[independence_plot(merged.pairs, out, list(tw.labels),
                                            list(mw.labels))])
    battery, suite = bits
    return [
        outcome_section(merged.targets, out, "target"),
        outcome_section(merged.multipliers, out, "multiplier"),
        pair,
        outcome_section(merged.cards, out, "card", notes=[_OVERLAP_NOTE]),
        shuffle_section(merged.shoes, out, list(cards.labels)),
        Section(f"Raw DRBG stream ({stream_bytes:,} bytes, NIST SP 800-22)",
                battery.results(), notes=["The stream is one sequence of n bits, most "
                                          "significant bit of each byte first."]),
        _suite_section(suite, out, stream_bytes),
    ]


def _suite_section(suite: Any, out: Path, stream_bytes: int) -> Section:
    """All fifteen SP 800-22 tests on the stream's sequences of 10^6 bits, with their
    full report (every P-value of every sequence) in ``out/sp800-22/``."""
    from rng.cert.nist.stream_suite import SEQUENCE_BITS, section_results

    title = "Raw DRBG stream: all 15 NIST SP 800-22 tests, sequences of 10^6 bits"
    run = suite.run("stream.bin", "etg cert bits stream.bin --format binary")
    if run is None:
        return Section(title, [], notes=[
            f"Not run: the stream ({stream_bytes * 8:,} bits) is shorter than one sequence "
            f"of {SEQUENCE_BITS:,} bits; give --stream-bytes 125000 or more."])
    from rng.cert.nist.bits_report import write

    write(run, out / "sp800-22")
    results = section_results(run, "raw stream, 10^6-bit sequences")
    count = f"{run.streams:,} sequence" + ("s" if run.streams > 1 else "")
    return Section(f"{title} ({count})", results,
                   notes=[f"stream.bin cut into {run.streams:,} sequences of {SEQUENCE_BITS:,}"
                          " bits, as NIST's assess and `etg cert bits stream.bin` read it. "
                          "Every P-value of every sequence, the histograms and NIST's flags: "
                          "sp800-22/report.html and sp800-22/results.json. "
                          f"{run.verdict.text} (on these sequences alone)."])


def kat_text(mechanism: str, checks: list[Any]) -> str:
    """Which known-answer tests ran before the first draw, and their result."""
    from rng.cavp import shipped_vectors
    from rng.selftest import _VECTOR_FILES

    files = [f"{p.parent.name}/{p.name}" for p in shipped_vectors()
             if _VECTOR_FILES.get(mechanism, "") in p.name]
    kat = next((c for c in checks if "known-answer" in c.name), None)
    return (f"{mechanism}: every shipped NIST CAVP case of " + ", ".join(files)
            + f" (SP 800-90A 11.3): {kat.detail if kat else 'not run'}; the raw stream's "
            "RNG, opened as the table opens it, ran the first case of every CAVP group "
            "again at its power-up")
