#!/bin/sh
# run-bench.sh: runs kiln-bench with the ICD loader seeing exactly two drivers, the build's Kiln
# (BUILD_DIR/vendors/kiln.icd) and the system's PoCL (/etc/OpenCL/vendors/pocl.icd), so that
# they are measured side by side. Works from any directory.
#
# usage: run-bench.sh BUILD_DIR [kiln-bench options, e.g. --case triad --reps 21]
# $KILN_BENCH overrides the benchmark binary (default BUILD_DIR/tests/perf/kiln-bench);
# $KILN_BENCH_POCL_ICD overrides PoCL's .icd file.
set -u

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    echo "usage: $0 BUILD_DIR [kiln-bench options]" >&2
    exit 2
fi
build=$(cd "$1" && pwd) || exit 2
shift

bench=${KILN_BENCH:-$build/tests/perf/kiln-bench}
if [ ! -x "$bench" ]; then
    echo "run-bench.sh: $bench is not built (cmake --build $build --target kiln-bench)" >&2
    exit 2
fi

vendors=$(mktemp -d "${TMPDIR:-/tmp}/kiln-bench-vendors.XXXXXX") || exit 2
trap 'rm -rf "$vendors"' EXIT
trap 'exit 130' INT TERM

if [ -f "$build/vendors/kiln.icd" ]; then
    cp "$build/vendors/kiln.icd" "$vendors/kiln.icd"
else
    echo "run-bench.sh: note: no $build/vendors/kiln.icd, so Kiln will be absent" >&2
fi
pocl_icd=${KILN_BENCH_POCL_ICD:-/etc/OpenCL/vendors/pocl.icd}
if [ -f "$pocl_icd" ]; then
    cp "$pocl_icd" "$vendors/pocl.icd"
else
    echo "run-bench.sh: note: no $pocl_icd, so PoCL will be absent" >&2
fi

OCL_ICD_VENDORS=$vendors
export OCL_ICD_VENDORS
unset OCL_ICD_FILENAMES

"$bench" "$@"
