"""One suite over every registered panel backend (issue 48, finding 4: the backends were
an if-chain in open_panel and again in check_backend). Each entry of
:data:`drivers.panel.backends.BACKENDS` is checked the same way; a new backend is run by
this suite without a line here."""

from __future__ import annotations

from typing import get_args

import pytest

from drivers.panel import check_backend, open_panel
from drivers.panel.backends import BACKENDS, backend
from drivers.panel.settings import PanelBackend, PanelSettings
from etgcore.errors import UserError


def test_the_settings_allow_exactly_the_registered_backends() -> None:
    assert set(get_args(PanelBackend)) == set(BACKENDS)


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_every_backend_opens_as_declared_or_says_why_not_in_one_line(name: str) -> None:
    entry = backend(name)
    assert entry.name == name and entry.doc
    try:
        check_backend(name)  # type: ignore[arg-type]
    except UserError as exc:  # gpio off a Pi: the one line, and open refuses the same
        assert not entry.simulated and "\n" not in str(exc)
        with pytest.raises(UserError):
            open_panel(PanelSettings(), 2, name)  # type: ignore[arg-type]
        return
    panel = open_panel(PanelSettings(), 2, name)  # type: ignore[arg-type]
    panel.start()
    try:
        assert panel.get_event(timeout=0.01) is None  # nobody pressed anything
        panel.set_lamps({1: {"BET"}})
        assert panel.lamps() == {1: frozenset({"BET"})}
    finally:
        panel.stop()


def test_an_unknown_backend_is_one_line_naming_those_there_are() -> None:
    with pytest.raises(UserError, match="allowed: gpio, sim, keyboard"):
        check_backend("serial")  # type: ignore[arg-type]
    with pytest.raises(UserError, match="unknown"):
        open_panel(PanelSettings(), 2, "serial")  # type: ignore[arg-type]
