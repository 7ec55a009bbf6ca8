#!/bin/sh
# Fails when the shared library $1 defines a dynamic symbol other than those named
# after it.
lib=$1
shift
symbols=$(nm -D --defined-only "$lib" | awk '{ print $3 }') || exit 1
status=0
for s in $symbols; do
    case " $* " in
    *" $s "*) ;;
    *) echo "unexpected export: $s"; status=1 ;;
    esac
done
exit $status
