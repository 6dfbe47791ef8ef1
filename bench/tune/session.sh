#!/usr/bin/env bash
# One GPU session of tuning experiments, after `scripts/gpu-check build`:
#   bash bench/tune/session.sh [TAG [SET [LOG2N]]]
# tune_bench over the variant files bench/tune/SET_{narrow,4byte,8byte,16byte}.txt
# (SET: words by default; a missing file is skipped) at N = 2^LOG2N (a list,
# default 20,24,28), then, unless NCU=0, the SASS summary of the table's
# kernels (bench/sass_summary.sh) and Nsight Compute counters of the table's
# kernels at 2^28 (when ncu is there). Everything under $OUT, named TAG_*.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/tune}"; mkdir -p "$out"
tag="${1:-words}"
set="${2:-words}"
log2n="${3:-20,24,28}"
spec=bench/specs/device_bench.scan
tb() { .gpu/tune_bench --spec "$spec" --log2n "$log2n" --runs "${RUNS:-25}" "$@"; }
run_set() {  # class, cases...
  local f="bench/tune/${set}_$1.txt"; shift
  [ -f "$f" ] || return 0
  local cases=()
  for c in "$@"; do cases+=(--case "$c"); done
  tb "${cases[@]}" --variants "$f" --csv "$out/${tag}_$(basename "$f" .txt | sed "s/^${set}_//").csv"
}
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  run_set narrow sum_i8 sum_i16
  run_set 4byte sum_i32 max_i32 sum_f32
  run_set 8byte sum_i64 sum_f64 affine
  run_set 16byte mat2
} 2>&1 | tee "$out/${tag}_tune.log"
[ "${NCU:-1}" = 0 ] && exit 0
[ -d .gpu/cubin ] && bash bench/sass_summary.sh .gpu/cubin > "$out/${tag}_sass.txt" 2>&1
if command -v ncu >/dev/null; then
  m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
  m=$m,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  m=$m,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers
  m=$m,launch__occupancy_limit_shared_mem,smsp__inst_executed.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum
  for c in sum_i32 sum_i8 sum_i16 sum_i64 affine mat2; do
    timeout 120 ncu --clock-control none -k regex:scan_kernel --launch-skip 1 --launch-count 1 --metrics "$m" \
      .gpu/tune_bench --spec "$spec" --case "$c" --log2n 28 --runs 1 --warmup 0 2>&1 | grep -v "^# \|^==PROF==" 
  done > "$out/${tag}_ncu.txt" 2>&1
fi
