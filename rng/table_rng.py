"""The table's RNG: one self-tested DRBG, background cycling, recorded Bingo draws.

:func:`open_table_rng` is the only way the table gets an RNG: it opens the configured
entropy source (start-up health tests), runs the power-up self-test of the configured
mechanism, and instantiates the DRBG. Any failure raises
:class:`~rng.errors.RngUnavailable` with the cause, and the table tilts; so does any
failure later (an entropy health test failing at a reseed).

**Background cycling.** The DRBG is cycled ``cycle_hz`` times a second: by time t
after start, exactly ``floor(t * cycle_hz)`` cycles of 16 bytes have been generated and
thrown away before the next draw, so the state a draw starts from depends on exactly
when the draw is asked for (to 1/cycle_hz), not only on how many draws came before.
The cycles are owed by the clock and paid in one generate request of 16 bytes per cycle
due (:meth:`TableRng._catch_up`): by a thread once a second (:data:`CYCLE_TICK_S`) and
by every draw first, so an idle table wakes once a second instead of ``cycle_hz``
times. ``cycle_hz = 0`` turns cycling off; it is always off with a bench seed, so that
a seeded run is reproducible. Each catch-up counts against the reseed interval.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Mapping, MutableSequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rng.drbg import MAX_REQUEST_BYTES, Drbg
from rng.entropy import claim_of_settings, open_source
from rng.errors import RngError, RngUnavailable, SeedRefused
from rng.mechanisms import MECHANISMS
from rng.scaling import BitSource, Scaled, normalize_weights, randbelow, shuffle, weighted_choice
from rng.selftest import power_up_selftest

#: Known-answer cases per CAVP group at power-up (`etg rng selftest` runs all of them).
POWER_UP_KAT_CASES = 1
#: How often the cycling thread pays the cycles the clock has run up (seconds).
CYCLE_TICK_S = 1.0

T = TypeVar("T")
_CYCLE_BYTES = 16
_DRAW_READ = 32  # bytes per DRBG call inside one operation (enough for both Bingo draws)


def _scaled_json(s: Scaled) -> dict[str, int]:
    return {"bits_used": s.bits_used, "bits_rejected": s.bits_rejected}


@dataclass(frozen=True)
class BingoDraw:
    """One Bingo draw (§ 633b.28(e)): target and multiplier, drawn independently.

    ``record`` is the journal and lab record: round, draw number, values, the weight
    tables drawn from, and per value the bits used and rejected (used includes rejected).
    """

    round: int
    target: int
    multiplier: int
    record: Mapping[str, Any] = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        """The record as plain JSON types (``json.dumps`` takes it as is)."""
        return dict(self.record)


class TableRng:
    """The RNG a table draws from; thread-safe; close it to zeroize."""

    def __init__(self, drbg: Drbg, source_name: str, *, cycle_hz: float) -> None:
        self._drbg = drbg
        self.source_name = source_name
        self.mechanism = drbg.mechanism
        self._lock = threading.Lock()
        self._failure: str | None = None
        self._stop = threading.Event()
        self.draws = 0
        self.cycles = 0  # cycles paid: 16 bytes each, generated and discarded
        self.cycle_hz = cycle_hz
        self._clock = time.monotonic
        self._cycle_epoch = self._clock()
        self._thread: threading.Thread | None = None
        if cycle_hz > 0:
            self._thread = threading.Thread(target=self._cycle, name="rng-cycle", daemon=True)
            self._thread.start()

    # -- draws -----------------------------------------------------------------------------

    def draw_bingo(
        self,
        round_no: int,
        target_weights: Mapping[int, int],
        multiplier_weights: Mapping[int, int],
    ) -> BingoDraw:
        """The Bingo target and multiplier for ``round_no``, from disjoint DRBG bits."""
        tw = normalize_weights(target_weights)
        mw = normalize_weights(multiplier_weights)
        with self._operation():
            bits = self._bits()
            target, ts = weighted_choice(bits, tw)
            mult, ms = weighted_choice(bits, mw)
            self.draws += 1
            draw_no = self.draws
        record = {
            "kind": "bingo-draw",
            "round": round_no,
            "draw": draw_no,
            "mechanism": self.mechanism,
            "target": {"value": target, **_scaled_json(ts)},
            "multiplier": {"value": mult, **_scaled_json(ms)},
            "bits_used": ts.bits_used + ms.bits_used,
            "bits_rejected": ts.bits_rejected + ms.bits_rejected,
            "target_weights": [[v, w] for v, w in tw],
            "multiplier_weights": [[v, w] for v, w in mw],
        }
        return BingoDraw(round_no, target, mult, record)

    def randbelow(self, n: int) -> int:
        with self._operation():
            return randbelow(self._bits(), n).value

    def weighted_choice(self, weights: Mapping[T, int] | Iterable[tuple[T, int]]) -> T:
        with self._operation():
            return weighted_choice(self._bits(), weights)[0]

    def shuffle(self, items: MutableSequence[Any]) -> None:
        with self._operation():
            shuffle(self._bits(min_read=256), items)

    def random_bytes(self, n: int) -> bytes:
        """``n`` raw DRBG bytes (several generate calls past 2^19 bits)."""
        with self._lock:
            if self._failure is not None:
                raise RngUnavailable(f"RNG unavailable: {self._failure}")
            try:
                self._catch_up()
                return self._bytes(n)
            except RngError as exc:
                self._failure = str(exc)
                raise RngUnavailable(f"RNG unavailable: {exc}") from exc

    def stream_into(self, out: memoryview) -> None:
        """Fill ``out`` with raw DRBG output, one generate request of at most 2^19 bits
        per 64 KiB, written straight into it: the bulk path of `etg rng stream`."""
        with self._lock:
            if self._failure is not None:
                raise RngUnavailable(f"RNG unavailable: {self._failure}")
            try:
                self._catch_up()
                self._drbg.stream_into(out)
            except RngError as exc:
                self._failure = str(exc)
                raise RngUnavailable(f"RNG unavailable: {exc}") from exc

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Stop cycling and uninstantiate (zeroize) the DRBG; the object is unusable."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            if self._drbg.alive:
                self._drbg.uninstantiate()
            self._failure = self._failure or "closed"

    def __enter__(self) -> TableRng:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def status(self) -> dict[str, Any]:
        """Non-secret facts for diagnostics (never the state)."""
        return {
            "mechanism": self.mechanism,
            "entropy": self.source_name,
            "draws": self.draws,
            "cycles": self.cycles,
            "cycle_hz": self.cycle_hz,
            "reseeds": self._drbg.reseeds,
            "failure": self._failure,
        }

    def operating_state(self) -> list[tuple[str, str]]:
        """What a lab reads of the RNG as it ran (never its state): the entropy source
        and the min-entropy it claims, its conditioning, the SP 800-90B health tests'
        cutoffs and the samples they passed, prediction resistance, the reseed interval
        and the reseeds done. Rows (label, text), as a report prints them."""
        d = self._drbg
        src = d.source
        rows = [("RNG entropy source", self.source_name)]
        tests = getattr(src, "tests", None)
        h = getattr(src, "min_entropy", None)
        if tests is None or h is None:
            rows += [("RNG claimed entropy", "none: a fixed bench seed expanded by "
                      "HMAC-SHA-256 (not a noise source; production refuses it)"),
                     ("RNG health tests", "none apply to a bench seed")]
        else:
            how = ("full entropy claimed, used as delivered" if h >= 8 else
                   f"conditioned with HMAC-SHA-256, ceil(320 / {h:g}) samples per 32-byte "
                   "block")
            rows += [("RNG claimed entropy", f"{h:g} bits per 8-bit sample ({how})"),
                     ("RNG health tests", f"SP 800-90B 4.4, false-alarm probability "
                      f"2^-{tests.alpha_log2:g}: repetition count cutoff C = {tests.rct_c}; "
                      f"adaptive proportion window W = {tests.apt_w}, cutoff C = "
                      f"{tests.apt_c}; {tests.samples:,} samples tested (the 1,024 "
                      "start-up samples included), "
                      + ("no failure" if getattr(src, "failure", None) is None else
                         f"FAILED: {getattr(src, 'failure', '')}"))]
        rows.append(("RNG reseeding", (
            f"reseed from the entropy source every {d.reseed_interval:,} generate requests "
            f"(reseed interval); {d.reseeds:,} reseeds done, {d.reseed_counter - 1:,} "
            "requests since the last reseed or the instantiation"
            + ("; instantiated with prediction resistance (available on request; the "
               "draws do not request it)" if d.prediction_resistance else ""))))
        return rows

    # -- internals -------------------------------------------------------------------------

    def _bytes(self, n: int) -> bytes:
        if n <= MAX_REQUEST_BYTES:
            return self._drbg.generate(n)
        parts = []
        while n > 0:
            k = min(n, MAX_REQUEST_BYTES)
            parts.append(self._drbg.generate(k))
            n -= k
        return b"".join(parts)

    def _bits(self, min_read: int = _DRAW_READ) -> BitSource:
        """A fresh bit reader on the DRBG: leftover bits die with it, never reused."""
        return BitSource(self._drbg.generate, min_read)

    def _operation(self) -> _Operation:
        return _Operation(self)

    def _catch_up(self) -> None:
        """Pay the cycles the clock has run up since the last payment, in one generate
        request of 16 bytes per cycle due (the caller holds the lock). One request of
        k blocks instead of k requests: the same time dependence, a fraction of the cost."""
        if self.cycle_hz <= 0:
            return
        due = int((self._clock() - self._cycle_epoch) * self.cycle_hz) - self.cycles
        while due > 0:
            k = min(due, MAX_REQUEST_BYTES // _CYCLE_BYTES)
            self._drbg.generate(k * _CYCLE_BYTES)
            self.cycles += k
            due -= k

    def _cycle(self) -> None:
        while not self._stop.wait(CYCLE_TICK_S):
            with self._lock:
                if self._failure is not None or not self._drbg.alive:
                    return
                try:
                    self._catch_up()
                except RngError as exc:
                    self._failure = f"background cycling: {exc}"
                    return


class _Operation:
    """Holds the lock for one operation and turns any RNG error into RngUnavailable."""

    def __init__(self, rng: TableRng) -> None:
        self.rng = rng

    def __enter__(self) -> None:
        self.rng._lock.acquire()
        if self.rng._failure is not None:
            cause = self.rng._failure
            self.rng._lock.release()
            raise RngUnavailable(f"RNG unavailable: {cause}")
        try:
            self.rng._catch_up()  # the draw starts from the state its moment gives
        except RngError as exc:
            self.rng._failure = f"background cycling: {exc}"
            self.rng._lock.release()
            raise RngUnavailable(f"RNG unavailable: {exc}") from exc

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        try:
            if isinstance(exc, RngError) and not isinstance(exc, RngUnavailable):
                self.rng._failure = str(exc)
                raise RngUnavailable(f"RNG unavailable: {exc}") from exc
        finally:
            self.rng._lock.release()


def _personalization(seeded: bool) -> bytes:
    if seeded:
        return b"ETG table RNG"
    return b"ETG table RNG|%d|%d" % (os.getpid(), time.time_ns())


def open_table_rng(settings: Any, *, bench: bool, selftest: bool = True) -> TableRng:
    """Self-test and open the table's RNG from the ``[rng]`` settings.

    ``settings`` is :class:`firmware.config.RngSettings` (mechanism, entropy,
    reseed_interval, cycle_hz, seed_hex). ``seed_hex`` is honoured only when ``bench``.
    ``selftest=False`` skips the power-up self-test for a process that has already run
    (and recorded) it for this mechanism: a lab run opens one seeded DRBG per task.
    """
    seed: bytes | None = None
    if settings.seed_hex:
        if not bench:
            raise SeedRefused(
                "rng.seed_hex: a fixed RNG seed is a bench power; production mode refuses it"
            )
        try:
            seed = bytes.fromhex(settings.seed_hex)
        except ValueError:
            raise SeedRefused("rng.seed_hex: must be hexadecimal digits") from None
    mechanism = settings.mechanism
    if mechanism not in MECHANISMS:
        raise RngUnavailable(f"unknown DRBG mechanism {mechanism!r}")
    failed = ([c for c in power_up_selftest(mechanism, POWER_UP_KAT_CASES) if not c.ok]
              if selftest else [])
    if failed:
        raise RngUnavailable("RNG power-up self-test failed: " + "; ".join(
            f"{c.name}: {c.detail}" for c in failed))
    try:
        # the claim comes with the settings (their assessment), in every process
        source = open_source(settings.entropy, seed, claim=claim_of_settings(settings))
        drbg = MECHANISMS[mechanism](
            source,
            personalization=_personalization(seed is not None),
            prediction_resistance=True,
            reseed_interval=settings.reseed_interval,
        )
    except RngError as exc:
        raise RngUnavailable(f"RNG unavailable: entropy source: {exc}") from exc
    cycle_hz = 0.0 if seed is not None else float(settings.cycle_hz)
    return TableRng(drbg, source.name, cycle_hz=cycle_hz)

