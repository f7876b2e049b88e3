"""The PAR sheet a lab signs: every allowed configuration of a game in one document.

Written by ``etg par --variant V --out DIR`` as ``DIR/par-<variant>.md``, ``.html`` and
``.json`` (the same figures: the Markdown and the HTML from one list of blocks,
:mod:`etgcore.document`; the JSON from the same :class:`~firmware.math.par.figures.ParFigures`)
with PNG plots (matplotlib's Agg backend). The document: its control block (game,
paytables, software identity and version, date, how to reproduce it), a summary of every
configuration (:mod:`firmware.math.par.configurations`), each configuration's figures in full
(paytable lines with probability, payout and contribution; round distribution, standard
deviations, hit frequency, win/push/loss, element of risk, 90/95/99% ranges and the
rounds for the house to be ahead, the largest win, the insurance wager's own edge), then
the strategy of each deck count and dealer rule and the dealer's table.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from etgcore.document import Block, Bullets, Heading, Image, Paragraph, table, to_html, to_markdown
from firmware.math.par.configurations import Configuration, configurations, rules_digest
from firmware.math.par.figures import LEVELS, ParFigures, par_figures
from firmware.math.ruleset import GameRules, load


def build_sheet(variant: str, pinned: dict[str, Any] | None = None,
                progress: Callable[[int, int, str], None] | None = None
                ) -> tuple[list[tuple[Configuration, ParFigures]], float]:
    """Every configuration's figures (``pinned`` settings held), and the seconds taken."""
    t0 = time.perf_counter()
    confs = configurations(variant, pinned)
    out = []
    for i, c in enumerate(confs):
        rules = load(variant, {**(pinned or {}), **c.overrides()})
        out.append((c, par_figures(rules)))
        if progress is not None:
            progress(i + 1, len(confs), c.label())
    return out, time.perf_counter() - t0


def write_sheet(variant: str, out_dir: str, pinned: dict[str, Any] | None = None,
                progress: Callable[[int, int, str], None] | None = None) -> Path:
    """``par-<variant>.md``, ``.html``, ``.json`` and the plots in ``out_dir``; returns the
    Markdown file's path."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    sheet, seconds = build_sheet(variant, pinned, progress)
    stem = f"par-{variant}"
    blocks = sheet_blocks(variant, sheet, seconds, d, stem)
    title = f"PAR sheet: {sheet[0][1].rules.variant}"
    from firmware.engine.rules import read_rules_file

    title = f"PAR sheet: {read_rules_file(variant).game.get('title', variant)}"
    (d / f"{stem}.md").write_text(to_markdown(title, blocks), encoding="utf-8")
    (d / f"{stem}.html").write_text(to_html(title, blocks), encoding="utf-8")
    (d / f"{stem}.json").write_text(json.dumps(sheet_json(variant, sheet, seconds),
                                               indent=1, sort_keys=True), encoding="utf-8")
    return d / f"{stem}.md"


def document_control(variant: str, seconds: float) -> dict[str, str]:
    """The sheet's identity: game, regulation, Rules Submission, software, date."""
    from importlib import metadata

    from firmware.engine.rules import read_rules_file
    from firmware.math.cache import source_sha256

    game = read_rules_file(variant).game
    try:
        version = metadata.version("etg-firmware")
    except metadata.PackageNotFoundError:
        version = "not installed"
    return {
        "game": f"{game.get('title', variant)} (variant `{variant}`)",
        "regulation": str(game.get("regulation", "")),
        "rules_submission": f"firmware/rules/{variant}.toml, SHA-256 "
                            f"{rules_digest(variant)}",
        "software": f"etg-firmware {version}; game math (firmware/math) sources "
                    f"SHA-256 {source_sha256()}",
        "generated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "reproduce": f"etg par --variant {variant} --out DIR",
        "computed_in": f"{seconds:.1f} s",
    }


def sheet_json(variant: str, sheet: list[tuple[Configuration, ParFigures]],
               seconds: float) -> dict[str, Any]:
    from firmware.math.par.sections import not_priced_rows

    return {"document": document_control(variant, seconds),
            "not_priced": [dict(zip(("key", "default", "reason"), r, strict=True))
                           for r in not_priced_rows(variant)],
            "configurations": [{"configuration": c.label(), "settings": c.overrides(),
                                **f.to_json()} for c, f in sheet]}


def sheet_blocks(variant: str, sheet: list[tuple[Configuration, ParFigures]],
                 seconds: float, d: Path, stem: str) -> list[Block]:
    """Every block of the sheet (the plots are drawn into ``d`` on the way)."""
    from firmware.math.par import sections as pb

    ctl = document_control(variant, seconds)
    blocks: list[Block] = [Heading("Document control"),
                           table(["item", "value"], [[k.replace("_", " "), v]
                                                     for k, v in ctl.items()])]
    blocks += pb.summary(sheet)
    blocks += pb.method(sheet[0][1].rules, sheet)
    blocks += pb.not_priced_section(variant)
    for i, (c, f) in enumerate(sheet):
        blocks += pb.configuration(i + 1, c, f, d, stem if i == 0 else None)
    blocks += pb.strategies(sheet)
    blocks += pb.dealer_tables(sheet)
    return blocks


__all__ = [
    "LEVELS",
    "Bullets",
    "GameRules",
    "Image",
    "Paragraph",
    "build_sheet",
    "document_control",
    "sheet_json",
    "write_sheet",
]
