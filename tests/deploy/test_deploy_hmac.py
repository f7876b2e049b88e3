"""The seeded HMAC a lab takes in the field, reproduced independently.

§ 605a.4(c): the Bureau must be able to verify the control software for authenticity; a
lab's fresh seed makes the table hash the files it really holds.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from deploy.bundle import verify_bundle
from deploy.errors import DeployError
from deploy.seeded_hmac import hmac_of_entries, hmac_of_tree, parse_seed
from deploy.unpack import extract

SEED = "00112233445566778899aabbccddeeff0123456789abcdef"

# The shell procedure of docs/deploy.md, verbatim apart from the variables.
LAB_SCRIPT = r"""
set -eu
cd "$ROOT"
find . -type f ! -path ./MANIFEST.json ! -path ./MANIFEST.sig | sed 's|^\./||' | LC_ALL=C sort |
  while IFS= read -r f; do printf '%s\n%s\n' "$f" "$(stat -c %s "$f")"; cat "$f"; done |
  openssl dgst -sha256 -mac HMAC -macopt "hexkey:$SEED" | sed 's/^.*= //'
"""


def independent_hmac(root: Path, seed_hex: str) -> str:
    """Written from the definition in docs/deploy.md, sharing no code with deploy/."""
    paths = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
            if rel not in ("MANIFEST.json", "MANIFEST.sig"):
                paths.append(rel)
    message = b""
    for rel in sorted(paths, key=lambda s: s.encode("utf-8")):
        content = (root / rel).read_bytes()
        message += rel.encode("utf-8") + b"\n" + str(len(content)).encode() + b"\n" + content
    return hmac.new(bytes.fromhex(seed_hex), message, hashlib.sha256).hexdigest()


@pytest.fixture
def installed(mini_bundle, keys, tmp_path) -> Path:
    dest, _ = extract(verify_bundle(mini_bundle, keys.pub).contents, tmp_path / "releases")
    return dest


def test_605a4c_seeded_hmac_matches_an_independent_computation(installed) -> None:
    digest, count = hmac_of_tree(installed, parse_seed(SEED))
    assert digest == independent_hmac(installed, SEED)
    assert count == len(list(p for p in installed.rglob("*") if p.is_file())) - 2


def test_605a4c_seeded_hmac_matches_the_documented_shell_procedure(installed) -> None:
    if shutil.which("openssl") is None or shutil.which("bash") is None:
        pytest.skip("openssl or bash is not installed")
    out = subprocess.run(
        ["bash", "-c", LAB_SCRIPT],
        env={**os.environ, "ROOT": str(installed), "SEED": SEED},
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert out == hmac_of_tree(installed, parse_seed(SEED))[0]


def test_bundle_gives_the_lab_the_expected_value(mini_bundle, keys, installed) -> None:
    """`etg release hmac` on the approved bundle equals `etg verify --seed` on the table."""
    contents = verify_bundle(mini_bundle, keys.pub).contents
    assert hmac_of_entries(parse_seed(SEED), contents.files.items()) == hmac_of_tree(
        installed, parse_seed(SEED)
    )[0]


@pytest.mark.parametrize(
    "change",
    ["rename", "move a byte between files", "add an empty file", "change one byte",
     "bytecode cache"],
)
def test_any_change_changes_the_hmac(installed, change) -> None:
    before = hmac_of_tree(installed, parse_seed(SEED))[0]
    a, b = installed / "rng" / "draw.py", installed / "rng" / "__init__.py"
    if change == "rename":
        a.rename(installed / "rng" / "drawn.py")
    elif change == "move a byte between files":
        data = a.read_bytes()
        a.write_bytes(data[:-1])
        b.write_bytes(data[-1:] + b.read_bytes())
    elif change == "add an empty file":
        (installed / "ui" / "x.py").write_bytes(b"")
    elif change == "change one byte":
        data = bytearray(a.read_bytes())
        data[0] ^= 1
        a.write_bytes(bytes(data))
    else:
        (installed / "rng" / "__pycache__" / "draw.cpython-312.pyc").write_bytes(b"\0")
    assert hmac_of_tree(installed, parse_seed(SEED))[0] != before


def test_another_seed_gives_another_value(installed) -> None:
    assert hmac_of_tree(installed, parse_seed("01"))[0] != hmac_of_tree(
        installed, parse_seed("02")
    )[0]


def test_manifest_files_are_not_program(installed) -> None:
    before = hmac_of_tree(installed, parse_seed(SEED))[0]
    (installed / "MANIFEST.sig").write_bytes(b"whatever")
    assert hmac_of_tree(installed, parse_seed(SEED))[0] == before


def test_seed_parsing() -> None:
    assert parse_seed("0x00 ff") == b"\x00\xff"
    assert parse_seed("ABcd") == b"\xab\xcd"
    for bad in ("", "abc", "zz", "0x", "12 3"):
        with pytest.raises(DeployError, match="hex"):
            parse_seed(bad)
    with pytest.raises(DeployError, match="at most"):
        parse_seed("00" * 1025)
