"""deploy/install.sh off the Pi: shellcheck, --dry-run, a real install into a prefix.

The prefix run lays out the real tree (release, venv, launcher, config, udev rule, unit)
under a temporary directory without root; system steps are printed as skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from deploy.manifest import verify_installed
from firmware.config import load_config

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / "deploy" / "install.sh"
SYSTEM_PYTHON = "/usr/bin/python3"
PYTHON = SYSTEM_PYTHON if Path(SYSTEM_PYTHON).exists() else sys.executable


def run_install(*args: str | Path, user: int | None = None,
                installer: Path = INSTALL) -> subprocess.CompletedProcess[str]:
    cmd = ["bash", str(installer), "--python", PYTHON, *map(str, args)]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)


def snapshot(root: Path) -> dict[str, tuple[int, str]]:
    """Every entry under root: mode and content hash (or link target)."""
    state: dict[str, tuple[int, str]] = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        if path.is_symlink():
            what = "-> " + os.readlink(path)
        elif path.is_file():
            what = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            what = "dir"
        state[str(path.relative_to(root))] = (st.st_mode, what)
    return state


@pytest.fixture(scope="module")
def installed_prefix(real_bundle, keys, tmp_path_factory) -> Iterator[tuple[Path, str]]:
    prefix = tmp_path_factory.mktemp("prefix") / "root"
    result = run_install(
        "--bundle", real_bundle, "--pubkey", keys.pub, "--prefix", prefix, "--no-deps",
        "--shoe-vendor", "1A86", "--shoe-product", "55D4", "--shoe-serial", "SHOE-0042",
    )
    assert result.returncode == 0, result.stderr + result.stdout
    yield prefix, result.stdout + result.stderr


def test_shellcheck_clean() -> None:
    """Every shell script in deploy/: the installer, `make rng-check`, `make pi-check`."""
    if shutil.which("shellcheck") is None:
        if os.geteuid() == 0 and shutil.which("apt-get"):
            subprocess.run(
                ["apt-get", "install", "-y", "-qq", "shellcheck"],
                capture_output=True, timeout=300,
                env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
            )
        if shutil.which("shellcheck") is None:
            pytest.skip("shellcheck is not installed and `apt-get install shellcheck` failed"
                        " (needs root and the Debian archive)")
    result = subprocess.run(
        ["shellcheck", "--severity=style", str(INSTALL), str(INSTALL.with_name("rng-check.sh")),
         str(INSTALL.with_name("pi-check.sh"))],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout


def test_prefix_install_lays_out_the_real_tree(installed_prefix, keys, real_bundle) -> None:
    prefix, log = installed_prefix
    current = prefix / "opt/etg/current"
    assert current.is_symlink() and os.readlink(current).startswith("releases/etg-firmware-")
    release = verify_installed(current, keys.pub)  # the manifest check of `etg verify`
    assert "differs from the one inside the bundle" not in log
    # the virtual environment runs the program straight from the release tree
    site = next((prefix / "opt/etg/venv/lib").glob("python3.*/site-packages"))
    assert (site / "etg-release.pth").read_text() == "/opt/etg/current\n"
    probe = subprocess.run(
        [str(prefix / "opt/etg/venv/bin/python"), "-B", "-c",
         "import deploy.unpack, deploy; print(deploy.__file__)"],
        env={"PYTHONPATH": str(current)}, capture_output=True, text=True, cwd=prefix,
    )
    assert probe.returncode == 0, probe.stderr
    assert Path(probe.stdout.strip()).resolve().is_relative_to(release.root.resolve())
    # the installed program authenticates itself (what the installer runs with deps)
    own = subprocess.run(
        [sys.executable, "-B", "-P", "-m", "firmware", "verify", "--root", str(current),
         "--pubkey", str(prefix / "etc/etg/release.pub")],
        env={**os.environ, "PYTHONPATH": str(current)}, capture_output=True, text=True,
        cwd=prefix,
    )
    assert own.returncode == 0 and "OK:" in own.stdout, own.stdout + own.stderr
    # -B: no bytecode written into the release tree, only the bytecode it ships is there
    shipped = {f["path"] for f in json.loads((current / "MANIFEST.json").read_text())["files"]
               if f["path"].endswith(".pyc")}
    assert shipped and {p.relative_to(current).as_posix()
                        for p in current.rglob("*.pyc")} == shipped
    launcher = (prefix / "usr/local/bin/etg").read_text()
    assert "exec /opt/etg/venv/bin/python -I -B -m firmware" in launcher
    assert os.access(prefix / "usr/local/bin/etg", os.X_OK)
    # configuration: production, the shoe's stable name, the journal in the state dir
    cfg = load_config(prefix / "etc/etg/table.toml")
    assert cfg.table.mode == "production" and cfg.shoe.port == "/dev/etg-shoe"
    assert cfg.journal.path.startswith("/var/lib/etg/")
    assert (prefix / "etc/etg/table.toml").stat().st_mode & 0o777 == 0o640
    assert (prefix / "etc/etg/release.pub").read_bytes() == keys.pub.read_bytes()
    assert (prefix / "var/lib/etg").stat().st_mode & 0o777 == 0o750
    # the journal secret (issue 18): created once, 0440 (root:etg on the Pi), never shown
    secret = prefix / "etc/etg/journal.key"
    assert secret.stat().st_mode & 0o777 == 0o440
    text = secret.read_text().strip()
    assert len(bytes.fromhex(text)) == 32 and text not in log
    assert cfg.journal.key_path == "/etc/etg/journal.key"
    assert "skip (--prefix): chown root:etg" in log
    unit = (prefix / "etc/systemd/system/etg.service").read_text()
    assert unit == (REPO / "deploy/etg.service").read_text()
    rule = (prefix / "etc/udev/rules.d/99-etg-shoe.rules").read_text()
    assert ('ATTRS{idVendor}=="1a86", ATTRS{idProduct}=="55d4", ATTRS{serial}=="SHOE-0042", '
            'SYMLINK+="etg-shoe"') in rule
    assert "@SHOE" not in rule and 'TAG+="systemd"' in rule
    # system steps are shown, not done
    for step in ("useradd --system", "usermod -a -G gpio etg", "usermod -a -G dialout etg",
                 "usermod -a -G video etg", "usermod -a -G input etg", "chown etg:etg",
                 "systemctl enable etg.service", "udevadm control --reload-rules",
                 "systemctl set-default multi-user.target"):
        assert f"skip (--prefix): {step}" in log, step


def test_second_run_changes_nothing(installed_prefix, real_bundle, keys) -> None:
    prefix, _ = installed_prefix
    before = snapshot(prefix)
    result = run_install("--bundle", real_bundle, "--pubkey", keys.pub, "--prefix", prefix,
                         "--no-deps")
    assert result.returncode == 0, result.stderr
    assert "already installed; nothing changed" in result.stdout
    assert "\n+ " not in result.stdout  # no action taken
    assert snapshot(prefix) == before
    # the technician's udev rule survives a rerun without shoe ids
    assert "1a86" in (prefix / "etc/udev/rules.d/99-etg-shoe.rules").read_text()


def test_dry_run_prints_every_action_and_changes_nothing(real_bundle, keys, tmp_path) -> None:
    prefix = tmp_path / "root"
    result = run_install("--bundle", real_bundle, "--pubkey", keys.pub, "--prefix", prefix,
                         "--dry-run")
    assert result.returncode == 0, result.stderr
    assert not prefix.exists()
    out = result.stdout
    for action in ("would: install -d -m 0755", "would: unpack extract", "would: ln -sfn",
                   "would: " + PYTHON + " -m venv", "-m pip install", "etg-release.pth",
                   "/usr/local/bin/etg", "/etc/etg/table.toml", "/etc/etg/release.pub",
                   "99-etg-shoe.rules", "/etc/systemd/system/etg.service",
                   "skip (--prefix): useradd", "skip (--prefix): systemctl restart etg.service"):
        assert action in out, action
    assert "action(s) would be taken" in out


def test_dry_run_on_the_real_system_changes_nothing(real_bundle, keys) -> None:
    if Path("/opt/etg").exists() or Path("/etc/etg").exists():
        pytest.skip("an ETG installation exists on this machine")
    result = run_install("--bundle", real_bundle, "--pubkey", keys.pub, "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "would: useradd --system" in result.stdout or "unchanged user etg" in result.stdout
    assert "would: systemctl enable etg.service" in result.stdout
    assert not Path("/opt/etg").exists() and not Path("/etc/etg").exists()
    assert not Path("/etc/systemd/system/etg.service").exists()


def _bad_bundles(real_bundle: Path, keys, tmp: Path) -> dict[str, Path]:
    from deploy.bundle import build_bundle

    data = real_bundle.read_bytes()
    out = {}
    for name, content in {
        "flipped byte": data[:999] + bytes([data[999] ^ 4]) + data[1000:],
        "truncated": data[:-1],
        "appended": data + b"\n",
        "unsigned": data[:-100] + b"x" * 100,
        "not a zip": b"#!/bin/sh\nrm -rf /\n",
    }.items():
        out[name] = tmp / f"{name}.etgrel"
        out[name].write_bytes(content)
    out["another key"] = build_bundle(REPO, keys.other_key, tmp / "forged.etgrel").path
    return out


def test_installer_refuses_bad_bundles_and_changes_nothing(real_bundle, keys, tmp_path) -> None:
    prefix = tmp_path / "root"
    for name, bundle in _bad_bundles(real_bundle, keys, tmp_path).items():
        result = run_install("--bundle", bundle, "--pubkey", keys.pub, "--prefix", prefix,
                             "--no-deps")
        assert result.returncode == 1, (name, result.stdout, result.stderr)
        assert "REFUSED" in result.stderr, name
        assert not prefix.exists(), name


def test_installer_refuses_a_different_trusted_key(installed_prefix, real_bundle, keys) -> None:
    prefix, _ = installed_prefix
    from deploy.bundle import build_bundle

    forged_dir = Path(tempfile.mkdtemp())
    try:
        other = build_bundle(REPO, keys.other_key, forged_dir / "o.etgrel").path
        before = snapshot(prefix)
        result = run_install("--bundle", other, "--pubkey", keys.other_pub, "--prefix", prefix,
                             "--no-deps")
        assert result.returncode == 2 and "holds another release key" in result.stderr
        assert snapshot(prefix) == before
    finally:
        shutil.rmtree(forged_dir)


def test_altered_install_is_repaired_and_upgrade_switches(real_bundle, keys, tmp_path) -> None:
    from deploy.bundle import build_bundle

    prefix = tmp_path / "root"
    assert run_install("--bundle", real_bundle, "--pubkey", keys.pub, "--prefix", prefix,
                       "--no-deps").returncode == 0
    first = (prefix / "opt/etg/current").resolve()
    (first / "firmware" / "cli.py").write_text("print('pwned')\n")
    result = run_install("--bundle", real_bundle, "--pubkey", keys.pub, "--prefix", prefix,
                         "--no-deps")
    assert result.returncode == 0 and "had been altered" in result.stderr
    verify_installed(prefix / "opt/etg/current", keys.pub)
    # a new release (another version of the tree) becomes current; the old one stays
    src = tmp_path / "src"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(".git", ".venv", "tests", "*cache*",
                                                             "var", "build", "*.egg-info"))
    (src / "firmware" / "__init__.py").write_text('"""ETG."""\n\n__version__ = "0.1.1"\n')
    newer = build_bundle(src, keys.key, tmp_path / "newer.etgrel").path
    result = run_install("--bundle", newer, "--pubkey", keys.pub, "--prefix", prefix,
                         "--no-deps")
    assert result.returncode == 0, result.stderr
    second = (prefix / "opt/etg/current").resolve()
    assert second != first and first.is_dir()
    verify_installed(prefix / "opt/etg/current", keys.pub)


def test_prefix_install_needs_no_root(real_bundle, keys) -> None:
    if os.geteuid() != 0 or shutil.which("setpriv") is None or not Path(SYSTEM_PYTHON).exists():
        pytest.skip("needs root, setpriv and /usr/bin/python3 to drop to an unprivileged user")
    nobody = 65534
    work = Path(tempfile.mkdtemp(prefix="etg-nonroot-"))
    try:
        work.chmod(0o755)
        shutil.copy(real_bundle, work / "b.etgrel")
        shutil.copy(keys.pub, work / "r.pub")
        # The unprivileged user runs its own copy of the installer: the checkout may lie
        # in a directory only its owner can read (a root user's home, a mktemp -d).
        installer = work / "install.sh"
        shutil.copy(INSTALL, installer)
        installer.chmod(0o755)
        (work / "root").mkdir()
        os.chown(work / "root", nobody, nobody)
        result = run_install("--bundle", work / "b.etgrel", "--pubkey", work / "r.pub",
                             "--prefix", work / "root", "--no-deps", user=nobody,
                             installer=installer)
        assert result.returncode == 0, result.stdout + result.stderr
        assert (work / "root/opt/etg/current/MANIFEST.json").is_file()
        # and without --prefix an unprivileged user is told to use root
        result = run_install("--bundle", work / "b.etgrel", "--pubkey", work / "r.pub",
                             user=nobody, installer=installer)
        assert result.returncode == 2 and "run as root" in result.stderr
    finally:
        shutil.rmtree(work)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--shoe-vendor", "12345", "--shoe-product", "1234"], "--shoe-vendor"),
        (["--shoe-vendor", "1234", "--shoe-product", "12g4"], "--shoe-product"),
        (["--shoe-vendor", "1234", "--shoe-product", "1234", "--shoe-serial", 'a"b'],
         "--shoe-serial"),
        (["--pi-model", "3"], "--pi-model"),
        (["--frobnicate"], "unknown option"),
    ],
)
def test_bad_options_exit_2(real_bundle, keys, tmp_path, args, message) -> None:
    result = run_install("--bundle", real_bundle, "--pubkey", keys.pub, "--prefix",
                         tmp_path / "r", *args)
    assert result.returncode == 2 and message in result.stderr
    assert not (tmp_path / "r").exists()
