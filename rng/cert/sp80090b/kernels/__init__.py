"""The sequential parts of the SP 800-90B estimators, compiled with numba.

The predictors (90B 6.3.7-6.3.10) are inherently sequential: each prediction depends on
every sample before it. numba compiles them to machine code (the alternative, a C
extension, would need a compiler on every lab machine). One module per estimator family;
this package names them all so callers need not know the split.
"""

from __future__ import annotations

from rng.cert.sp80090b.kernels.counts import collision_walk, compression_g
from rng.cert.sp80090b.kernels.hashing import table_size
from rng.cert.sp80090b.kernels.lz import LZ_B, LZ_MAX_DICT, lz78y, lz78y_binary
from rng.cert.sp80090b.kernels.mmc import MMC_D, MMC_MAX_ENTRIES, multi_mmc, multi_mmc_binary
from rng.cert.sp80090b.kernels.suffix import (
    kasai,
    neighbour_lcp,
    packed_keys,
    radix_argsort,
    tuple_counts,
)
from rng.cert.sp80090b.kernels.window import (
    LAG_D,
    MCW_WINDOWS,
    lag,
    lag_binary,
    multi_mcw,
    multi_mcw_binary,
)

__all__ = [
    "LAG_D", "LZ_B", "LZ_MAX_DICT", "MCW_WINDOWS", "MMC_D", "MMC_MAX_ENTRIES",
    "collision_walk", "compression_g", "kasai", "lag", "lag_binary", "lz78y",
    "lz78y_binary", "multi_mcw", "multi_mcw_binary", "multi_mmc", "multi_mmc_binary",
    "neighbour_lcp", "packed_keys", "radix_argsort", "table_size", "tuple_counts",
]
