#!/bin/sh
# Fails when the #include "..." lines among the headers of the folders given form a cycle.
#
# Each folder's internal headers should include one another as a layered graph (docs/runtime.md,
# "Files"): a cycle means two headers each need the other, and one of the two should
# forward-declare instead. Every header is a node and every #include "x.h" that names a header
# of the same folder is an edge; tsort (POSIX) orders them and fails on a loop, which it prints.
# A folder without headers fails too, so a mistyped folder cannot pass.
set -eu

if [ $# -eq 0 ]; then
    echo "usage: $0 FOLDER..." >&2
    exit 2
fi

pairs=$(mktemp)
trap 'rm -f "$pairs"' EXIT INT TERM

status=0
for dir in "$@"; do
    found=0
    for header in "$dir"/*.h; do
        [ -f "$header" ] || continue
        found=$((found + 1))
        # A pair of equal names only says that the node exists.
        echo "$header $header" >>"$pairs"
        for name in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' \
            "$header"); do
            [ -f "$dir/$name" ] || continue
            if [ "$dir/$name" = "$header" ]; then
                echo "$header includes itself" >&2
                status=1
                continue
            fi
            echo "$header $dir/$name" >>"$pairs"
        done
    done
    if [ "$found" -eq 0 ]; then
        echo "no headers in $dir" >&2
        status=1
    fi
done

if ! tsort "$pairs" >/dev/null; then
    echo "the #include lines above form a cycle" >&2
    status=1
fi
nodes=$(awk '$1 == $2' "$pairs" | wc -l)
edges=$(awk '$1 != $2' "$pairs" | wc -l)
echo "$nodes headers, $edges includes among them"
exit "$status"
