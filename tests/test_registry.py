"""The one registry type (etgcore/registry.py) both plug-in tables use: the shoe's reader
models and the panel's backends (issue 48: the two repeated the same register/lookup
shape, and each wrote its own refusal)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from drivers.panel.backends import BACKENDS, backend
from drivers.shoe.models import MODELS, reader_model
from etgcore.errors import UserError
from etgcore.registry import Registry


@dataclass(frozen=True)
class Entry:
    name: str
    value: int = 0


def test_an_entry_registers_once_and_is_looked_up_by_name() -> None:
    reg: Registry[Entry] = Registry("test thing", lambda e: e.name)
    a = reg.register(Entry("a", 1))
    assert reg.register(a) is a  # the same entry again: no change
    reg.register(Entry("b", 2))
    assert reg.lookup("a") is a and list(reg) == ["a", "b"] and len(reg) == 2
    assert "b" in reg and dict(reg) == {"a": a, "b": Entry("b", 2)}
    reg.unregister("b")
    assert list(reg) == ["a"]


def test_another_entry_under_a_taken_name_is_refused() -> None:
    reg: Registry[Entry] = Registry("test thing", lambda e: e.name)
    reg.register(Entry("a", 1))
    with pytest.raises(ValueError, match="test thing 'a' is registered twice"):
        reg.register(Entry("a", 2))
    assert reg.lookup("a").value == 1


def test_an_unknown_name_is_one_line_naming_those_there_are() -> None:
    reg: Registry[Entry] = Registry("test thing", lambda e: e.name)
    with pytest.raises(UserError, match=r"test thing 'x' unknown \(allowed: none registered\)"):
        reg.lookup("x")
    reg.register(Entry("a"))
    with pytest.raises(UserError) as err:
        reg.lookup("x")
    assert str(err.value) == "test thing 'x' unknown (allowed: a)"


def test_the_shoe_models_and_the_panel_backends_are_one_registry_type() -> None:
    assert isinstance(MODELS, Registry) and isinstance(BACKENDS, Registry)
    assert reader_model("icd") is MODELS["icd"] and backend("sim") is BACKENDS["sim"]
    with pytest.raises(UserError, match=r"^shoe reader model 'x' unknown \(allowed: icd"):
        reader_model("x")
    with pytest.raises(UserError, match=r"^panel backend 'x' unknown \(allowed: gpio, sim"):
        backend("x")
