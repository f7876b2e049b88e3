#!/bin/sh
# The Debian packages the floor needs on a development machine or CI: the broker
# (mosquitto), the floor database server (postgresql) and a real browser for the pit-view
# test (chromium, chromium-driver); and the RNG lab's external battery (dieharder, which
# `etg cert run --dieharder` runs on the live DRBG stream). Quick when all are present; as root, installs what is
# missing (apt-get update first); otherwise says what to install and carries on.
set -eu
missing=""
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || missing="$missing mosquitto"
# the broker's cut-off of a quarantined table needs Mosquitto's dynamic security plugin
# (Debian's mosquitto package ships it, 2.0 and later) and its log sieve awk (mawk)
if [ -z "$missing" ] && ! ls /usr/lib/*/mosquitto_dynamic_security.so \
        /usr/lib/mosquitto_dynamic_security.so 2>/dev/null | grep -q .; then
    echo "note: Mosquitto's dynamic security plugin is missing (Mosquitto 2.0 or later ships it): the floor cannot cut a quarantined table off at the broker (docs/floor.md)" >&2
fi
command -v awk >/dev/null 2>&1 || missing="$missing mawk"
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$missing postgresql"
[ -x /usr/bin/chromium ] || missing="$missing chromium"
[ -x /usr/bin/chromedriver ] || missing="$missing chromium-driver"
command -v dieharder >/dev/null 2>&1 || missing="$missing dieharder"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "note: the floor tests and the RNG lab need:$missing (sudo apt-get install$missing); they skip without" >&2
    exit 0
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
