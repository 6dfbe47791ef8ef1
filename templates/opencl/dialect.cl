// The portable dialect, OpenCL C 1.2 side: the names of cuda/dialect.cuh.
#ifndef SCANGEN_DIALECT
#define SCANGEN_DIALECT
#define SG_FN static inline
#define SG_KERNEL __kernel
#define SG_BOUNDS(n) __attribute__((reqd_work_group_size(n, 1, 1)))
#define SG_BOUNDS_MIN(n, m) SG_BOUNDS(n)
#define SG_LOCAL __local
#define SG_GLOBAL __global
#define SG_SHARED __local
#define SG_ALIGN16 __attribute__((aligned(16)))
#define SG_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define SG_WARP_CONVERGE() ((void)0)  // (CUDA's __syncwarp; OpenCL C 1.2 has no such thing)
#define SG_THREAD() ((int)get_local_id(0))
#define SG_BLOCK() ((ulong)get_group_id(0))
#define SG_LOAD_STREAMING(p) (*(p))
#define SG_STORE_STREAMING(p, v) (*(p) = (v))
// PTX in inline assembly: where the runtime built the program with
// SCANGEN_OPENCL_PTX=1 (NVIDIA's OpenCL, whose compiler takes it; its
// OpenCL C 1.2 has no cl_khr_subgroups; its work-groups run in warps of 32
// consecutive work-items). Then the lane scans use the warp's shuffles
// (cuda/dialect.cuh's SG_SHUFFLES, SG_LANE_ID, SG_SHFL_UP, SG_SHFL_IDX; off
// with SCANGEN_OPENCL_SHUFFLES=0), the look-back is the first warp's, 32
// statuses a read (SG_WARP_LOOKBACK, with SG_SHFL_DOWN and SG_BALLOT; off
// with SCANGEN_OPENCL_WARP_LOOKBACK=0), and it may sleep (SG_CAN_SLEEP,
// SG_SLEEP_NS(ns)). Elsewhere none of these: the lane scans go through local
// memory (opencl/lanes_local.cl) and work-item 0 looks back alone, spinning.
#if defined(SCANGEN_OPENCL_PTX) && SCANGEN_OPENCL_PTX == 1
#define SG_CAN_SLEEP 1
static inline void scangen_nanosleep(uint ns) { asm volatile("nanosleep.u32 %0;" ::"r"(ns)); }
#define SG_SLEEP_NS(ns) scangen_nanosleep(ns)
static inline uint scangen_shfl_down(uint mask, uint w, uint d) {
  uint r;
  asm volatile("shfl.sync.down.b32 %0, %1, %2, 31, %3;" : "=r"(r) : "r"(w), "r"(d), "r"(mask));
  return r;
}
static inline uint scangen_shfl_idx(uint mask, uint w, int lane) {
  uint r;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 31, %3;" : "=r"(r) : "r"(w), "r"(lane), "r"(mask));
  return r;
}
// The lanes of `mask` whose `pred` is not 0, as bits.
static inline uint scangen_ballot(uint mask, int pred) {
  uint r;
  asm volatile("{\n .reg .pred p;\n setp.ne.s32 p, %1, 0;\n vote.sync.ballot.b32 %0, p, %2;\n}"
               : "=r"(r)
               : "r"(pred), "r"(mask));
  return r;
}
#define SG_SHFL_DOWN(mask, w, d) scangen_shfl_down((mask), (w), (d))
#define SG_SHFL_IDX(mask, w, lane) scangen_shfl_idx((mask), (w), (lane))
#define SG_BALLOT(mask, pred) scangen_ballot((mask), (pred))
#if !defined(SCANGEN_OPENCL_WARP_LOOKBACK) || SCANGEN_OPENCL_WARP_LOOKBACK == 1
#define SG_WARP_LOOKBACK 1
#endif
#if !defined(SCANGEN_OPENCL_SHUFFLES) || SCANGEN_OPENCL_SHUFFLES == 1
#define SG_SHUFFLES 1
static inline uint scangen_lane_id(void) {
  uint r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
static inline uint scangen_shfl_up(uint mask, uint w, uint d) {
  uint r;
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, %3;" : "=r"(r) : "r"(w), "r"(d), "r"(mask));
  return r;
}
#define SG_LANE_ID() scangen_lane_id()
#define SG_SHFL_UP(mask, w, d) scangen_shfl_up((mask), (w), (d))
#endif
#endif
#ifndef SG_SHUFFLES
#define SG_SHUFFLES 0
#endif
#ifndef SG_CAN_SLEEP
#define SG_CAN_SLEEP 0
#endif
#ifndef SG_WARP_LOOKBACK
#define SG_WARP_LOOKBACK 0
#endif
#endif
