"""Shoe reader models, one registry: a name -> how that reader puts a frame on the wire
and how its bytes are taken apart again.

The frame type (:class:`~drivers.shoe.framing.Frame`) is the ICD's meaning only (sequence,
type, fields); the bytes are the model's. The session (``ShoeSession``), the simulator
(``ShoeMachine``), the link's retransmissions and the tests build their decoder and
encoder from the model here (one :class:`~etgcore.registry.Registry`, the panel
backends' type too; python-can's interfaces, gpiozero's pin factories keep a registry the
same way), and tests/shoe/test_shoe_models.py runs one suite over every registered model.
A new reader model is one module that registers its entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from drivers.shoe.framing import Decoder, DecoderStats, Frame, encode_body, frame_bytes
from etgcore.registry import Registry


class FrameDecoder(Protocol):
    """What a model's decoder offers: ``feed(bytes) -> frames`` (never raises, counts
    what it drops in ``stats``) and ``reset`` (forget a partial frame)."""

    stats: DecoderStats

    def feed(self, data: bytes) -> list[Frame]: ...
    def reset(self) -> None: ...


@dataclass(frozen=True)
class ReaderModel:
    name: str
    #: a frame -> its bytes on the wire
    encode: Callable[[Frame], bytes]
    #: a fresh incremental decoder of this model's bytes
    decoder: Callable[[], FrameDecoder]
    #: a frame -> its bytes with the check value wrong, the rest intact: the simulator's
    #: bad-crc fault (only the model knows where its check sits)
    corrupt: Callable[[Frame], bytes]
    doc: str


MODELS: Registry[ReaderModel] = Registry("shoe reader model", lambda m: m.name)
register_model = MODELS.register
#: the registered model ``name``, or the one-line UserError naming those there are
reader_model = MODELS.lookup


def default_model() -> ReaderModel:
    """The model a driver or simulator speaks when none is given (:data:`DEFAULT`; the
    driver's test suite runs once with each registered model as the default)."""
    return reader_model(DEFAULT)


#: the name of the model used when none is given
DEFAULT = "icd"

#: the shoe ICD's own model (docs/shoe-icd.md §2): ASCII frames, CRC-16/CCITT-FALSE
def _icd_bad_crc(frame: Frame) -> bytes:
    return encode_body(frame.body, corrupt_crc=True)


ICD = register_model(ReaderModel(
    "icd", frame_bytes, Decoder, _icd_bad_crc,
    "shoe ICD §2: $SEQ,TYPE[,FIELD]*CRC CR LF, ASCII"))
