"""The SP 800-90A Rev.1 DRBG functions shared by every mechanism (section 9).

A :class:`Drbg` object *is* one instantiation: constructing it runs the Instantiate
function, :meth:`Drbg.reseed` and :meth:`Drbg.generate` are the Reseed and Generate
functions with their checks (request size, security strength, input lengths, prediction
resistance, reseed counter), and :meth:`Drbg.uninstantiate` zeroizes the working state.
The mechanisms (:mod:`rng.hmac_drbg`, :mod:`rng.ctr_drbg`) supply only the algorithms of
section 10, so the rules of section 9 are written once.

Entropy and nonce come from an :class:`EntropySource`; the KAT harness and tests pass a
scripted source that hands out the vectors' values in the order the standard asks for
them (entropy input, then nonce; then one entropy input per reseed).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Protocol

from rng.errors import DrbgError

#: SP 800-90A Table 2/3: at most 2^19 bits per Generate request.
MAX_REQUEST_BYTES = (1 << 19) // 8
#: Table 2/3: reseed_interval may not exceed 2^48 requests.
MAX_RESEED_INTERVAL = 1 << 48
#: Table 2/3: personalization string and additional input at most 2^35 bits.
MAX_INPUT_BYTES = (1 << 35) // 8
#: The strength every mechanism here supports (AES-256, SHA-256).
SECURITY_STRENGTH = 256


class EntropySource(Protocol):
    """Get_entropy_input of SP 800-90A 8.6.5: full-entropy bytes (or an error)."""

    name: str

    def get_entropy(self, n_bytes: int) -> bytes:
        """Exactly ``n_bytes`` bytes carrying ``8 * n_bytes`` bits of entropy, or raise
        :class:`~rng.errors.EntropyError`."""
        ...


class Drbg(ABC):
    """One instantiation of an SP 800-90A DRBG with security strength 256."""

    mechanism: ClassVar[str]
    #: Bytes of entropy input asked for at instantiate and reseed.
    entropy_bytes: ClassVar[int]
    #: Bytes of nonce asked for at instantiate (0: the mechanism takes none).
    nonce_bytes: ClassVar[int]
    #: Longest personalization string / additional input the mechanism accepts.
    max_input_bytes: ClassVar[int] = MAX_INPUT_BYTES

    def __init__(
        self,
        source: EntropySource,
        *,
        personalization: bytes = b"",
        prediction_resistance: bool = False,
        reseed_interval: int = MAX_RESEED_INTERVAL,
        security_strength: int = SECURITY_STRENGTH,
    ) -> None:
        """Instantiate_function (9.1): entropy input and nonce from ``source``."""
        if security_strength > SECURITY_STRENGTH or security_strength <= 0:
            raise DrbgError(f"security strength {security_strength} not supported (max 256)")
        if not 1 <= reseed_interval <= MAX_RESEED_INTERVAL:
            raise DrbgError(f"reseed interval must be in [1, 2^48], got {reseed_interval}")
        self._check_input("personalization string", personalization)
        self.source = source
        self.prediction_resistance = prediction_resistance
        self.reseed_interval = reseed_interval
        self.security_strength = security_strength
        self.reseed_counter = 0
        self.reseeds = 0  # reseeds since instantiation (for the record, not the standard)
        self._alive = False
        entropy = self._entropy(self.entropy_bytes)
        nonce = self._entropy(self.nonce_bytes) if self.nonce_bytes else b""
        self._instantiate_algorithm(entropy, nonce, personalization)
        self.reseed_counter = 1
        self._alive = True

    # -- the functions of section 9 -------------------------------------------------------

    def reseed(self, additional_input: bytes = b"") -> None:
        """Reseed_function (9.2): fresh entropy input mixed with ``additional_input``."""
        self._check_alive()
        self._check_input("additional input", additional_input)
        entropy = self._entropy(self.entropy_bytes)
        self._reseed_algorithm(entropy, additional_input)
        self.reseed_counter = 1
        self.reseeds += 1

    def generate(
        self,
        n_bytes: int,
        additional_input: bytes = b"",
        *,
        prediction_resistance: bool = False,
    ) -> bytes:
        """Generate_function (9.3.1): ``n_bytes`` pseudorandom bytes (at most 2^19 bits).

        With ``prediction_resistance`` the DRBG reseeds from the entropy source before
        generating, so the output does not depend on any state an attacker might hold.
        """
        return self._generate(n_bytes, additional_input, prediction_resistance)

    def generate_into(self, out: memoryview | bytearray) -> None:
        """Generate_function for a bulk reader: the bits :meth:`generate` returns for a
        request of ``len(out)`` bytes (no additional input), written into ``out``.

        WHY: `etg rng stream` fills one large preallocated buffer with consecutive
        requests and hands it to one write(2): no allocation and no copy per request.
        """
        self._generate(len(out), b"", False, out)

    def stream_into(self, out: memoryview | bytearray) -> None:
        """Consecutive Generate requests of 2^19 bits (the last one shorter; none for an
        empty ``out``) filling ``out``: what :meth:`generate_into` gives chunk by chunk.
        A mechanism may run them in one loop of its own (CTR_DRBG does)."""
        view = memoryview(out)
        for at in range(0, len(view), MAX_REQUEST_BYTES):
            self.generate_into(view[at:at + MAX_REQUEST_BYTES])

    def _generate(
        self,
        n_bytes: int,
        additional_input: bytes,
        prediction_resistance: bool,
        out: memoryview | bytearray | None = None,
    ) -> bytes:
        """The checks and reseed loop of 9.3.1 around one mechanism's generate algorithm
        (into ``out`` when given; the bits are then not returned)."""
        if not self._alive:
            self._check_alive()
        if not 0 <= n_bytes <= MAX_REQUEST_BYTES:
            raise DrbgError(f"request of {n_bytes} bytes exceeds 2^19 bits per generate")
        if additional_input:
            self._check_input("additional input", additional_input)
        if prediction_resistance and not self.prediction_resistance:
            raise DrbgError("prediction resistance requested but not instantiated with it")
        reseed_required = False
        while True:
            if reseed_required or prediction_resistance:
                self.reseed(additional_input)
                additional_input = b""
                prediction_resistance = False
            if out is not None:
                if self._generate_into_algorithm(out, additional_input):
                    self.reseed_counter += 1
                    return b""
            elif (bits := self._generate_algorithm(n_bytes, additional_input)) is not None:
                self.reseed_counter += 1
                return bits
            reseed_required = True

    def uninstantiate(self) -> None:
        """Uninstantiate_function (9.4): overwrite the working state; the object is dead.

        Python cannot promise that no copy of the key survives (the ``cryptography``
        contexts and immutable ``bytes`` copies are freed, not wiped); the working state
        held here is overwritten with zeros.
        """
        self._zeroize()
        self._alive = False
        self.reseed_counter = 0

    @property
    def alive(self) -> bool:
        return self._alive

    # -- what each mechanism supplies (section 10) -----------------------------------------

    @abstractmethod
    def _instantiate_algorithm(self, entropy: bytes, nonce: bytes, pers: bytes) -> None: ...

    @abstractmethod
    def _reseed_algorithm(self, entropy: bytes, additional_input: bytes) -> None: ...

    @abstractmethod
    def _generate_algorithm(self, n_bytes: int, additional_input: bytes) -> bytes | None:
        """The bits, or None when the reseed counter says a reseed is required first."""

    def _generate_into_algorithm(self, out: memoryview | bytearray,
                                 additional_input: bytes) -> bool:
        """:meth:`_generate_algorithm` into ``out`` (False: reseed first); mechanisms
        may write there directly."""
        bits = self._generate_algorithm(len(out), additional_input)
        if bits is None:
            return False
        out[:] = bits
        return True

    @abstractmethod
    def _zeroize(self) -> None: ...

    @abstractmethod
    def state_is_zero(self) -> bool:
        """True when the working state holds only zeros (the uninstantiate self-test)."""

    # -- helpers ---------------------------------------------------------------------------

    def _entropy(self, n_bytes: int) -> bytes:
        data = self.source.get_entropy(n_bytes)
        if len(data) != n_bytes:
            raise DrbgError(
                f"entropy source {self.source.name!r} returned {len(data)} bytes, not {n_bytes}"
            )
        return data

    def _check_input(self, what: str, data: bytes) -> None:
        if len(data) > self.max_input_bytes:
            raise DrbgError(
                f"{what} of {len(data)} bytes is longer than {self.mechanism} accepts "
                f"({self.max_input_bytes} bytes)"
            )

    def _check_alive(self) -> None:
        if not self._alive:
            raise DrbgError(f"{self.mechanism}: used after uninstantiate")

    def _due_for_reseed(self) -> bool:
        return self.reseed_counter > self.reseed_interval


class ScriptedEntropy:
    """An entropy source that hands out given byte strings in order (KATs and tests).

    Asking for a length different from the next scripted value is an error: it means the
    mechanism asks for entropy in a way the vectors (or the test) did not expect.
    """

    name = "scripted"

    def __init__(self, *values: bytes) -> None:
        self._values = list(values)
        self.requests: list[int] = []

    def get_entropy(self, n_bytes: int) -> bytes:
        self.requests.append(n_bytes)
        if not self._values:
            raise DrbgError("scripted entropy source exhausted")
        value = self._values.pop(0)
        if len(value) != n_bytes:
            raise DrbgError(f"scripted entropy: asked for {n_bytes} bytes, next has {len(value)}")
        return value

    @property
    def remaining(self) -> int:
        return len(self._values)
