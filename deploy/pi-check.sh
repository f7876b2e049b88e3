#!/usr/bin/env bash
# `make pi-check`: the table on Debian Bookworm arm64 (what Raspberry Pi OS Bookworm 64-bit
# is built on), run under qemu-user-static on this machine. docs/deploy.md explains it.
#
# Once, then cached: a minimal arm64 root file system made by debootstrap. Every run: a
# fresh overlay on that root (so the cache stays pristine and each run starts clean), the
# host's CA bundle and pip configuration copied in, a release built and signed here with
# a throwaway key, installed there with deploy/install.sh --prefix, then the table's own
# checks run under emulation, each step's result printed, and the CPU seconds a round of
# auto-play takes under emulation printed beside the same run on this host.
#
# Needs root (debootstrap, chroot, mounts) and the network to Debian and PyPI (or a pip
# configuration that points elsewhere). Not part of `make test`: it takes minutes.
set -euo pipefail
umask 022

readonly SUITE=bookworm
readonly ARCH=arm64
readonly PACKAGES=python3,python3-venv,python3-pip,openssl,ca-certificates,procps
readonly ROUNDS=${ETG_PI_ROUNDS:-20}
readonly MIRROR=${ETG_PI_MIRROR:-http://deb.debian.org/debian}
readonly CACHE=${ETG_PI_CACHE:-/var/cache/etg-pi-check}
readonly ROOTFS=$CACHE/$SUITE-$ARCH
readonly LOGS=$CACHE/logs  # the last run's step logs, kept for reading afterwards
readonly STAMP_TEXT="$SUITE $ARCH $PACKAGES"
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly REPO
readonly HOST_PY=${ETG_HOST_PYTHON:-$REPO/.venv/bin/python}
# Inside the emulated root: where the release is installed and the checks work.
readonly GUEST=/srv/pi-check
readonly PREFIX=$GUEST/root

RUN=""
MERGED=""
MOUNTS=()
RESULTS=()
FAILED=0

say() { printf 'pi-check: %s\n' "$*"; }
die() { printf 'pi-check: error: %s\n' "$*" >&2; exit 2; }

cleanup() {
    local i
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
        umount -l "${MOUNTS[i]}" 2>/dev/null || true
    done
    if [[ -n $RUN && -d $RUN ]]; then
        rm -rf --one-file-system "$RUN"
    fi
}
trap cleanup EXIT

mount_at() {  # mount_at TARGET MOUNT-ARGS...: remembered for the cleanup, newest first
    local target=$1
    shift
    mkdir -p "$target"
    mount "$@" "$target"
    MOUNTS+=("$target")
}

preflight() {
    ((EUID == 0)) || die "run as root (debootstrap, chroot and mounts need it)"
    [[ -x $HOST_PY ]] || die "$HOST_PY missing: run make setup first"
    local missing=()
    command -v debootstrap >/dev/null || missing+=(debootstrap)
    [[ -x /usr/bin/qemu-aarch64-static ]] || missing+=(qemu-user-static)
    if ((${#missing[@]})); then
        say "installing ${missing[*]} (apt-get)"
        apt-get install -y -q "${missing[@]}" >/dev/null
    fi
    # binfmt_misc: the kernel hands arm64 executables to qemu. F (fix binary) in the
    # Debian registration opens the interpreter now, so it works inside the chroot too.
    if ! mountpoint -q /proc/sys/fs/binfmt_misc; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    fi
    if [[ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]]; then
        say "registering qemu-aarch64 with binfmt_misc"
        cat /usr/lib/binfmt.d/qemu-aarch64.conf >/proc/sys/fs/binfmt_misc/register
    fi
    grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 ||
        die "binfmt_misc handler qemu-aarch64 is disabled"
    mkdir -p "$CACHE"
    exec 9>"$CACHE/.lock"  # one run at a time: runs share the cache and the step logs
    flock -n 9 || die "another pi-check is running (lock $CACHE/.lock)"
}

build_rootfs() {
    if [[ -f $ROOTFS/.etg-pi-check && $(cat "$ROOTFS/.etg-pi-check") == "$STAMP_TEXT" ]]; then
        say "root file system: cached in $ROOTFS"
        return 0
    fi
    local log=$CACHE/debootstrap.log
    mkdir -p "$CACHE"
    rm -rf --one-file-system "$ROOTFS.partial"
    say "root file system: debootstrap $SUITE $ARCH into $ROOTFS (minutes; log $log)"
    local t0=$SECONDS
    if ! debootstrap --arch="$ARCH" --variant=minbase --include="$PACKAGES" \
        "$SUITE" "$ROOTFS.partial" "$MIRROR" >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        die "debootstrap failed (log $log)"
    fi
    printf '%s\n' "$STAMP_TEXT" >"$ROOTFS.partial/.etg-pi-check"
    rm -rf --one-file-system "$ROOTFS"
    mv "$ROOTFS.partial" "$ROOTFS"
    say "root file system: built in $((SECONDS - t0)) s"
}

# A fresh, disposable view of the cached root: an overlay (or a copy where overlayfs
# cannot be mounted), with /proc, /sys, /dev and the pip cache mounted in.
prepare_guest() {
    RUN=$(mktemp -d "$CACHE/run.XXXXXX")
    rm -rf "$LOGS"
    mkdir -p "$LOGS"
    MERGED=$RUN/merged
    mkdir -p "$RUN/upper" "$RUN/work" "$MERGED"
    if mount -t overlay overlay \
        -o "lowerdir=$ROOTFS,upperdir=$RUN/upper,workdir=$RUN/work" "$MERGED" 2>/dev/null; then
        MOUNTS+=("$MERGED")
    else
        say "overlayfs unavailable: copying the root file system"
        cp -a "$ROOTFS/." "$MERGED/"
    fi
    mount_at "$MERGED/proc" -t proc proc
    mount_at "$MERGED/sys" --rbind /sys
    mount_at "$MERGED/dev" --rbind /dev
    mkdir -p "$CACHE/pip-cache"
    mount_at "$MERGED/root/.cache/pip" --bind "$CACHE/pip-cache"
    # pip inside needs to trust what the host trusts and use its package index settings
    local ca
    for ca in /etc/ssl/certs/ca-certificates.crt "${PIP_CERT:-}" "${SSL_CERT_FILE:-}"; do
        if [[ -n $ca && -f $ca ]]; then
            install -D -m 0644 "$ca" "$MERGED$ca"
        fi
    done
    local conf
    for conf in /etc/pip.conf /etc/xdg/pip/pip.conf "$HOME/.config/pip/pip.conf" \
        "$HOME/.pip/pip.conf" "${PIP_CONFIG_FILE:-}"; do
        if [[ -n $conf && -f $conf ]]; then
            install -D -m 0644 "$conf" "$MERGED$conf"
        fi
    done
    share_pip_paths
    [[ -f /etc/resolv.conf ]] && cp -L /etc/resolv.conf "$MERGED/etc/resolv.conf"
    mkdir -p "$MERGED$GUEST"
    return 0
}

# Local paths the pip configuration names (find-links, file:// indexes, constraints):
# files are copied in, directories mounted read-only at the same place, so pip inside
# sees the configuration exactly as pip here does.
share_pip_paths() {
    local path
    while IFS= read -r path; do
        path=${path#file://}
        [[ $path == /* ]] || continue
        path=${path%/}
        path=${path%/simple}  # a PEP 503 index links to files beside it: share its parent
        if [[ -f $path ]]; then
            install -D -m 0644 "$path" "$MERGED$path"
        elif [[ -d $path ]] && ! mountpoint -q "$MERGED$path"; then
            mount_at "$MERGED$path" --bind "$path"
            mount -o remount,bind,ro "$MERGED$path"
        fi
    done < <("$HOST_PY" -m pip config list 2>/dev/null |
        sed -n "s/^[^=]*\.\(find-links\|index-url\|extra-index-url\|constraint\)='\(.*\)'$/\2/p" |
        tr ' ' '\n' | sort -u)
}

# Build and sign a release from this checkout with a key made for this run only.
make_release() {
    local out=$MERGED$GUEST
    "$HOST_PY" -m firmware release keygen --out "$RUN/release" >/dev/null
    "$HOST_PY" -m firmware release build --key "$RUN/release.key" --source "$REPO" \
        --out "$out/etg.etgrel" >"$RUN/build.log" 2>&1 || { cat "$RUN/build.log" >&2; exit 1; }
    install -m 0644 "$RUN/release.pub" "$out/release.pub"
    # install.sh from the release itself, as docs/deploy.md tells an installer to take it
    "$HOST_PY" -c 'import sys, zipfile
sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("program/deploy/install.sh"))' \
        "$out/etg.etgrel" >"$out/install.sh"
    # the tests are not part of a release: copied for the test modules step only
    mkdir -p "$out/src"
    cp -r "$REPO/tests" "$REPO/pyproject.toml" "$out/src/"
    find "$out/src" -name __pycache__ -prune -exec rm -rf {} +
    cat >"$out/bench.toml" <<EOF
# pi-check: the bench table (simulated shoe on a pty, simulated panel, no display)
[table]
mode = "bench"
seats = 7
[shoe]
port = "sim"
[panel]
backend = "sim"
[display]
enabled = false
[journal]
path = "$GUEST/journal.sqlite"
EOF
}

guest() {  # guest CMD...: run CMD in the emulated root with a clean environment
    local -a envs=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
        HOME=/root LANG=C.UTF-8 SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy
        PYGAME_HIDE_SUPPORT_PROMPT=1 PYTHONDONTWRITEBYTECODE=1)
    local v
    for v in $(compgen -e); do
        case $v in PIP_* | SSL_CERT_* | REQUESTS_CA_BUNDLE) envs+=("$v=${!v}") ;; esac
    done
    chroot "$MERGED" /usr/bin/env -i "${envs[@]}" "$@"
}

step() {  # step NAME CMD...: run in the guest, log to a file, record the result
    local name=$1 log t0 rc=0
    shift
    log=$LOGS/step-${#RESULTS[@]}.log
    t0=$(date +%s.%N)
    guest "$@" >"$log" 2>&1 || rc=$?
    local dt
    dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    if ((rc == 0)); then
        RESULTS+=("$(printf '%-4s %-58s %7s s' ok "$name" "$dt")")
        say "ok    $name ($dt s): $(tail -n 1 "$log" 2>/dev/null || true)"
    else
        FAILED=1
        RESULTS+=("$(printf '%-4s %-58s %7s s  (exit %d)' FAIL "$name" "$dt" "$rc")")
        say "FAIL  $name ($dt s, exit $rc); last lines:"
        { tail -n 15 "$log" 2>/dev/null || true; } | sed 's/^/    /'
    fi
    return 0
}

cpu_probe() {  # the CPU seconds (user + system) of the command's process tree, on stdout
    cat <<'EOF'
import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{r.ru_utime + r.ru_stime:.2f}")
sys.exit(rc)
EOF
}

run_checks() {
    local etg=$PREFIX/usr/local/bin/etg
    guest uname -m | grep -qx aarch64 || die "the guest does not run as aarch64"
    # shellcheck disable=SC2016  # expanded by the guest's shell
    say "guest: $(guest uname -m), $(guest python3 --version), $(guest sh -c '. /etc/os-release; echo "$PRETTY_NAME"')"
    step "install.sh --prefix (signed release, table dependencies)" \
        bash "$GUEST/install.sh" --bundle "$GUEST/etg.etgrel" --pubkey "$GUEST/release.pub" \
        --prefix "$PREFIX" --pi-model none --no-apt --no-start
    # The launcher and the venv name /opt/etg and /etc/etg: point them at the prefix.
    guest ln -sfn "$PREFIX/opt/etg" /opt/etg
    guest ln -sfn "$PREFIX/etc/etg" /etc/etg
    step "etg verify (installed release against its signed manifest)" "$etg" verify
    step "etg rng kat (NIST CAVP vectors)" "$etg" rng kat
    step "etg rng selftest" "$etg" rng selftest
    step "etg panel test (simulated panel)" "$etg" panel test --backend sim
    cpu_probe >"$MERGED$GUEST/cpu.py"
    step "etg run --headless --auto-play --rounds $ROUNDS (shoe sim on a pty)" \
        sh -c "python3 $GUEST/cpu.py $etg --config $GUEST/bench.toml run --headless \
            --auto-play --rounds $ROUNDS > $GUEST/cpu.txt"
    step "pytest, hypothesis into the venv (for the test modules only)" \
        /opt/etg/venv/bin/python -m pip install --quiet pytest hypothesis
    # The tests start many interpreters: the bytecode they compile goes to a cache outside
    # the release tree (the table itself reads the bytecode the release ships, -B).
    step "test modules: tests/engine tests/shoe" \
        sh -c "cd $GUEST/src && PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=/var/cache/etg-pycache \
            /opt/etg/venv/bin/python -m pytest -q -p no:cacheprovider tests/engine tests/shoe"
}

host_cpu() {  # the same auto-play run on this host, for comparison
    local dir
    dir=$(mktemp -d "$RUN/host.XXXXXX")
    sed "s|$GUEST/journal.sqlite|$dir/journal.sqlite|" "$MERGED$GUEST/bench.toml" >"$dir/bench.toml"
    cpu_probe >"$dir/cpu.py"
    (cd "$dir" && SDL_VIDEODRIVER=dummy "$HOST_PY" cpu.py "$HOST_PY" -m firmware \
        --config bench.toml run --headless --auto-play --rounds "$ROUNDS") 2>/dev/null
}

report() {
    local arm host per_arm per_host
    arm=$(cat "$MERGED$GUEST/cpu.txt" 2>/dev/null || echo nan)
    host=$(host_cpu || echo nan)
    per_arm=$(awk -v c="$arm" -v n="$ROUNDS" 'BEGIN { printf "%.3f", c / n }')
    per_host=$(awk -v c="$host" -v n="$ROUNDS" 'BEGIN { printf "%.3f", c / n }')
    echo
    echo "== pi-check: Debian $SUITE $ARCH under qemu-user-static on $(uname -m) =="
    printf '%s\n' "${RESULTS[@]}"
    echo
    echo "CPU seconds per auto-play round ($ROUNDS rounds, 7 seats, whole process tree):"
    echo "  arm64 under emulation: $per_arm s   this host ($(uname -m)): $per_host s" \
        "  ratio $(awk -v a="$per_arm" -v b="$per_host" 'BEGIN { printf "%.1f", a / b }')x"
    echo "  (emulation is slower than a real Pi 4/5: this bounds the Pi's cost from above"
    echo "   only loosely; measure on the Pi itself with the same command)"
    echo
    echo "What this cannot prove (needs the real Raspberry Pi):"
    echo "  - GPIO: RPi.GPIO / rpi-lgpio, the key matrix edges and the lamp chain (the"
    echo "    simulated panel stood in; --pi-model none installed no GPIO library)"
    echo "  - the display: KMS/DRM through SDL (SDL's dummy driver drew here)"
    echo "  - the hardware RNG /dev/hwrng (the OS entropy source was used)"
    echo "  - the shoe's USB serial device, udev and systemd (etg.service is not started"
    echo "    in a chroot), timing and speed of the real CPU"
    if ((FAILED)); then
        echo "pi-check: FAILED (step logs: $LOGS)"
        return 1
    fi
    echo "pi-check: all steps passed (step logs: $LOGS)"
}

main() {
    preflight
    build_rootfs
    prepare_guest
    make_release
    run_checks
    report
}

main "$@"
