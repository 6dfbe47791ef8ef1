#!/usr/bin/env bash
# The SASS of each cubin in a folder, summarised: registers, stack and local
# memory, and the count of each kind of global and shared access (16-byte
# LDG/STG/LDS/STS wanted on the full-tile paths, no LDL/STL spills).
#   bash bench/sass_summary.sh DIR      (needs cuobjdump)
set -uo pipefail
for f in "$1"/*.cubin; do
  sass=$(cuobjdump -sass "$f")
  res=$(cuobjdump -res-usage "$f" 2>&1 | grep -oE "REG:[0-9]+|STACK:[0-9]+|SHARED:[0-9]+|LOCAL:[0-9]+" | tr '\n' ' ')
  count() { grep -cE "$1" <<<"$sass"; }
  printf '%s: %s LDG.128=%s STG.128=%s LDG=%s STG=%s LDS.128=%s STS.128=%s LDS=%s STS=%s LDL=%s STL=%s PRMT=%s instructions=%s\n' \
    "$(basename "$f" .cubin)" "$res" "$(count 'LDG[.A-Z0-9]*\.128')" "$(count 'STG[.A-Z0-9]*\.128')" \
    "$(count ' LDG')" "$(count ' STG')" "$(count 'LDS\.128')" "$(count 'STS\.128')" "$(count ' LDS')" \
    "$(count ' STS')" "$(count ' LDL')" "$(count ' STL')" "$(count ' PRMT')" "$(count '^ +/\*[0-9a-f]{4,}\*/')"
done
