#!/bin/sh
# A longer fuzzing run of one harness (docs/testing.md, "Fuzzing"), in a build configured
# with -DKILN_FUZZ=ON (and, to catch more than crashes, -DKILN_SANITIZE=address,undefined).
#
#   tests/fuzz/run.sh [-t SECONDS] [-j JOBS] BUILD HARNESS [LIBFUZZER-OPTION...]
#
# HARNESS is build_source, program_binary or cache_entry. The run keeps its corpus in
# BUILD/fuzz/HARNESS/corpus, started from the committed seeds (and, for the two container
# harnesses, from binaries made here by fuzz_make_seeds) and growing from run to run; the
# committed corpus is never written. An input that crashes, leaks, runs past -timeout or
# past -rss_limit_mb is written to BUILD/fuzz/HARNESS/ as crash-*, leak-*, timeout-* or
# oom-*. Default: 600 seconds, one job. Options after HARNESS go to libFuzzer as they are.
set -eu
seconds=600 jobs=1
while getopts t:j: opt; do
    case $opt in
    t) seconds=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) echo "usage: run.sh [-t SECONDS] [-j JOBS] BUILD HARNESS [LIBFUZZER-OPTION...]" >&2
       exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: run.sh [-t SECONDS] [-j JOBS] BUILD HARNESS [LIBFUZZER-OPTION...]" >&2; exit 2; }
build=$(cd "$1" && pwd) name=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
harness=$build/tests/fuzz/fuzz_$name
[ -x "$harness" ] || { echo "run.sh: no $harness (configure with -DKILN_FUZZ=ON)" >&2; exit 1; }
work=$build/fuzz/$name
mkdir -p "$work/corpus"
export OCL_ICD_VENDORS="$build/vendors" OCL_ICD_FILENAMES=
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export TMPDIR="$work"
seeds=$src/corpus/fuzz_$name
if [ "$name" != build_source ]; then
    mkdir -p "$work/seeds"
    "$build/tests/fuzz/fuzz_make_seeds" "$work/seeds" "$src"/corpus/fuzz_build_source/*.cl
    seeds="$seeds $work/seeds"
fi
# More than one job runs that many processes side by side, each logging to fuzz-N.log in the
# current directory; one job runs in this process.
parallel=
[ "$jobs" -le 1 ] || parallel="-jobs=$jobs -workers=$jobs"
# The first directory is the one libFuzzer adds new inputs to; the seeds are only read.
# shellcheck disable=SC2086
exec "$harness" -max_total_time="$seconds" $parallel -timeout=60 \
    -rss_limit_mb=4096 -artifact_prefix="$work/" -print_final_stats=1 "$@" \
    "$work/corpus" $seeds
