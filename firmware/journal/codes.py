"""Stable numeric codes of the journal's event log.

The numbers are part of the audit record: a regulator's tool or a floor system may key on
them, so a code is never reused or renumbered. New events get new numbers.
"""

from __future__ import annotations

from enum import IntEnum


class EventCode(IntEnum):
    POWER_UP = 100
    POWER_DOWN = 101
    READY = 102
    RECOVERED = 103  # an interrupted round was resumed from the journal
    RECOVERY_HELD = 104  # an interrupted round could not be resumed: held in tilt

    TILT = 200
    TILT_CLEARED = 201
    TILT_REPEATED = 202  # the same tilt again and again in one round: escalated

    SHOE_FAULT = 210  # ERR frame: MISREAD, DOUBLE, JAM, SENSOR
    SHOE_LID_OPEN = 211  # ERR,LID: tamper
    SHOE_LINK_DOWN = 212
    SHOE_LINK_UP = 213
    SHOE_REBOOT = 214  # HEL in the middle of a round
    SHOE_NEW = 215  # a new shoe was loaded (SHUFFLE)
    SHOE_UNEXPECTED_CARD = 216
    SHOE_CUT_CARD = 217
    SHOE_EMPTY = 218
    SHOE_MISMATCH = 219  # after a restart the shoe cannot be the engine's: a new shoe is due
    SHOE_PROTOCOL = 220  # a frame the table refused (malformed, unknown type or ERR code)

    ROUND_VOID = 300

    CONFIG_IN_FORCE = 400  # hashes of the configuration at every start
    CONFIG_CHANGE = 401  # the hashes differ from the previous start

    RNG_SELFTEST_PASS = 500
    RNG_SELFTEST_FAIL = 501
    RNG_FAILURE = 502

    KEY_RECALL = 600  # attendant key switch turned
    KEY_VOID = 601  # supervisor key switch turned
    DOOR_OPEN = 602
    STUCK_KEY = 603

    JOURNAL_FAILURE = 700
    DISPLAY_FAILURE = 701
    INTERNAL_ERROR = 702  # an exception the controller caught: the round tilts (INTERNAL)
    JOURNAL_WITNESSED = 710  # at start the floor's acknowledgement agreed with the journal
    JOURNAL_UNWITNESSED = 711  # a floor is configured but its acknowledgement was not had
    HISTORY_PROVEN = 712  # the engine's replay of the history before the last checkpoint
    HISTORY_UNPROVEN = 713  # that proof did not finish (killed, stopped, deadline): retried
    CLOCK_BACKWARDS = 714  # the clock read earlier than the journal's last record
    START_REFUSED = 715  # a start was refused: the journal changed during its proof
    START_UNFINISHED = 716  # the last start has no READY and no stop: killed or refused
    REFUSAL_NOTE_UNVERIFIED = 717  # a refusal note that is not a genuine one (evidence)

    CREDITS_IN = 800
    CREDITS_OUT = 801

    SOFTWARE_VERIFIED = 900
    SOFTWARE_VERIFY_FAILED = 901

    FLOOR_COMMAND = 1000  # a signed floor command for this table, taken
    FLOOR_COMMAND_REFUSED = 1001  # a floor command refused (signature, table, replay)
    TABLE_CLOSED = 1002  # the floor's disable took effect: no wagers until enabled
    TABLE_OPENED = 1003  # the floor enabled the table again

    SAS_EXCEPTION_TAKEN = 1100  # a SAS host took the seat's exceptions up to a record
    SAS_HOST_LOST = 1101  # no SAS poll for sas.host_lost_s
    SAS_HOST_BACK = 1102  # the SAS host polls again
    SAS_TRANSFER_REFUSED = 1103  # an AFT transfer the table refused (with why)
    SAS_LINK_RESTARTED = 1104  # a line's SAS link process ended and was started again
    SAS_MARKS_REFUSED = 1105  # the SAS link refused to start: its marks path is not its file

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")
