"""Shoe test fixtures: simulators on real pseudo-terminals and the independent controller
of shoe_support.py attached to them."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from shoe_support import FAST, IndependentController, plain_shoe

from drivers.shoe.sim_machine import SimSettings
from drivers.shoe.simulator import ShoeSimulator


@pytest.fixture
def sim_factory() -> Iterator[Callable[..., ShoeSimulator]]:
    sims: list[ShoeSimulator] = []

    def make(link: str | None = None, **settings: object) -> ShoeSimulator:
        settings.setdefault("timing", FAST)
        settings.setdefault("boot_s", 0.1)
        sim = ShoeSimulator.on_pty(SimSettings(**settings),  # type: ignore[arg-type]
                                   link=link, shuffler=plain_shoe)
        sims.append(sim)
        return sim.start()

    yield make
    for sim in sims:
        sim.stop()


@pytest.fixture
def controller_factory() -> Iterator[Callable[..., IndependentController]]:
    ctrls: list[IndependentController] = []

    def make(path: str, auto_ack: bool = True) -> IndependentController:
        c = IndependentController(path, auto_ack)
        ctrls.append(c)
        return c

    yield make
    for c in ctrls:
        c.close()


@pytest.fixture
def shoe(sim_factory: Callable[..., ShoeSimulator],
         controller_factory: Callable[..., IndependentController]
         ) -> Callable[..., tuple[ShoeSimulator, IndependentController]]:
    """A simulator on a pty with the independent controller attached and greeted."""

    def make(auto_ack: bool = True, greet: bool = True, **settings: object
             ) -> tuple[ShoeSimulator, IndependentController]:
        sim = sim_factory(**settings)
        ctrl = controller_factory(sim.path, auto_ack)
        if greet:
            ctrl.expect("HEL")
        return sim, ctrl

    return make


@pytest.fixture
def open_attempts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every port the driver tries to open, in order (its reopen attempts can be waited
    for, instead of a guessed delay)."""
    import drivers.shoe.driver as driver_module

    tried: list[str] = []
    real = driver_module.open_port

    def spy(url: str, **kw: object) -> object:
        tried.append(url)
        return real(url, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(driver_module, "open_port", spy)
    return tried


def _register_binary_model() -> None:
    """The tests' binary reader model joins the registry, so every suite over the models
    (tests/shoe/test_shoe_models.py, the driver's whole suite) runs over it too."""
    from binary_model import BINARY

    from drivers.shoe.models import MODELS

    MODELS.register(BINARY)


_register_binary_model()
