"""The casino floor: the table's floor link and the floor service.

A table reports to the floor through an MQTT broker (Mosquitto, TLS, one client
certificate per table). What it reports leaves through an outbox written in the same
journal transaction as the records it reports (:mod:`firmware.journal.outbox`), is published
by :mod:`firmware.floor.link`, and is applied exactly once by the floor service
(:mod:`firmware.floor.ledger`, :mod:`firmware.floor.serve`). The floor watches and may close
a table; it never decides a round.

Nothing here is imported by a table that has no floor link configured.
"""
