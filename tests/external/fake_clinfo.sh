#!/bin/sh
# fake_clinfo.sh: stands in for clinfo in external/clinfo-catches-errors, the check that
# clinfo_check.sh fails when clinfo reports a failed query. It lists a Kiln CPU device, as
# clinfo would, and reports one query as failed, as clinfo prints it.
if [ "${1:-}" = "-l" ]; then
    printf 'Platform #0: Kiln\n `-- Device #0: a CPU\n'
    exit 0
fi
printf '  Platform Name                                   Kiln\n'
printf '  Device Type                                     CPU\n'
printf '  Max sub-groups per work-group                   <getWGsizes:1504: create kernel : error -46>\n'
