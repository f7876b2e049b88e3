"""The table's seats as SAS gaming machines (docs/sas.md): the snapshots a host reads
(board), the requests it makes through the controller's inbox (requests, commands), the
ROM signature (signature) and the link's start (service)."""
