"""Build the non-IID track's kernels ahead of time (``python -m rng.cert.sp80090b.kernels.aot``,
run by ``make setup``): an extension module that loads without numba (see
:mod:`rng.cert.sp80090b.compiled`, which uses it only when its compiled-in digest matches
the kernels' current source).

The signatures are the types the callers pass (contiguous arrays of these dtypes,
Python ints as int64); a caller passing another type gets a TypeError from the AOT
function, which the tests would show.
"""

from __future__ import annotations

import sys
from pathlib import Path

SIGNATURES = {
    "collision_walk": "UniTuple(int64, 2)(uint8[::1])",
    "compression_g": "float64(float64, int64, int64)",
    "packed_keys": "uint64[::1](uint8[::1], int64, int64)",
    "radix_argsort": "int64[::1](uint64[::1])",
    "neighbour_lcp": "Tuple((int64[::1], boolean))(uint64[::1], int64[::1], int64, int64, int64)",
    "kasai": "int64[::1](int64[::1], int64[::1])",
    "tuple_counts": "UniTuple(int64[::1], 2)(int64[::1], int64)",
    "multi_mcw": "UniTuple(int64, 3)(int64[::1], int64)",
    "multi_mcw_binary": "UniTuple(int64, 3)(int64[::1])",
    "lag": "UniTuple(int64, 3)(int64[::1])",
    "lag_binary": "UniTuple(int64, 3)(int64[::1])",
    "multi_mmc": "UniTuple(int64, 3)(int64[::1], int64, int64)",
    "multi_mmc_binary": "UniTuple(int64, 3)(int64[::1])",
    "lz78y": "UniTuple(int64, 3)(int64[::1], int64, int64)",
    "lz78y_binary": "UniTuple(int64, 3)(int64[::1])",
}


def build(out_dir: Path) -> Path:
    """Compile every kernel of :data:`SIGNATURES` and the source digest into
    ``out_dir``; returns the module's file."""
    from numba.pycc import CC

    from rng.cert.sp80090b import compiled, kernels

    cc = CC(compiled.AOT_MODULE.rsplit(".", 1)[1])
    cc.output_dir = str(out_dir)
    cc.verbose = False
    # for the machine it is built on, as numba's JIT compiles (``make setup`` runs on the
    # machine that assesses; a generic target loses the lag predictor's vector code)
    cc.target_cpu = "host"
    for name, sig in SIGNATURES.items():
        cc.export(name, sig)(getattr(kernels, name).py_func)
    scope = {"DIGEST": compiled.source_digest()}
    exec("def source_digest():\n    return DIGEST\n", scope)  # a compiled-in constant
    cc.export("source_digest", "int64()")(scope["source_digest"])
    cc.compile()
    return next(out_dir.glob(cc.name + ".*"))


def main() -> int:
    from rng.cert.sp80090b import compiled

    out = Path(compiled.__file__).resolve().parent
    try:
        path = build(out)
    except Exception as exc:  # no compiler: the JIT kernels still work, only slower
        print(f"etg: the SP 800-90B kernels were not compiled ahead of time ({exc}); "
              "`etg cert entropy` uses numba's JIT", file=sys.stderr)
        return 0
    print(f"compiled {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
