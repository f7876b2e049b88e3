"""The return by playing rounds: through the real engine (:mod:`.engine_rounds`), through
a compiled round loop (:mod:`.fast_path`, :mod:`.fast_path_kernel`), and ``etg rtp`` on a
Dask cluster (:mod:`.rtp`)."""
