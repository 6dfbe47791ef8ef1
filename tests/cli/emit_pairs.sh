#!/usr/bin/env bash
# Runs of `scangen emit -o OUT --header H` writing one pair of paths at once
# take turns: once both are done, OUT and H come from the same run (without
# the turns, about one round in six left a .cu of one spec beside the .h of
# the other).
#
#   emit_pairs.sh SCANGEN WORK_DIR [ROUNDS]
set -euo pipefail
scangen=$1 work=$2 rounds=${3:-40}
rm -rf "$work"
mkdir -p "$work"
# Two specs whose texts are large enough that writing one takes a while.
for name in alpha beta; do
  printf 'scan %s { type = i32; op = add; mode = both; outputs = aggregate; }\n' "$name" >"$work/$name.scan"
done
for ((round = 0; round < rounds; ++round)); do
  "$scangen" emit "$work/alpha.scan" -o "$work/out.cu" --header "$work/out.h" &
  a=$!
  "$scangen" emit "$work/beta.scan" -o "$work/out.cu" --header "$work/out.h" &
  b=$!
  wait "$a"
  wait "$b"
  for name in alpha beta; do
    in_cu=$(grep -c "${name}_scan_kernel" "$work/out.cu" || true)
    in_h=$(grep -c "${name}_inclusive_exclusive" "$work/out.h" || true)
    if { [ "$in_cu" -gt 0 ] && [ "$in_h" -eq 0 ]; } || { [ "$in_cu" -eq 0 ] && [ "$in_h" -gt 0 ]; }; then
      echo "round $round: out.cu and out.h come from different runs ($name: $in_cu lines in .cu, $in_h in .h)" >&2
      exit 1
    fi
  done
done
echo "$rounds rounds: every pair from one run"
