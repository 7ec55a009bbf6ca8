#!/usr/bin/env bash
# Build Kiln in the three ways CI checks it and run the tests of each (docs/testing.md, "What CI
# runs"), through the real ICD loader:
#
#   optimised  RelWithDebInfo, warnings as errors: every test, the external suites included.
#   checked    Debug (assertions, the IR verified after every compiler stage) built by Clang with
#              AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer, allocation-failure
#              injection and fuzzing instrumentation: every test, piglit and CLBlast included,
#              but those labelled `no-sanitize` (the benchmark's smoke run: it loads PoCL, whose
#              LLVM leaks at exit; piglit's builtin groups: they test kernel code, which the
#              sanitizers do not instrument), the compiler tests again with the IR verified after every LLVM
#              pass (KILN_VERIFY_EACH=1), then the allocation-failure sweep (`faults`) and the
#              fuzzers (`fuzz`, seconds each).
#   tsan       ThreadSanitizer: every test labelled `threaded`.
#
#   scripts/test.sh [build-dir]      (default: build-test; the other two builds go beside it,
#                                     as build-dir-checked and build-dir-tsan)
#
# KILN_TEST_BUILDS picks the builds, comma-separated (default optimised,checked,tsan): a quick
# local check is KILN_TEST_BUILDS=optimised scripts/test.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-test}
. "$here/scripts/deps.sh"
kiln_need_packages "${KILN_BUILD_PACKAGES[@]}" "${KILN_TEST_PACKAGES[@]}"

builds=${KILN_TEST_BUILDS:-optimised,checked,tsan}
summary=()
failed=0

# step NAME COMMAND...: runs a step, keeps going when it fails, and records its time.
step() {
    local name=$1 start rc=0
    shift
    start=$(date +%s)
    echo "=== $name"
    "$@" || rc=$?
    summary+=("$(printf '%-22s %5ss  %s' "$name" $(($(date +%s) - start)) \
        "$([ $rc -eq 0 ] && echo ok || echo "FAILED ($rc)")")")
    [ $rc -eq 0 ] || failed=1
}

configure_and_build() {
    local dir=$1
    shift
    cmake -S "$here" -B "$dir" -DKILN_WERROR=ON "$@" >/dev/null && cmake --build "$dir" -j2
}

run_ctest() {
    local dir=$1
    shift
    (cd "$dir" && ctest --output-on-failure -j2 --timeout 900 "$@")
}

# with_env VAR=value... -- COMMAND...: runs COMMAND (a function too) with those variables set.
with_env() {
    local vars=()
    while [ "$1" != -- ]; do
        vars+=("$1")
        shift
    done
    shift
    (
        export "${vars[@]}"
        "$@"
    )
}

want() { case ",$builds," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

if want optimised; then
    step "optimised: build" configure_and_build "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
    step "optimised: tests" run_ctest "$build" -LE "^faults$|^fuzz$"
fi

if want checked; then
    checked=$build-checked
    # -O1 keeps the sanitized tests within their timeouts; Debug leaves NDEBUG undefined.
    step "checked: build" configure_and_build "$checked" -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
        -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
        -DKILN_SANITIZE=address,undefined -DKILN_FAULT_INJECTION=ON -DKILN_FUZZ=ON
    step "checked: tests" with_env ASAN_OPTIONS=detect_leaks=1 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 -- \
        run_ctest "$checked" -LE "^faults$|^fuzz$|^no-sanitize$"
    step "checked: VerifyEach" with_env KILN_VERIFY_EACH=1 ASAN_OPTIONS=detect_leaks=1 -- \
        run_ctest "$checked" -L "^compiler$"
    step "checked: faults" run_ctest "$checked" -L "^faults$"
    step "checked: fuzzers" run_ctest "$checked" -L "^fuzz$"
fi

if want tsan; then
    tsan=$build-tsan
    step "tsan: build" configure_and_build "$tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DKILN_SANITIZE=thread
    step "tsan: tests" with_env TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 -- \
        run_ctest "$tsan" -L "^threaded$"
fi

echo "=== summary"
printf '%s\n' "${summary[@]}"
exit $failed
