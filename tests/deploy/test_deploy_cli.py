"""`etg release` and `etg verify` from the command line: output and exit codes."""

from __future__ import annotations

from pathlib import Path

from deploy.bundle import verify_bundle
from deploy.seeded_hmac import hmac_of_tree
from deploy.unpack import extract
from firmware.cli import main

SEED = "a5" * 20


def test_keygen_build_verify_hmac(tmp_path, mini_source, capsys, no_release_env) -> None:
    assert main(["release", "keygen", "--out", str(tmp_path / "rel")]) == 0
    assert "key id" in capsys.readouterr().out
    key, pub = tmp_path / "rel.key", tmp_path / "rel.pub"
    out = tmp_path / "x.etgrel"
    assert main(["release", "build", "--key", str(key), "--out", str(out),
                 "--source", str(mini_source)]) == 0
    built = capsys.readouterr().out
    assert "etg-firmware-9.8.7-" in built and "signed by key" in built
    assert main(["release", "verify", str(out), "--pubkey", str(pub), "--list"]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith(tuple("0123456789abcdef")) and "OK:" in listed
    assert "rng/draw.py" in listed
    assert main(["release", "hmac", str(out), "--pubkey", str(pub), "--seed", SEED]) == 0
    expected = capsys.readouterr().out.strip()
    dest, _ = extract(verify_bundle(out, pub).contents, tmp_path / "releases")
    assert main(["verify", "--root", str(dest), "--seed", SEED]) == 0
    assert capsys.readouterr().out.strip() == expected
    assert expected == hmac_of_tree(dest, bytes.fromhex(SEED))[0]


def test_keygen_refuses_to_overwrite(tmp_path, capsys, no_release_env) -> None:
    assert main(["release", "keygen", "--out", str(tmp_path / "k")]) == 0
    assert main(["release", "keygen", "--out", str(tmp_path / "k")]) == 2
    assert "already exists" in capsys.readouterr().err


def test_refused_bundle_exits_1_with_one_line(mini_bundle, keys, tmp_path, capsys) -> None:
    data = bytearray(mini_bundle.read_bytes())
    data[len(data) // 3] ^= 0x10
    bad = tmp_path / "bad.etgrel"
    bad.write_bytes(bytes(data))
    assert main(["release", "verify", str(bad), "--pubkey", str(keys.pub)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert main(["release", "verify", str(mini_bundle), "--pubkey", str(keys.other_pub)]) == 1
    assert "another key" in capsys.readouterr().err


def test_bad_input_exits_2(mini_bundle, keys, tmp_path, capsys) -> None:
    assert main(["release", "verify", str(tmp_path / "nope"), "--pubkey", str(keys.pub)]) == 2
    assert "no such bundle" in capsys.readouterr().err
    assert main(["release", "verify", str(mini_bundle), "--pubkey", str(tmp_path / "x")]) == 2
    assert main(["verify", "--root", str(tmp_path), "--seed", "xyz"]) == 2
    assert "hex" in capsys.readouterr().err


def test_verify_installed_ok_and_tampered(mini_bundle, keys, tmp_path, capsys) -> None:
    dest, _ = extract(verify_bundle(mini_bundle, keys.pub).contents, tmp_path / "releases")
    assert main(["verify", "--root", str(dest), "--pubkey", str(keys.pub)]) == 0
    assert "all" in capsys.readouterr().out
    (dest / "rng" / "draw.py").write_text("x\n")
    (dest / "ui" / "new.py").write_text("x\n")
    assert main(["verify", "--root", str(dest), "--pubkey", str(keys.pub)]) == 1
    captured = capsys.readouterr()
    assert "CHANGED    rng/draw.py" in captured.out and "UNEXPECTED ui/new.py" in captured.out
    assert "software authentication failed" in captured.err


def test_verify_in_a_development_checkout(keys, capsys) -> None:
    """A git checkout has no signed manifest: said plainly, exit 1 (not authentic)."""
    assert main(["verify", "--pubkey", str(keys.pub)]) == 1
    assert "not a release installed by deploy/install.sh" in capsys.readouterr().err
    assert main(["verify", "--seed", SEED]) == 2
    assert "--root" in capsys.readouterr().err


def test_help_lists_both_families(capsys) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "release" in out and "verify" in out
    assert Path(__file__).name.startswith("test_deploy_")


def test_release_verify_and_verify_json(mini_bundle, keys, tmp_path, capsys) -> None:
    """--json: one JSON document a script parses, also for a refusal (exit 1)."""
    import json

    assert main(["release", "verify", str(mini_bundle), "--pubkey", str(keys.pub), "--list",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True and doc["files"] == len(doc["file_list"]) > 0
    assert {"release", "key_id", "manifest_sha256"} <= set(doc)
    assert main(["release", "verify", str(mini_bundle), "--pubkey", str(keys.other_pub),
                 "--json"]) == 1
    refused = json.loads(capsys.readouterr().out)
    assert refused["ok"] is False and "another key" in refused["error"]
    dest, _ = extract(verify_bundle(mini_bundle, keys.pub).contents, tmp_path / "releases")
    assert main(["verify", "--root", str(dest), "--pubkey", str(keys.pub), "--json"]) == 0
    ok = json.loads(capsys.readouterr().out)
    assert ok["ok"] is True and ok["release"] == doc["release"]
    assert main(["verify", "--root", str(dest), "--seed", SEED, "--json"]) == 0
    seeded = json.loads(capsys.readouterr().out)
    assert seeded["hmac_sha256"] == hmac_of_tree(dest, bytes.fromhex(SEED))[0]
    (dest / "rng" / "draw.py").write_text("x\n")
    assert main(["verify", "--root", str(dest), "--pubkey", str(keys.pub), "--json"]) == 1
    bad = json.loads(capsys.readouterr().out)
    assert bad["ok"] is False and {"kind": "changed", "path": "rng/draw.py"} in bad["problems"]
