"""Release keys, a small synthetic project and signed bundles shared by the deploy tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from deploy import signing
from deploy.bundle import build_bundle

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Keys:
    key: Path
    pub: Path
    other_key: Path
    other_pub: Path


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    d = tmp_path_factory.mktemp("keys")
    d.chmod(0o755)  # the installer may run as another user in one test
    key, pub, _ = signing.generate(d / "release")
    other_key, other_pub, _ = signing.generate(d / "intruder")
    for path in (key, other_key):
        path.chmod(0o644)
    return Keys(key, pub, other_key, other_pub)


def make_mini_source(root: Path) -> Path:
    """A tiny project with the layout of the real one: six packages and pyproject."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "etg-firmware"\nversion = "9.8.7"\n', encoding="utf-8"
    )
    (root / "README.md").write_text("# mini\n", encoding="utf-8")
    for package in ("etgcore", "firmware", "drivers", "ui", "rng", "deploy", "lab"):
        (root / package).mkdir(exist_ok=True)
        (root / package / "__init__.py").write_text(f'"""{package}."""\n', encoding="utf-8")
    (root / "firmware" / "rules").mkdir(exist_ok=True)
    (root / "firmware" / "rules" / "blackjack.toml").write_text("[game]\nx = 1\n")
    (root / "rng" / "draw.py").write_text("def draw() -> int:\n    return 4\n")
    (root / "ui" / "données.py").write_text("NAME = 'é'\n", encoding="utf-8")
    script = root / "deploy" / "install.sh"
    script.write_text("#!/bin/sh\necho install\n")
    script.chmod(0o755)
    # never part of a release:
    (root / "firmware" / "__pycache__").mkdir(exist_ok=True)
    (root / "firmware" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0junk")
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "test_x.py").write_text("def test(): pass\n")
    (root / "rng" / ".hidden").write_text("x")
    return root


@pytest.fixture(scope="session")
def mini_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_mini_source(tmp_path_factory.mktemp("mini") / "src")


@pytest.fixture(scope="session")
def mini_bundle(mini_source: Path, keys: Keys, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mini-bundle") / "mini.etgrel"
    build_bundle(mini_source, keys.key, out)
    return out


@pytest.fixture(scope="session")
def real_bundle(keys: Keys, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle of this very checkout's program, as `etg release build` makes it."""
    d = tmp_path_factory.mktemp("real-bundle")
    d.chmod(0o755)
    out = d / "etg.etgrel"
    build_bundle(REPO, keys.key, out)
    out.chmod(0o644)
    return out


@pytest.fixture
def no_release_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ETG_RELEASE_PUBKEY", signing.PASSPHRASE_ENV, "SOURCE_DATE_EPOCH"):
        monkeypatch.delenv(name, raising=False)
