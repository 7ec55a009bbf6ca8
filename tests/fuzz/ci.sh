#!/bin/sh
# One bounded fuzzing run for ctest (label fuzz; docs/testing.md, "Fuzzing").
#
#   ci.sh HARNESS SECONDS WORKDIR SEEDDIR...
#
# Copies the seeds into WORKDIR/corpus (emptied first: the committed corpus never grows
# during a test run) and fuzzes for SECONDS. libFuzzer exits non-zero on a crash, a
# sanitizer report, a leak (where LeakSanitizer runs), an input slower than -timeout or a
# process past -rss_limit_mb; the input that did it is left in WORKDIR as crash-*, leak-*,
# timeout-* or oom-*, and its name is printed.
set -eu
[ $# -ge 4 ] || { echo "usage: ci.sh HARNESS SECONDS WORKDIR SEEDDIR..." >&2; exit 2; }
harness=$1 seconds=$2 work=$3
shift 3
rm -rf "$work"
mkdir -p "$work/corpus"
for dir in "$@"; do
    [ -d "$dir" ] || { echo "ci.sh: no seed directory $dir" >&2; exit 1; }
    # The seed files: plain files only, never a README.
    find "$dir" -maxdepth 1 -type f ! -name 'README*' -exec cp {} "$work/corpus/" \;
done
n=$(find "$work/corpus" -type f | wc -l)
[ "$n" -gt 0 ] || { echo "ci.sh: no seeds in $*" >&2; exit 1; }
echo "ci.sh: $n seeds, $seconds s"
# -timeout: one input, the slowest being a build from source under the sanitizers.
# -rss_limit_mb: Clang and LLVM in the process, under AddressSanitizer.
# The cache harness makes its directory under TMPDIR: keep it in the work directory.
export TMPDIR="$work"
exec "$harness" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 \
    -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus"
