"""Importable, and nothing more: a test whose table reached the pins would fail here."""

from __future__ import annotations

from typing import NoReturn


def __getattr__(name: str) -> NoReturn:
    raise RuntimeError(f"RPi.GPIO.{name}: a stand-in (tests/stand_ins); no pin is here")
