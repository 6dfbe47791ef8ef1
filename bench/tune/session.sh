#!/usr/bin/env bash
# One GPU session of tuning experiments, after `scripts/gpu-check build`:
#   bash bench/tune/session.sh [TAG]
# tune_bench over the variant files of bench/tune, the SASS summary of the
# table's kernels (bench/sass_summary.sh), and Nsight Compute counters of the
# table's kernels at 2^28 (when ncu is there). Everything under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/tune}"; mkdir -p "$out"
tag="${1:-words}"
spec=bench/specs/device_bench.scan
tb() { .gpu/tune_bench --spec "$spec" --log2n 20,24,28 --runs 25 "$@"; }
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  tb --case sum_i8 --case sum_i16 --case sum_f16 --variants bench/tune/words_narrow.txt --csv "$out/${tag}_narrow.csv"
  tb --case sum_i32 --case max_i32 --case sum_f32 --variants bench/tune/words_4byte.txt --csv "$out/${tag}_4byte.csv"
  tb --case sum_i64 --case affine --variants bench/tune/words_8byte.txt --csv "$out/${tag}_8byte.csv"
  tb --case mat2 --variants bench/tune/words_16byte.txt --csv "$out/${tag}_16byte.csv"
} 2>&1 | tee "$out/${tag}_tune.log"
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
