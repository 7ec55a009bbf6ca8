# Sourced by demo.sh and test.sh: make sure the Debian packages Kiln needs are
# installed. As root, missing packages are installed with apt-get; otherwise the
# script names them and stops.
#
# kiln_need_packages PKG...
kiln_need_packages() {
    local missing=()
    local p
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
            missing+=("$p")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "Kiln needs these Debian packages: ${missing[*]}" >&2
        echo "Install them with:  sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
    echo "Installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || true
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# What building Kiln needs.
KILN_BUILD_PACKAGES=(build-essential cmake pkg-config clang-19 llvm-19-dev libclang-19-dev
    libclang-cpp19-dev libhwloc-dev ocl-icd-opencl-dev opencl-headers ocl-icd-libopencl1)
# What the tests need on top: external suites (clinfo, pyopencl, piglit's OpenCL tests,
# CLBlast's correctness tests), PoCL for side-by-side runs, formatting, libFuzzer and the
# sanitizer runtimes of clang-19 (the KILN_FUZZ build, tests/fuzz).
KILN_TEST_PACKAGES=(clinfo pocl-opencl-icd python3 python3-pyopencl python3-numpy clang-format
    piglit clblast-tests libclang-rt-19-dev)
