#!/bin/sh
# Allocation-failure injection run (docs/testing.md, "Allocation failures").
#
#   faults.sh [-t SECONDS] [-s STEP] [-f FIRST] [-a ARGUMENTS] TEST...
#
# For each test binary, runs it (with ARGUMENTS, split at spaces) with KILN_FAIL_ALLOC=N for N = FIRST, FIRST+STEP, ...
# (default 1, 2, 3, ...) until a run reports no injected failure, i.e. N is past the
# last allocation the test makes. Kiln must be built with -DKILN_FAULT_INJECTION=ON,
# and with -DKILN_SANITIZE=address so that LeakSanitizer reports leaks.
#
# A run counts against Kiln when it dies of a signal, outlives SECONDS (default 60),
# or has AddressSanitizer or LeakSanitizer report an error. A test whose checks fail
# because a call answered CL_OUT_OF_HOST_MEMORY is expected and counts for nothing.
# A run that stops at a KT_REQUIRE ("required:" on stderr) abandons the objects the
# test holds, so its leak report is not counted (the summary gives how many); leaks in
# every other run are. The last run (no injected failure) must pass. Exits 1 if any
# run counted.
set -u

timeout_s=60
step=1
first=1
args=
while getopts t:s:f:a: opt; do
    case $opt in
    t) timeout_s=$OPTARG ;;
    s) step=$OPTARG ;;
    f) first=$OPTARG ;;
    a) args=$OPTARG ;;
    *) echo "usage: $0 [-t SECONDS] [-s STEP] [-f FIRST] [-a ARGUMENTS] TEST..." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-t SECONDS] [-s STEP] [-f FIRST] [-a ARGUMENTS] TEST..." >&2; exit 2; }

# Sanitizer reports go to the log; exit code 99 tells them from a test's own failure.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99:detect_leaks=1"
# use_tls=0: LeakSanitizer's thread-stopping tracer can crash reading the thread-local storage
# of threads alive at exit (sub-devices' workers, with the compiler library loaded). Kiln keeps
# no allocation reachable only from thread-local storage; glibc keeps its dlerror() message
# there, which the suppression below accounts for.
log=$(mktemp "${TMPDIR:-/tmp}/kiln-faults-XXXXXX")
supp=$(mktemp "${TMPDIR:-/tmp}/kiln-faults-supp-XXXXXX")
trap 'rm -f "$log" "$supp"' EXIT
printf 'leak:_dlerror_run\nleak:_dl_exception_create_format\n' >"$supp"
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}exitcode=99:use_tls=0:suppressions=$supp"
export ASAN_OPTIONS LSAN_OPTIONS
bad=0
start_all=$(date +%s)

for test in "$@"; do
    name=$(basename "$test")
    start=$(date +%s)
    runs=0 crashes=0 hangs=0 leaks=0 abandoned=0 set_aside=
    n=$first
    while :; do
        KILN_FAIL_ALLOC=$n timeout -k 5 "$timeout_s" "$test" $args >/dev/null 2>"$log"
        rc=$?
        runs=$((runs + 1))
        injected=0
        grep -q '^kiln: injected allocation failure' "$log" && injected=1
        what=
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
            what="hang (killed after ${timeout_s} s)"
            hangs=$((hangs + 1))
        elif grep -q 'ERROR: LeakSanitizer' "$log" && grep -q ': required: ' "$log"; then
            # The test stopped at a KT_REQUIRE and abandoned the objects it held: the
            # leak report cannot tell them from Kiln's, so the run is not counted.
            abandoned=$((abandoned + 1))
            set_aside="$set_aside $n"
        elif grep -q 'ERROR: LeakSanitizer' "$log"; then
            what="leak"
            leaks=$((leaks + 1))
        elif [ $rc -eq 99 ] || grep -q 'ERROR: AddressSanitizer' "$log"; then
            what="AddressSanitizer error"
            crashes=$((crashes + 1))
        elif [ $rc -gt 128 ]; then
            what="crash (signal $((rc - 128)))"
            crashes=$((crashes + 1))
        elif [ $injected -eq 0 ] && [ $rc -ne 0 ]; then
            what="failed with no injected failure (exit $rc)"
            crashes=$((crashes + 1))
        fi
        if [ -n "$what" ]; then
            bad=1
            echo "$name KILN_FAIL_ALLOC=$n: $what"
            sed -n '1,60p' "$log" | sed 's/^/    /'
        fi
        [ $injected -eq 1 ] || break
        n=$((n + step))
    done
    echo "$name: allocations $first..$((n - 1)) step $step, $runs runs: $crashes crashes," \
        "$hangs hangs, $leaks leaks; $abandoned leak reports after a KT_REQUIRE not counted${set_aside:+ (N =$set_aside)}" \
        "($(($(date +%s) - start)) s)"
done
echo "all: $(($(date +%s) - start_all)) s"
exit $bad
