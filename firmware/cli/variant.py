"""``--variant``: the option of the vocabulary (:mod:`etgcore.options`) that needs the list
of games, which only the firmware knows (:data:`firmware.engine.VARIANTS`)."""

from __future__ import annotations

import argparse

from firmware.engine.rules import VARIANTS


def add_variant(p: argparse.ArgumentParser, help: str, *, required: bool = False,
                default: str | None = None) -> None:
    """``--variant``: one of :data:`VARIANTS`, the same check and message everywhere."""
    p.add_argument("--variant", choices=VARIANTS, required=required, default=default,
                   metavar="VARIANT", help=f"{help} ({', '.join(VARIANTS)})")
