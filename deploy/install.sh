#!/usr/bin/env bash
# Install (or upgrade) the ETG table firmware on Raspberry Pi OS Bookworm 64-bit (Pi 4, Pi 5)
# from a signed release bundle. docs/deploy.md is the manual; `install.sh --help` the summary.
#
# Trust: the bundle's Ed25519 signature over every byte is checked with openssl against
# the public key you give, on a private copy of the bundle, before any of its content is
# used. Only then does the bundle's own (now authentic) unpacker run with the system Python.
#
# Every change goes through act/sys_act, so --dry-run prints every action and changes
# nothing, and --prefix DIR lays the real file tree out under DIR (as DESTDIR does)
# without needing root: steps that touch the running system (users, chown, udevadm,
# systemctl, apt-get) are printed as skipped there.
set -euo pipefail
umask 022

readonly ETG_USER=etg
readonly ETG_GROUPS=(gpio dialout video input render)
readonly ETG_HOME=/opt/etg
readonly RELEASES=$ETG_HOME/releases
readonly CURRENT=$ETG_HOME/current
readonly VENV=$ETG_HOME/venv
readonly CONF_DIR=/etc/etg
readonly CONFIG=$CONF_DIR/table.toml
readonly TRUSTED_PUB=$CONF_DIR/release.pub
readonly STATE_DIR=/var/lib/etg
readonly JOURNAL=$STATE_DIR/journal.sqlite
readonly JOURNAL_KEY=$CONF_DIR/journal.key
readonly UNIT=/etc/systemd/system/etg.service
readonly UDEV_RULE=/etc/udev/rules.d/99-etg-shoe.rules
readonly LAUNCHER=/usr/local/bin/etg
readonly SIG_PREFIX=etg-ed25519:
readonly SIG_COMMENT_LEN=100
readonly SIG_B64_LEN=88

BUNDLE=""
PUBKEY=""
PREFIX=""
DRY_RUN=0
NO_DEPS=0
NO_START=0
NO_APT=0
WHEELHOUSE=""
PYTHON=python3
PI_MODEL=auto
SHOE_VENDOR=""
SHOE_PRODUCT=""
SHOE_SERIAL=""
CHANGES=0
CHANGED=0
WORK=""

usage() {
    cat <<'EOF'
usage: install.sh --bundle FILE --pubkey PUB [options]

Install or upgrade the ETG table firmware from a signed release bundle. Refuses a bundle
that is unsigned, signed by another key, or altered in any byte. Safe to run again.

  --bundle FILE          the release bundle (etg release build)
  --pubkey PUB           the release public key (PEM) the bundle must be signed with
  --shoe-vendor VVVV     the shoe's USB vendor id, 4 hex digits (udevadm info, see docs)
  --shoe-product PPPP    the shoe's USB product id, 4 hex digits
  --shoe-serial SERIAL   the shoe's USB serial number (optional: pins one shoe)
  --pi-model 4|5|none    GPIO library to install (default: auto from the device tree)
  --wheelhouse DIR       install Python dependencies offline from DIR
  --python PY            Python 3.11+ for the virtual environment (default: python3)
  --no-deps              do not install Python dependencies (tests, offline staging)
  --no-apt               do not apt-get the system prerequisites
  --no-start             enable etg.service but do not (re)start it
  --prefix DIR           install under DIR instead of / (no root needed; system
                         steps are printed as skipped)
  --dry-run              print every action, change nothing
  -h, --help             this text
EOF
}

say() { printf 'install.sh: %s\n' "$*"; }
warn() { printf 'install.sh: WARNING: %s\n' "$*" >&2; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 2; }
refuse() { printf 'install.sh: REFUSED: %s\n' "$*" >&2; exit 1; }

# A path as it is on disk during this run (under --prefix when given).
p() { printf '%s%s' "$PREFIX" "$1"; }

# Run a command that changes files under the (prefixed) tree.
act() {
    CHANGES=$((CHANGES + 1))
    if ((DRY_RUN)); then
        printf 'would: %s\n' "$*"
        return 0
    fi
    printf '+ %s\n' "$*"
    "$@"
}

