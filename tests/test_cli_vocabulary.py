"""One vocabulary of options across every `etg` command (docs in etgcore/options.py):
``--out`` for what a command writes, ``--seed HEX`` for a fixed seed, ``--variant`` checked
against the same list, ``--decks`` with one range and default, counts written one way;
help texts a person can read; hints that name options that exist."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware.cli import build_parser, main
from firmware.engine.rules import VARIANTS

REPO = Path(__file__).resolve().parents[1]
#: spellings of the past, still accepted but never shown
OLD = {"--output", "-o", "--out-dir", "--seed-hex", "--n", "--backend"}


Command = tuple[str, argparse.ArgumentParser]


def commands() -> Iterator[Command]:
    def walk(p: argparse.ArgumentParser, name: str) -> Iterator[Command]:
        yield name, p
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for n, sp in a.choices.items():
                    yield from walk(sp, f"{name} {n}")
    yield from walk(build_parser(), "etg")


def visible(p: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in p._actions if a.help != argparse.SUPPRESS]


def test_old_spellings_are_hidden_and_the_new_names_shown() -> None:
    for name, p in commands():
        shown = {o for a in visible(p) for o in a.option_strings}
        assert not shown & OLD, (name, shown & OLD)
        help_text = p.format_help()
        for old in OLD - {"-o", "--n"}:
            assert old not in help_text, (name, old)


def test_every_writer_says_out_and_every_seed_is_hex() -> None:
    for name, p in commands():
        for a in visible(p):
            for o in a.option_strings:
                assert o not in ("--output", "--out-dir", "--outdir"), name
            if "--seed" in a.option_strings and name not in ("etg verify", "etg release hmac"):
                assert a.metavar == "HEX", name
            if "--variant" in a.option_strings:
                assert tuple(a.choices or ()) == VARIANTS, name
            if "--decks" in a.option_strings:
                assert a.type is not None and getattr(a.type, "__name__", "") == "decks", name


def test_help_texts_have_no_markup_doubled_percent_or_empty_ranges() -> None:
    bad = [r"%%", r"``", r":class:", r":func:", r"from (\d+) to \1\b", r"\*\*"]
    for name, p in commands():
        text = p.format_help()
        for pat in bad:
            assert not re.search(pat, text), (name, pat)


def test_a_single_allowed_value_is_said_as_such(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--set", "table.variant=bingo", "--set", "rules.decks=7", "config",
                 "check"]) == 2
    err = capsys.readouterr().err
    assert "equal to 8 (the only value allowed)" in err and "from 8 to 8" not in err


def test_old_and_new_spellings_do_the_same(tmp_path: Path) -> None:
    old = ["rng", "draws", "--what", "card", "-o", str(tmp_path / "old.csv"), "--n", "30",
           "--seed-hex", "01"]
    new = ["rng", "draws", "--what", "card", "--out", str(tmp_path / "new.csv"), "--draws",
           "30", "--seed", "01"]
    assert main(old) == 0 and main(new) == 0
    cards = (tmp_path / "new.csv").read_text().split()
    assert len(cards) == 30 and (tmp_path / "old.csv").read_text().split() == cards


def test_seeds_reproduce_and_odd_hex_is_padded(tmp_path: Path) -> None:
    outs = []
    for seed in ("7", "07"):
        f = tmp_path / f"s{seed}.csv"
        assert main(["rng", "draws", "--what", "card", "--draws", "20", "--seed", seed,
                     "--out", str(f)]) == 0
        outs.append(f.read_text())
    assert outs[0] == outs[1]


@pytest.mark.parametrize("argv", [
    ["strategy", "--variant", "nosuch"],
    ["par", "--variant", "nosuch"],
    ["ui", "snapshot", "--variant", "nosuch", "--out", "x.png"],
    ["bench", "soak", "--variant", "nosuch", "--rounds", "1"],
    ["run", "--variant", "nosuch"],
])
def test_variant_is_checked_the_same_way_everywhere(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "argument --variant: invalid choice: 'nosuch'" in err and err.count("\n") == 1


def test_hints_name_options_that_exist() -> None:
    """Every ``--option`` quoted in a message of the program is an option some command
    shows (the old spellings do not count)."""
    known = {o for _n, p in commands() for a in visible(p) for o in a.option_strings}
    outside = {"--help", "--porcelain", "--untracked-files", "--user", "--now",
               "--line-buffered"}  # git, systemctl, grep
    problems = []
    for pkg in ("firmware", "drivers", "rng", "ui", "deploy", "lab"):
        for f in (REPO / pkg).rglob("*.py"):
            if f.name == "cli_options.py":
                continue
            for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
                code = line.strip()
                if code.startswith("#") or "add_argument" in code or "aliases=" in code:
                    continue
                for m in re.finditer(r'["\'][^"\']*?(?<![\w-])(--[a-z][a-z0-9-]+)', code):
                    opt = m.group(1)
                    if opt not in known and opt not in outside and "dieharder" not in code \
                            and "pip" not in code and "install" not in code:
                        problems.append(f"{f.relative_to(REPO)}:{i}: {opt}")
    assert not problems, problems
