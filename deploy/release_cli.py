"""`etg release`: make release keys, build signed bundles, verify them.

Exit codes: 0 done, 1 the bundle is refused (not authentic), 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from etgcore.errors import exit_code
from etgcore.options import add_json, print_json


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "release",
        help="signed release bundles: keygen, build, verify, hmac",
        description="Make Ed25519 release keys, build signed release bundles and verify them"
        " (docs/deploy.md).",
        parents=[common],
    )
    rsub = p.add_subparsers(dest="release_command", metavar="ACTION")
    rsub.required = True

    keygen = rsub.add_parser(
        "keygen", parents=[common], help="write NAME.key (PKCS#8 PEM) and NAME.pub",
        description="Make an Ed25519 release key pair: NAME.key (PKCS#8 PEM, mode 0600, keep"
        " it offline) and NAME.pub (SubjectPublicKeyInfo PEM, goes to every table).",
    )
    keygen.add_argument("--out", required=True, metavar="NAME", help="path and base name")
    keygen.add_argument(
        "--encrypt", action="store_true",
        help="encrypt the private key with the passphrase in $ETG_RELEASE_KEY_PASSPHRASE",
    )
    keygen.set_defaults(func=_keygen)

    build = rsub.add_parser(
        "build", parents=[common], help="build a signed bundle of the program",
        description="Pack the program files (packages etgcore, firmware, drivers, ui, rng, deploy"
        " and pyproject.toml, README.md, table.toml) with a signed manifest of their SHA-256 into"
        " one signed bundle.",
    )
    build.add_argument("--key", required=True, metavar="KEY", help="the private key (NAME.key)")
    build.add_argument("--out", required=True, metavar="FILE", help="bundle to write (.etgrel)")
    build.add_argument(
        "--source", default=".", metavar="DIR", help="project root to pack (default: .)"
    )
    build.set_defaults(func=_build)

    verify = rsub.add_parser(
        "verify", parents=[common], help="verify a bundle against a public key",
        description="Check the bundle's signature over every byte, its manifest's signature"
        " and every file's SHA-256. Exit 1 if the bundle is refused.",
    )
    verify.add_argument("file", metavar="FILE", help="the bundle")
    verify.add_argument("--pubkey", required=True, metavar="PUB", help="the public key (PEM)")
    verify.add_argument("--list", action="store_true", help="also list every file and hash")
    add_json(verify, "one JSON object: ok, release, files (with --list: each path, size, "
             "sha256), manifest sha256, key id (refused: ok false, error; exit 1)")
    verify.set_defaults(func=_verify)

    lab = rsub.add_parser(
        "hmac", parents=[common], help="the seeded HMAC a table running this bundle must show",
        description="Verify the bundle, then print the HMAC-SHA256 keyed by SEED over its"
        " program files: the value `etg verify --seed SEED` must print on a table running it.",
    )
    lab.add_argument("file", metavar="FILE", help="the bundle")
    lab.add_argument("--pubkey", required=True, metavar="PUB", help="the public key (PEM)")
    lab.add_argument("--seed", required=True, metavar="HEX", help="the lab's seed, hex")
    lab.set_defaults(func=_hmac)


def _keygen(args: argparse.Namespace) -> int:
    from pathlib import Path

    from deploy import signing

    folder = Path(args.out).parent
    missing = not folder.exists()
    key, pub, kid = signing.generate(args.out, encrypt=args.encrypt)
    if missing:  # as every --out says it (etgcore.errors.output_dir); this one is private
        sys.stderr.write(f"etg: --out: created the folder {folder} (mode 0700)\n")
    print(f"wrote {key} (private, keep offline) and {pub} (public); key id {kid}")
    return 0


def _build(args: argparse.Namespace) -> int:
    from deploy.bundle import build_bundle
    from etgcore.errors import output_file

    built = build_bundle(args.source, args.key, output_file(args.out))
    src = built.manifest.source or {}
    dirty = " (built from a tree with uncommitted changes)" if src.get("git_dirty") else ""
    print(
        f"wrote {built.path}: {built.release_id}, {len(built.manifest.files)} files,"
        f" {built.size} bytes{dirty}"
    )
    print(f"manifest sha256 {built.manifest_sha256}")
    print(f"signed by key   {built.key_id}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    from deploy.bundle import verify_bundle
    from deploy.errors import BundleRefused

    try:
        verified = verify_bundle(args.file, args.pubkey)
    except BundleRefused as exc:
        if not args.json:
            raise
        print_json({"ok": False, "file": str(args.file), "error": str(exc)})
        return exit_code(exc)
    if args.json:
        m = verified.manifest
        doc = {"ok": True, "file": str(args.file), "release": verified.release_id,
               "files": len(m.files), "built_at": m.built_at, "key_id": verified.key_id,
               "manifest_sha256": verified.manifest_sha256}
        if args.list:
            doc["file_list"] = [{"path": f.path, "size": f.size, "sha256": f.sha256}
                                for f in m.files]
        print_json(doc)
        return 0
    if args.list:
        for f in verified.manifest.files:
            print(f"{f.sha256}  {f.size:>8}  {f.path}")
    m = verified.manifest
    print(
        f"OK: {args.file} is {verified.release_id} ({len(m.files)} files, built {m.built_at}),"
        f" signed by key {verified.key_id}"
    )
    print(f"manifest sha256 {verified.manifest_sha256}")
    return 0


def _hmac(args: argparse.Namespace) -> int:
    from deploy.bundle import verify_bundle
    from deploy.seeded_hmac import hmac_of_entries, parse_seed

    seed = parse_seed(args.seed)
    verified = verify_bundle(args.file, args.pubkey)
    print(hmac_of_entries(seed, verified.contents.files.items()))
    return 0