# Run a check that changes nothing (still shown, still run under --dry-run).
check() {
    printf '+ %s\n' "$*"
    "$@"
}

# Run a command that changes the running system: skipped under --prefix.
sys_act() {
    if [[ -n $PREFIX ]]; then
        printf 'skip (--prefix): %s\n' "$*"
        return 0
    fi
    act "$@"
}

cleanup() {
    if [[ -n $WORK && -d $WORK ]]; then
        rm -rf -- "$WORK"
    fi
}

parse_args() {
    while (($#)); do
        case $1 in
            --bundle) BUNDLE=${2:?--bundle needs a file}; shift ;;
            --pubkey) PUBKEY=${2:?--pubkey needs a file}; shift ;;
            --prefix) PREFIX=${2:?--prefix needs a directory}; shift ;;
            --shoe-vendor) SHOE_VENDOR=${2:?--shoe-vendor needs 4 hex digits}; shift ;;
            --shoe-product) SHOE_PRODUCT=${2:?--shoe-product needs 4 hex digits}; shift ;;
            --shoe-serial) SHOE_SERIAL=${2:?--shoe-serial needs a value}; shift ;;
            --pi-model) PI_MODEL=${2:?--pi-model needs 4, 5 or none}; shift ;;
            --wheelhouse) WHEELHOUSE=${2:?--wheelhouse needs a directory}; shift ;;
            --python) PYTHON=${2:?--python needs an interpreter}; shift ;;
            --no-deps) NO_DEPS=1 ;;
            --no-apt) NO_APT=1 ;;
            --no-start) NO_START=1 ;;
            --dry-run) DRY_RUN=1 ;;
            -h | --help) usage; exit 0 ;;
            *) die "unknown option $1 (see --help)" ;;
        esac
        shift
    done
    [[ -n $BUNDLE ]] || die "--bundle FILE is required (see --help)"
    [[ -n $PUBKEY ]] || die "--pubkey PUB is required (see --help)"
    [[ -f $BUNDLE ]] || die "$BUNDLE: no such bundle"
    [[ -f $PUBKEY ]] || die "$PUBKEY: no such public key"
    if [[ -n $PREFIX ]]; then
        [[ $PREFIX == /* ]] || PREFIX=$PWD/$PREFIX
        PREFIX=${PREFIX%/}
        [[ -n $PREFIX ]] || die "--prefix / is the real system: leave --prefix out"
    fi
    if [[ -n $SHOE_VENDOR || -n $SHOE_PRODUCT ]]; then
        [[ $SHOE_VENDOR =~ ^[0-9a-fA-F]{4}$ ]] || die "--shoe-vendor: expected 4 hex digits"
        [[ $SHOE_PRODUCT =~ ^[0-9a-fA-F]{4}$ ]] || die "--shoe-product: expected 4 hex digits"
        SHOE_VENDOR=${SHOE_VENDOR,,}
        SHOE_PRODUCT=${SHOE_PRODUCT,,}
    fi
    if [[ -n $SHOE_SERIAL ]]; then
        [[ -n $SHOE_VENDOR ]] || die "--shoe-serial needs --shoe-vendor and --shoe-product"
        [[ $SHOE_SERIAL =~ ^[A-Za-z0-9._:-]{1,64}$ ]] ||
            die "--shoe-serial: letters, digits and . _ : - only"
    fi
    case $PI_MODEL in auto | 4 | 5 | none) ;; *) die "--pi-model: 4, 5, none or auto" ;; esac
    if [[ -n $WHEELHOUSE && ! -d $WHEELHOUSE ]]; then
        die "--wheelhouse $WHEELHOUSE: no such directory"
    fi
    if [[ -z $PREFIX ]] && ((!DRY_RUN)) && ((EUID != 0)); then
        die "run as root (sudo), or use --prefix DIR / --dry-run"
    fi
}

check_tools() {
    local tool
    for tool in openssl base64 head tail stat cmp install mktemp sha256sum "$PYTHON"; do
        command -v "$tool" >/dev/null 2>&1 || die "$tool is required (apt-get install it)"
    done
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
        die "$PYTHON is older than Python 3.11"
}

# The bundle's signature over every byte before it, checked with openssl alone.
verify_bundle() {
    local bundle=$1 pub=$2 size text
    text=$(openssl pkey -pubin -in "$pub" -noout -text 2>/dev/null) || text=""
    [[ $text == *ED25519* ]] || die "$PUBKEY: not an Ed25519 public key (PEM)"
    size=$(stat -c %s "$bundle")
    ((size > SIG_COMMENT_LEN + 22)) || refuse "$BUNDLE is not a release bundle (too short)"
    if [[ $(tail -c "$SIG_COMMENT_LEN" "$bundle" | head -c "${#SIG_PREFIX}") != "$SIG_PREFIX" ]]
    then
        refuse "$BUNDLE is not signed (no etg-ed25519 signature at its end)"
    fi
    tail -c "$SIG_B64_LEN" "$bundle" | base64 -d >"$WORK/bundle.sig" 2>/dev/null ||
        refuse "$BUNDLE: its signature is not valid base64 (altered)"
    {
        printf 'etg-release-bundle/1\n'
        head -c "$((size - SIG_COMMENT_LEN))" "$bundle"
    } >"$WORK/bundle.msg"
    openssl pkeyutl -verify -pubin -inkey "$pub" -rawin -in "$WORK/bundle.msg" \
        -sigfile "$WORK/bundle.sig" >/dev/null 2>&1 ||
        refuse "$BUNDLE: signature does not verify with $PUBKEY (signed by another key, or altered)"
    rm -f -- "$WORK/bundle.msg" "$WORK/bundle.sig"
    say "bundle signature verified with $PUBKEY"
}

# The installed manifest's own signature, checked with openssl too.
verify_manifest() {
    local dir=$1
    {
        printf 'etg-release-manifest/1\n'
        cat "$dir/MANIFEST.json"
    } >"$WORK/manifest.msg"
    openssl pkeyutl -verify -pubin -inkey "$WORK/release.pub" -rawin -in "$WORK/manifest.msg" \
        -sigfile "$dir/MANIFEST.sig" >/dev/null 2>&1 ||
        refuse "$dir/MANIFEST.json: signature does not verify"
    say "installed manifest signature verified"
}

# The bundle's unpacker (standard library only), run from inside the verified bundle.
unpack() {
    "$PYTHON" -B -I -c 'import sys
sys.path.insert(0, sys.argv[1] + "/program")
from deploy.unpack import main
raise SystemExit(main(sys.argv[2:]))' "$WORK/bundle.etgrel" "$@"
}

# Read one key=value line of the unpacker's output.
field() { sed -n "s/^$1=//p" <<<"$2"; }

ensure_dir() {
    local dir=$1 mode=$2
    if [[ -d $(p "$dir") ]]; then
        return 0
    fi
    act install -d -m "$mode" "$(p "$dir")"
}

# Install SRC as DEST (final path) with MODE unless it is already identical;
# CHANGED tells the caller whether it did.
install_file() {
    local src=$1 dest=$2 mode=$3 target
    target=$(p "$dest")
    CHANGED=0
    if [[ -f $target ]] && cmp -s "$src" "$target" &&
        [[ $(stat -c %a "$target") == "${mode#0}" ]]; then
        say "unchanged $dest"
        return 0
    fi
    CHANGED=1
    act install -D -m "$mode" "$src" "$target"
}

ensure_user() {
    local group
    if [[ -n $PREFIX ]] || ! id "$ETG_USER" >/dev/null 2>&1; then
        sys_act useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
            --shell /usr/sbin/nologin "$ETG_USER"
    else
        say "unchanged user $ETG_USER"
    fi
    for group in "${ETG_GROUPS[@]}"; do
        if [[ -n $PREFIX ]]; then
            sys_act usermod -a -G "$group" "$ETG_USER"
        elif ! getent group "$group" >/dev/null; then
            warn "group $group does not exist on this system (not a Raspberry Pi OS image?)"
        elif [[ " $(id -nG "$ETG_USER" 2>/dev/null) " == *" $group "* ]]; then
            say "unchanged $ETG_USER in group $group"
        else
            sys_act usermod -a -G "$group" "$ETG_USER"
        fi
    done
}

pi_model() {
    local model=""
    if [[ $PI_MODEL != auto ]]; then
        printf '%s' "$PI_MODEL"
        return 0
    fi
    if [[ -z $PREFIX && -r /proc/device-tree/model ]]; then
        model=$(tr -d '\0' </proc/device-tree/model)
    fi
    case $model in
        "Raspberry Pi 5"*) printf 5 ;;
        "Raspberry Pi"*) printf 4 ;;
        *) printf none ;;
    esac
}

# The release's runtime dependencies, from its own pyproject.toml, one per line.
dependencies() {
    "$PYTHON" -I -c 'import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
deps = list(project.get("dependencies", []))
if sys.argv[2] == "5":    # Pi 5: the rpi-lgpio drop-in provides the RPi.GPIO module
    deps.append("rpi-lgpio")
elif sys.argv[2] == "4":
    deps += project.get("optional-dependencies", {}).get("pi", [])
print("\n".join(deps))' "$1" "$2"
}

install_python() {
    local release_dir=$1 pyver site model
    local -a deps pip_opts=()
    pyver=$("$PYTHON" -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
    if [[ ! -x $(p "$VENV")/bin/python ]]; then
        if ((NO_DEPS)); then
            act "$PYTHON" -m venv --without-pip "$(p "$VENV")"
        else
            act "$PYTHON" -m venv "$(p "$VENV")"
        fi
    else
        say "unchanged virtual environment $VENV"
    fi
    if ((NO_DEPS)); then
        say "skip Python dependencies (--no-deps)"
    else
        model=$(pi_model)
        if [[ -f $release_dir/pyproject.toml ]]; then
            mapfile -t deps < <(dependencies "$release_dir/pyproject.toml" "$model")
        else  # --dry-run before unpacking: read the bundle's copy
            mapfile -t deps < <(dependencies <(unpack_file pyproject.toml) "$model")
        fi
        if [[ -n $WHEELHOUSE ]]; then
            pip_opts=(--no-index --find-links "$WHEELHOUSE")
        fi
        act "$(p "$VENV")/bin/python" -m pip install --quiet --upgrade "${pip_opts[@]}" "${deps[@]}"
    fi
    # The program runs from the authenticated release tree itself, not a copy in the venv.
    site=$VENV/lib/$pyver/site-packages
    printf '%s\n' "$CURRENT" >"$WORK/etg-release.pth"
    install_file "$WORK/etg-release.pth" "$site/etg-release.pth" 0644
}

# One program file's content, read from the verified bundle.
unpack_file() {
    "$PYTHON" -B -I -c 'import sys, zipfile
sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("program/" + sys.argv[2]))' \
        "$WORK/bundle.etgrel" "$1"
}

install_launcher() {
    cat >"$WORK/etg" <<EOF
#!/bin/sh
# etg: the table's command line, running the verified release in $CURRENT.
# -I: import only the release and the venv (never the current directory, never PYTHON*
# variables); -B: never write bytecode caches into the authenticated program tree.
exec $VENV/bin/python -I -B -m firmware "\$@"
EOF
    install_file "$WORK/etg" "$LAUNCHER" 0755
}

install_config() {
    if [[ -e $(p "$CONFIG") ]]; then
        say "unchanged $CONFIG (an existing configuration is never overwritten)"
    else
        unpack_file deploy/table-pi.toml >"$WORK/table.toml"
        act install -D -m 0640 "$WORK/table.toml" "$(p "$CONFIG")"
        sys_act chown "root:$ETG_USER" "$(p "$CONFIG")"
    fi
    install_file "$WORK/release.pub" "$TRUSTED_PUB" 0644
}

# The table's journal secret (docs/deploy.md, "The journal secret"): 32 random bytes as
# hex, created once and never overwritten, never printed; root-owned, readable by the
# service's group only, so the service can read it but not change or remove it.
install_journal_secret() {
    local target
    target=$(p "$JOURNAL_KEY")
    install_superseded_register "$target"
    if [[ -e $target ]]; then
        say "unchanged $JOURNAL_KEY (a journal secret is never replaced)"
        return 0
    fi
    (umask 077 && openssl rand -hex 32 >"$WORK/journal.key")
    act install -D -m 0440 "$WORK/journal.key" "$target"
    sys_act chown "root:$ETG_USER" "$target"
    rm -f -- "$WORK/journal.key"
}

# The register of archived journals beside the secret (docs/table.md, "A journal knows
# its successor"): `etg journal init --archive`, run as the service user, appends to it;
# append-only (chattr +a), so nobody who can write the journal can take a line back.
install_superseded_register() {
    local reg=$1.superseded
    [[ -e $reg ]] && return 0
    act install -D -m 0660 /dev/null "$reg"
    sys_act chown "root:$ETG_USER" "$reg"
    sys_act chattr +a "$reg" || say "warning: chattr +a $reg failed (not ext4?): it stays group-writable"
}

# A production table never begins its journal by itself: the first installation does,
# as the technician's act it is (the reason names the release).
begin_journal() {
    local release_id=$1
    if [[ -e $(p "$JOURNAL") ]]; then
        say "unchanged $JOURNAL"
        return 0
    fi
    sys_act runuser -u "$ETG_USER" -- "$LAUNCHER" --config "$CONFIG" journal init \
        --reason "first installation ($release_id)"
}

install_udev_rule() {
    local vendor=UNSET product=UNSET serial_match=""
    if [[ -z $SHOE_VENDOR && -e $(p "$UDEV_RULE") ]]; then
        say "unchanged $UDEV_RULE (pass --shoe-vendor/--shoe-product to change the shoe)"
        return 0
    fi
    if [[ -n $SHOE_VENDOR ]]; then
        vendor=$SHOE_VENDOR
        product=$SHOE_PRODUCT
    else
        warn "no --shoe-vendor/--shoe-product: /dev/etg-shoe will not appear until a" \
            "technician fills in the shoe's USB ids (docs/deploy.md, 'The shoe's udev rule')"
    fi
    if [[ -n $SHOE_SERIAL ]]; then
        serial_match="ATTRS{serial}==\"$SHOE_SERIAL\", "
    fi
    unpack_file deploy/99-etg-shoe.rules |
        sed -e "s/@SHOE_VENDOR@/$vendor/" -e "s/@SHOE_PRODUCT@/$product/" \
            -e "s/@SHOE_SERIAL_MATCH@/$serial_match/" >"$WORK/99-etg-shoe.rules"
    install_file "$WORK/99-etg-shoe.rules" "$UDEV_RULE" 0644
    if ((CHANGED)); then
        sys_act udevadm control --reload-rules
        sys_act udevadm trigger --subsystem-match=tty --subsystem-match=misc
    fi
}

# on_system CMD...: true when not under --prefix and CMD succeeds (a query, never a change).
on_system() { [[ -z $PREFIX ]] && "$@" >/dev/null 2>&1; }

install_unit() {
    unpack_file deploy/etg.service >"$WORK/etg.service"
    install_file "$WORK/etg.service" "$UNIT" 0644
    if ((CHANGED)); then
        sys_act systemctl daemon-reload
    fi
    if ! on_system systemctl is-enabled --quiet etg.service; then
        sys_act systemctl enable etg.service
    fi
    # Kiosk: boot to the console, no desktop holding the display (SDL uses KMS/DRM).
    if [[ -n $PREFIX ]] || [[ $(systemctl get-default 2>/dev/null) != multi-user.target ]]; then
        sys_act systemctl set-default multi-user.target
    fi
    if ((NO_START)); then
        say "not starting etg.service (--no-start)"
    elif ((CHANGES > 0)) || ! on_system systemctl is-active --quiet etg.service; then
        sys_act systemctl restart etg.service
    else
        say "unchanged etg.service (running, nothing new to run)"
    fi
}

switch_current() {
    local target=releases/$1 link
    link=$(p "$CURRENT")
    if [[ -L $link && $(readlink "$link") == "$target" ]]; then
        say "unchanged $CURRENT -> $target"
        return 0
    fi
    # A new link renamed over the old one: the switch is atomic.
    act ln -sfn "$target" "$link.new"
    act mv -T -f "$link.new" "$link"
}

main() {
    local info release_id version installer_sha release_dir status self_sha
    parse_args "$@"
    check_tools
    WORK=$(mktemp -d)
    trap cleanup EXIT
    # A private copy: what was verified is what gets unpacked.
    cp -- "$BUNDLE" "$WORK/bundle.etgrel"
    cp -- "$PUBKEY" "$WORK/release.pub"
    verify_bundle "$WORK/bundle.etgrel" "$WORK/release.pub"
    info=$(unpack info "$WORK/bundle.etgrel") || refuse "$BUNDLE: the bundle's content does not match its manifest"
    release_id=$(field release_id "$info")
    version=$(field version "$info")
    installer_sha=$(field installer_sha256 "$info")
    say "release $release_id (version $version)"
    self_sha=$(sha256sum "$0" | cut -d' ' -f1)
    if [[ $installer_sha != "$self_sha" ]]; then
        warn "this install.sh differs from the one inside the bundle; prefer the bundle's"
    fi
    if [[ -e $(p "$TRUSTED_PUB") ]] && ! cmp -s "$WORK/release.pub" "$(p "$TRUSTED_PUB")"; then
        die "$TRUSTED_PUB holds another release key; changing the key is deliberate:" \
            "remove that file first, then install"
    fi
    if [[ -n $PREFIX ]]; then
        say "installing under prefix $PREFIX (system steps skipped)"
    fi
    if ((DRY_RUN)); then
        say "dry run: printing every action, changing nothing"
    fi

    if ((!NO_APT)) && ! on_system dpkg-query -W python3-venv openssl; then
        sys_act apt-get install -y --no-install-recommends python3-venv openssl
    fi
    ensure_user
    ensure_dir "$ETG_HOME" 0755
    ensure_dir "$RELEASES" 0755
    ensure_dir "$CONF_DIR" 0755
    ensure_dir "$STATE_DIR" 0750
    if [[ $(stat -c %U:%G "$(p "$STATE_DIR")" 2>/dev/null) != "$ETG_USER:$ETG_USER" ]]; then
        sys_act chown "$ETG_USER:$ETG_USER" "$(p "$STATE_DIR")"
    fi

    release_dir=$(p "$RELEASES")/$release_id
    if ((DRY_RUN)); then
        if [[ -d $release_dir ]]; then
            say "would check $RELEASES/$release_id against its manifest"
        else
            act unpack extract "$BUNDLE" "$release_dir"
        fi
    else
        info=$(unpack extract "$WORK/bundle.etgrel" "$(p "$RELEASES")") ||
            refuse "could not unpack $BUNDLE"
        status=$(field status "$info")
        if [[ $status == unchanged ]]; then
            say "unchanged $RELEASES/$release_id"
        else
            CHANGES=$((CHANGES + 1))
            say "$status $RELEASES/$release_id"
            if [[ $status == replaced ]]; then
                warn "the installed copy of $release_id had been altered; kept aside and replaced"
            fi
        fi
        verify_manifest "$release_dir"
    fi
    switch_current "$release_id"
    install_python "$release_dir"
    install_launcher
    install_config
    install_journal_secret
    install_udev_rule
    if ((!NO_DEPS)); then
        begin_journal "$release_id"
    fi
    install_unit

    if ((!DRY_RUN && !NO_DEPS)); then
        check env PYTHONPATH="$(p "$CURRENT")" "$(p "$VENV")/bin/python" -B -P -m firmware verify \
            --root "$(p "$CURRENT")" --pubkey "$(p "$TRUSTED_PUB")"
    fi
    if ((DRY_RUN)); then
        say "dry run done: $CHANGES action(s) would be taken"
    elif ((CHANGES == 0)); then
        say "$release_id already installed; nothing changed"
    else
        say "installed $release_id ($CHANGES change(s))"
    fi
}

main "$@"
