"""The SAS numbers this link uses: meter codes, exception codes, AFT status codes, and
which long poll reads which meter. Each is cited in docs/sas.md with its public source.
"""

from __future__ import annotations

# -- meters (SAS meter codes; "credits" are cents: one credit is one cent) ------------
COIN_IN = 0x0000            # total coin in: every stake of settled rounds
COIN_OUT = 0x0001           # total coin out: everything settled rounds paid back
JACKPOT = 0x0002            # total jackpot (the table pays none by hand: 0)
HANDPAID_CANCELLED = 0x0003  # hand-paid cancelled credits (none: 0)
CANCELLED = 0x0004          # total cancelled credits: credits transferred out
GAMES_PLAYED = 0x0005
GAMES_WON = 0x0006
GAMES_LOST = 0x0007
CURRENT_CREDITS = 0x000C
ELECTRONIC_IN = 0x0017      # electronic transfers to the machine: every credit in
ELECTRONIC_OUT = 0x0018     # electronic transfers to the host: every credit out
TOTAL_WON = 0x0022          # coin out + jackpot
TOTAL_DROP = 0x0024         # total drop: here only electronic in
#: the most a 4-byte BCD field carries: a seat never holds more through AFT (a balance
#: must not roll over in 1A the way a lifetime meter may)
MAX_FOUR_BYTE = 99_999_999
#: not meter codes of the protocol's table: the counts long poll 1C carries
DOOR_OPENS = -1
POWER_RESETS = -2

SUPPORTED_METERS = frozenset({COIN_IN, COIN_OUT, JACKPOT, HANDPAID_CANCELLED, CANCELLED,
                              GAMES_PLAYED, GAMES_WON, GAMES_LOST, CURRENT_CREDITS,
                              ELECTRONIC_IN, ELECTRONIC_OUT, TOTAL_WON, TOTAL_DROP})
#: at most this many meters asked in one selected (2F) / extended (6F, AF) meters poll,
#: as the protocol allows; a poll asking more is ignored (and counted): an AF asking 24
#: would need an answer longer than its one length byte can say
MAX_SELECTED = 10
MAX_EXTENDED = 12

#: the single-meter long polls (answer: address, command, 4-byte BCD, CRC)
SINGLE_METER_POLLS = {0x10: CANCELLED, 0x11: COIN_IN, 0x12: COIN_OUT, 0x13: TOTAL_DROP,
                      0x14: JACKPOT, 0x15: GAMES_PLAYED, 0x16: GAMES_WON, 0x17: GAMES_LOST,
                      0x1A: CURRENT_CREDITS}
#: the meter-set long polls, in the order their answer carries them
METER_SET_POLLS = {
    0x0F: (CANCELLED, COIN_IN, COIN_OUT, TOTAL_DROP, JACKPOT, GAMES_PLAYED),
    0x1C: (COIN_IN, COIN_OUT, TOTAL_DROP, JACKPOT, GAMES_PLAYED, GAMES_WON, DOOR_OPENS,
           POWER_RESETS),
}

# -- exceptions (the general poll's answer) ------------------------------------------
NO_EXCEPTION = 0x00
SLOT_DOOR_OPEN = 0x11
SLOT_DOOR_CLOSED = 0x12
AC_POWER_APPLIED = 0x17
AC_POWER_LOST = 0x18
GENERAL_TILT = 0x20
AFT_TRANSFER_COMPLETE = 0x69
BUFFER_OVERFLOW = 0x70
GAME_STARTED = 0x7E
GAME_ENDED = 0x7F
OUT_OF_SERVICE = 0x86       # the table closed (disabled) for play
#: the exception queue's depth (the protocol asks for at least 20)
QUEUE_DEPTH = 32

# -- AFT -----------------------------------------------------------------------------
AFT_IN_HOUSE_TO_MACHINE = 0x00
AFT_IN_HOUSE_TO_HOST = 0x80
AFT_FULL_SUCCESS = 0x00
AFT_PENDING = 0x40
AFT_TXID_NOT_UNIQUE = 0x81     # the id was used for another transfer
AFT_INVALID_FUNCTION = 0x82    # unsupported type, restricted credits, nothing to move
AFT_OVER_LIMIT = 0x84          # above the machine's transfer limit
AFT_UNABLE = 0x87              # disabled, tilted, a round in play, not enough credits
AFT_BUSY = 0xC0                # another transfer of this machine is in progress
AFT_UNSUPPORTED_CODE = 0xC1
AFT_REGKEY_MISMATCH = 0x89    # registered, and the request's key is not the registered one
AFT_ASSET_MISMATCH = 0x93
AFT_NO_INFO = 0xFF
AFT_INTERROGATE = (0xFE, 0xFF)
AFT_REQUEST = (0x00, 0x01)  # full only / partial allowed (the table moves all or nothing)
NO_RECEIPT = 0xFF


def game_configuration() -> bytes:
    """Long poll 1F's data: game id, additional id, denomination (01: one cent), max
    bet, progressive group, game options, paytable id, base percentage."""
    return (b"BJ" + b"000" + bytes((0x01, 0x00, 0x00)) + bytes(2) + b"ETG46 " + b"0000")
