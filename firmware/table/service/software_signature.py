"""The table's answer when the floor asks for its seeded software signature.

The same computation as ``etg verify --seed`` (:mod:`deploy.seeded_hmac`): HMAC-SHA256 keyed
by the floor's fresh seed over every file of the installed release, so the table cannot
answer from a stored value — it must read the files it holds. The command line hands this
function to the floor link; the floor package never imports the release tooling.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def seeded_signature(seed: bytes, root: Path | None = None) -> dict[str, Any]:
    """``{"hmac", "files", "release"}`` of the release installed at ``root`` (default: the
    tree this program runs from); raises when that is not an installed release."""
    from deploy.manifest import installed_root, parse_manifest, read_signed_manifest, release_id
    from deploy.seeded_hmac import MAX_SEED_BYTES, hmac_of_tree

    if not 1 <= len(seed) <= MAX_SEED_BYTES:
        raise ValueError(f"a seed of {len(seed)} bytes (1 to {MAX_SEED_BYTES})")
    tree = root if root is not None else installed_root()
    data, _signature = read_signed_manifest(tree)  # not a release: says so
    digest, count = hmac_of_tree(tree, seed)
    return {"hmac": digest, "files": count, "release": release_id(parse_manifest(data), data)}
