"""`etg verify`: prove what software this table runs.

Without options: recompute the SHA-256 of every installed program file and compare with
the signed manifest of the installed release (``/opt/etg/current/MANIFEST.json``),
whose signature is checked against the table's release key (``/etc/etg/release.pub``).
With ``--seed HEX``: print the seeded HMAC-SHA256 a lab compares with its own value
(:mod:`deploy.seeded_hmac` defines it).

Exit codes: 0 authentic, 1 not authentic (a file changed, missing or added; a bad
signature; no manifest), 2 bad input.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from etgcore.errors import exit_code
from etgcore.options import add_json, print_json

log = logging.getLogger("etg.verify")


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "verify",
        help="software authentication: check installed files, or a lab's seeded HMAC",
        description="Check every installed program file against the signed release manifest;"
        " with --seed, print the HMAC-SHA256 over all program files keyed by a lab's seed"
        " (docs/deploy.md).",
        parents=[common],
    )
    p.add_argument(
        "--root", metavar="DIR",
        help="release tree to check (default: the one this program runs from)",
    )
    p.add_argument(
        "--pubkey", metavar="PUB",
        help="release public key (default: $ETG_RELEASE_PUBKEY, else /etc/etg/release.pub)",
    )
    p.add_argument("--seed", metavar="HEX", help="print the seeded HMAC-SHA256 instead")
    add_json(p, "one JSON object: ok, release, files, manifest sha256, key id (a refusal: "
             "ok false, error, problems; exit 1); with --seed: hmac, files, root")
    p.set_defaults(func=_verify)


def _verify(args: argparse.Namespace) -> int:
    from deploy.errors import ReleaseInputError, SoftwareAuthenticationError
    from deploy.manifest import installed_root, verify_installed
    from deploy.program import MANIFEST_NAME

    if args.seed is not None:
        from deploy.seeded_hmac import hmac_of_tree, parse_seed

        seed = parse_seed(args.seed)
        root = Path(args.root) if args.root else installed_root()
        if not root.is_dir():
            raise ReleaseInputError(f"--root {root}: no such directory")
        if args.root is None and not (root / MANIFEST_NAME).is_file():
            raise ReleaseInputError(
                f"{root} is not an installed release (no {MANIFEST_NAME});"
                " pass --root DIR with an unpacked program tree"
            )
        digest, count = hmac_of_tree(root, seed)
        log.info("seeded HMAC-SHA256 over %d files under %s", count, root)
        if args.json:
            print_json({"hmac_sha256": digest, "files": count, "root": str(root)})
        else:
            print(digest)
        return 0

    try:
        release = verify_installed(args.root, args.pubkey)
    except SoftwareAuthenticationError as exc:
        if args.json:
            print_json({"ok": False, "error": str(exc), "problems": [
                {"kind": p.kind, "path": p.path} for p in exc.problems]})
            return exit_code(exc)
        for problem in exc.problems:  # the full list; the error line names the first few
            print(problem)
        raise
    m = release.manifest
    if args.json:
        print_json({"ok": True, "root": str(release.root), "release": release.release_id,
                    "files": len(m.files), "built_at": m.built_at,
                    "manifest_sha256": release.manifest_sha256, "key_id": release.key_id})
        return 0
    print(
        f"OK: {release.root} is {release.release_id}: all {len(m.files)} program files match"
        f" the signed manifest (built {m.built_at})"
    )
    print(f"manifest sha256 {release.manifest_sha256}")
    print(f"signed by key   {release.key_id}")
    return 0
