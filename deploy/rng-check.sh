#!/usr/bin/env bash
# `make rng-check`: a short statistical battery on the table's RNG (not part of `make test`).
#
# Installs dieharder, ent and rng-tools5 (rngtest) from Debian with apt-get when missing,
# then runs, on raw output of `etg rng stream` (the configured DRBG, seeded from the
# configured entropy source after its power-up self-test):
#   1. the NIST CAVP known-answer tests (`etg rng kat`);
#   2. ent on 16 MB: entropy per byte and the chi-square of byte frequencies;
#   3. rngtest (FIPS 140-2 tests) on 2,000 blocks of 20,000 bits;
#   4. dieharder -g 200 (raw stdin) on a short list of tests, each in "resolve ambiguity"
#      mode (-Y 1: a WEAK result is retested with more samples until PASSED or FAILED).
# Pass criteria and their false-alarm rates are printed with each step.
#
# Environment: ETG (default .venv/bin/etg), RNG_CHECK_SEED=HEX to rerun one battery on a
# fixed bench seed (reproducible), RNG_CHECK_TESTS to choose the dieharder test numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
ETG=${ETG:-.venv/bin/etg}
SEED_ARGS=()
if [ -n "${RNG_CHECK_SEED:-}" ]; then
    SEED_ARGS=(--seed-hex "$RNG_CHECK_SEED")
fi
stream() { "$ETG" rng stream "${SEED_ARGS[@]}" "$@"; }

need=()
command -v dieharder >/dev/null 2>&1 || need+=(dieharder)
command -v ent >/dev/null 2>&1 || need+=(ent)
command -v rngtest >/dev/null 2>&1 || need+=(rng-tools5)
if [ ${#need[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "rng-check: installing ${need[*]} from Debian"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${need[@]}"
fi

failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== 1. known-answer tests"
"$ETG" rng kat --quiet | tail -n 1 || failed=1

echo "== 2. ent, 16 MB (pass: entropy > 7.9999 bits/byte, chi-square tail 0.01%..99.99%)"
stream --bytes 16000000 > "$work/stream.bin"
ent "$work/stream.bin" | tee "$work/ent.txt"
entropy=$(awk '/^Entropy =/ {print $3}' "$work/ent.txt")
percent=$(sed -n 's/.*exceed this value \(less than \|more than \)\{0,1\}\([0-9.]*\) percent.*/\2/p' \
    "$work/ent.txt")
if ! awk -v e="$entropy" -v p="$percent" 'BEGIN { exit !(e > 7.9999 && p > 0.01 && p < 99.99) }'
then
    echo "FAIL ent: entropy $entropy, chi-square exceeded $percent% of the time"
    failed=1
else
    echo "PASS ent: entropy $entropy bits/byte, chi-square tail $percent%"
fi

echo "== 3. rngtest (FIPS 140-2), 2000 blocks (pass: <= 6 failed blocks;" \
     "a good generator fails ~1.6 in 2000, P(> 6) < 0.3%)"
set +o pipefail
stream | rngtest -c 2000 2> "$work/rngtest.txt" || true
set -o pipefail
grep -E "successes|failures" "$work/rngtest.txt" | head -n 3
fips_fail=$(awk -F': ' '/FIPS 140-2 failures/ {print $NF; exit}' "$work/rngtest.txt")
if [ -z "$fips_fail" ] || [ "$fips_fail" -gt 6 ]; then
    echo "FAIL rngtest: ${fips_fail:-no result} failed blocks"
    failed=1
else
    echo "PASS rngtest: $fips_fail failed blocks of 2000"
fi

# 0 birthdays, 2 rank 32x32, 3 rank 6x8, 8 count-the-1s (stream), 15 runs,
# 100 sts monobit, 101 sts runs, 202 rgb kstest (permutations)
tests=${RNG_CHECK_TESTS:-"0 2 3 8 15 100 101 202"}
echo "== 4. dieharder -g 200, tests: $tests (pass: no FAILED after ambiguity resolution)"
for t in $tests; do
    set +o pipefail
    stream | dieharder -g 200 -d "$t" -Y 1 > "$work/dh.txt" 2>&1 || true
    set -o pipefail
    grep -E "PASSED|WEAK|FAILED" "$work/dh.txt" || { cat "$work/dh.txt"; failed=1; }
    if grep -q "FAILED" "$work/dh.txt"; then
        failed=1
    fi
done

if [ "$failed" -ne 0 ]; then
    echo "rng-check: FAILED"
    exit 1
fi
echo "rng-check: passed"
