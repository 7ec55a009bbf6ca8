#!/bin/sh
# libkiln.so must export exactly the three ICD entry points (STYLE H11).
set -eu
lib=$1
got=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TtDdBbRrVvWwi]$/ {print $3}' | sed 's/@.*//' | sort -u)
want=$(printf '%s\n' clGetExtensionFunctionAddress clGetExtensionFunctionAddressForPlatform \
    clIcdGetPlatformIDsKHR | sort)
if [ "$got" != "$want" ]; then
    echo "unexpected exports of $lib:"
    echo "$got" | diff -u - /dev/fd/3 3<<EOT || true
$want
EOT
    exit 1
fi
echo "exports: $(echo "$got" | tr '\n' ' ')"
