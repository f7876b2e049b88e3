"""The DRBG mechanisms the table can be configured with (``rng.mechanism``)."""

from __future__ import annotations

from rng.ctr_drbg import CtrDrbg, CtrDrbgNoDf
from rng.drbg import Drbg
from rng.hmac_drbg import HmacDrbg

#: configuration name -> mechanism class; CTR_DRBG with the df is the default.
MECHANISMS: dict[str, type[Drbg]] = {
    "ctr-drbg": CtrDrbg,
    "ctr-drbg-no-df": CtrDrbgNoDf,
    "hmac-drbg": HmacDrbg,
}
DEFAULT_MECHANISM = "ctr-drbg"


def mechanism_class(name: str) -> type[Drbg]:
    try:
        return MECHANISMS[name]
    except KeyError:
        raise ValueError(
            f"unknown DRBG mechanism {name!r} (known: {', '.join(MECHANISMS)})"
        ) from None
