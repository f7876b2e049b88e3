"""The RNG's settings (``[rng]`` of the table configuration), owned by the RNG.

The table's configuration only assembles these; :func:`rng.open_table_rng` takes an
:class:`RngSettings`. Whether a fixed seed is allowed depends on the table's mode, so that
check is the table configuration's (it knows both).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from etgcore.config_schema import doc, ranged
from etgcore.errors import ConfigError

RngMechanism = Literal["ctr-drbg", "ctr-drbg-no-df", "hmac-drbg"]
EntropySource = Literal["auto", "os", "hwrng"]


@dataclass(frozen=True)
class RngSettings:
    mechanism: RngMechanism = field(
        default="ctr-drbg", metadata=doc("SP 800-90A DRBG: ctr-drbg (AES-256, df), ...")
    )
    entropy: EntropySource = field(
        default="auto", metadata=doc("auto (hwrng on a Pi, else OS), os or hwrng")
    )
    reseed_interval: int = field(
        default=1 << 20, metadata=ranged(1, 1 << 48, "generate calls between reseeds")
    )
    cycle_hz: float = field(
        default=100.0, metadata=ranged(0.0, 10000.0, "background cycling rate between draws")
    )
    seed_hex: str = field(
        default="",
        metadata=doc("bench only: fixed seed for reproducible runs (refused in production)"),
    )
    assessment: str = field(
        default="",
        metadata=doc("SP 800-90B assessment file of the noise source (etg cert entropy "
                     "--out): the claimed entropy and health-test cutoffs; empty: "
                     "hwrng runs on the documented floor and says so"),
    )


def check_seed(settings: RngSettings, source: str) -> None:
    """A configured seed must be hexadecimal digits (ConfigError naming ``rng.seed_hex``)."""
    if settings.seed_hex:
        try:
            bytes.fromhex(settings.seed_hex)
        except ValueError:
            raise ConfigError(source, "rng.seed_hex", "must be hexadecimal digits") from None
