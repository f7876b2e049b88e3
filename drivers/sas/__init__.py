"""The SAS gaming-machine link (issue 46): so far only the protocol's CRC."""
