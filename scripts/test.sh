#!/usr/bin/env bash
# Build Kiln with warnings as errors and run every test (ctest), through the
# real ICD loader.
#
#   scripts/test.sh [build-dir]      (default: build-test)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-test}
. "$here/scripts/deps.sh"
kiln_need_packages "${KILN_BUILD_PACKAGES[@]}" "${KILN_TEST_PACKAGES[@]}"

cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_WERROR=ON >/dev/null
cmake --build "$build" -j2
cd "$build"
ctest --output-on-failure -j2 --timeout 600
