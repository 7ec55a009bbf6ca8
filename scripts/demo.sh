#!/usr/bin/env bash
# Build Kiln and run an example through the ICD loader: the example prints the
# platform and device Kiln reports and checks its result against the CPU.
#
#   scripts/demo.sh [build-dir]      (default: build)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
. "$here/scripts/deps.sh"
kiln_need_packages "${KILN_BUILD_PACKAGES[@]}"

cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2

# Only Kiln: the loader reads the build tree's vendor directory, not /etc.
export OCL_ICD_VENDORS="$build/vendors"
unset OCL_ICD_FILENAMES
"$build/examples/vector_add"
"$build/examples/saxpy"
