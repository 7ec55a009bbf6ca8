#!/bin/sh
# clinfo_check.sh: runs the clinfo tool against the OpenCL platforms the ICD loader sees and checks
# that a platform whose name contains SUBSTRING (default "Kiln") is listed with a device, that a
# full `clinfo` run exits 0, and that the platform's device reports "Device Type ... CPU".
#
# usage: clinfo_check.sh [SUBSTRING]
# SUBSTRING defaults to $KILN_TEST_PLATFORM when set (as for the other external tests), else "Kiln".
# $CLINFO names the clinfo binary (default: clinfo on $PATH). A line where clinfo reports a failed
# query (an error code, "Invalid", "<...: error ...>") fails the check: every query clinfo makes
# is one a user's program may make too.
set -u

want=${1:-${KILN_TEST_PLATFORM:-Kiln}}
clinfo=${CLINFO:-clinfo}
status=0

fail() {
    echo "clinfo_check: FAIL: $*"
    status=1
}

if ! command -v "$clinfo" >/dev/null 2>&1; then
    echo "clinfo_check: FAIL: '$clinfo' not found (install the clinfo package)"
    exit 1
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# 1. The short listing: "Platform #N: <name>" followed by " `-- Device #M: <name>" lines.
"$clinfo" -l >"$tmp/list" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "'clinfo -l' exited with $rc"
platform=$(grep -E '^Platform #[0-9]+: ' "$tmp/list" | grep -F -- "$want" | head -n 1)
if [ -z "$platform" ]; then
    fail "'clinfo -l' lists no platform whose name contains \"$want\""
else
    devices=$(awk -v want="$want" '
        /^Platform #[0-9]+: / { inside = index($0, want) > 0; next }
        inside && /Device #[0-9]+: / { n++ }
        END { print n + 0 }' "$tmp/list")
    [ "$devices" -gt 0 ] || fail "platform \"$want\" is listed without any device"
    echo "clinfo_check: listed: $platform ($devices device(s))"
fi

# 2. The full report. In its per-device part each device follows a "  Platform Name" line.
"$clinfo" >"$tmp/full" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "'clinfo' exited with $rc"
types=$(awk -v want="$want" '
    /^  Platform Name / { inside = index($0, want) > 0; next }
    inside && /^  Device Type / { sub(/^  Device Type +/, ""); print }' "$tmp/full")
if [ -z "$types" ]; then
    fail "full clinfo shows no \"Device Type\" for platform \"$want\""
elif ! echo "$types" | grep -q 'CPU'; then
    fail "platform \"$want\" reports Device Type '$types', expected CPU"
else
    echo "clinfo_check: Device Type: $(echo "$types" | head -n 1)"
fi

failed=$(grep -E 'error -?[0-9]+|Invalid|<.*: error' "$tmp/full")
if [ -n "$failed" ]; then
    fail "clinfo reported failed queries:"
    echo "$failed" | sed 's/^/    /'
fi

if [ $status -ne 0 ]; then
    echo "--- clinfo -l ---"
    cat "$tmp/list"
    echo "--- clinfo (first 60 lines) ---"
    head -n 60 "$tmp/full"
else
    echo "clinfo_check: OK"
fi
exit $status
