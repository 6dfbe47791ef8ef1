// The portable dialect, CUDA side. The templates under common/ are written
// once against these macros; opencl/dialect.cl defines the same names.
//
//   SG_FN             qualifiers of a device function (inlined, may go unused)
//   SG_KERNEL         qualifiers of an entry kernel
//   SG_BOUNDS(n)      an entry kernel is launched with n threads per block
//                     (so the compiler fits its registers to n)
//   SG_BOUNDS_MIN(n, m)  the same, and m blocks should fit on one SM at once
//   SG_LOCAL          address space of a pointer to block-shared memory
//   SG_GLOBAL         address space of a pointer to device memory
//   SG_SHARED         declares block-shared memory at kernel scope
//   SG_ALIGN16        aligns a declaration to 16 bytes (the exchange's words)
//   SG_BARRIER()      block-wide barrier that also orders shared memory
//   SG_THREAD()       this thread's index in its (1-D) block
//   SG_BLOCK()        this block's index in the (1-D) grid, 64-bit
//   SG_LOAD_STREAMING(p), SG_STORE_STREAMING(p, v)
//                     a 16-byte word read or written once (evicted first)
//   SG_SHUFFLES       1: the shuffles below exist (common/lanes_shfl.h)
//   SG_LANE_ID()      this thread's lane in its warp of 32
//   SG_SHFL_UP(mask, w, d), SG_SHFL_IDX(mask, w, lane)
//                     a 32-bit word of the lane d below / of that lane
#ifndef SCANGEN_DIALECT
#define SCANGEN_DIALECT
#define SG_FN static __device__ __forceinline__ __attribute__((unused))
#define SG_KERNEL extern "C" __global__
#define SG_BOUNDS(n) __launch_bounds__(n)
#define SG_BOUNDS_MIN(n, m) __launch_bounds__(n, m)
#define SG_LOCAL
#define SG_GLOBAL
#define SG_SHARED __shared__
#define SG_ALIGN16 __align__(16)
#define SG_BARRIER() __syncthreads()
// Every lane of the warp together again, where one lane alone has run code
// that may sleep (its status published) and no barrier follows at once: on
// the H200 ptxas's reconvergence did not hold the other lanes for a thread 0
// sleeping there, and the __syncthreads they reached let the block pass
// without it (bench/RESULTS.md, 2026-12-02). Called by every thread.
#define SG_WARP_CONVERGE() __syncwarp()
#define SG_THREAD() ((int)threadIdx.x)
#define SG_BLOCK() ((unsigned long long)blockIdx.x)
#define SG_LOAD_STREAMING(p) __ldcs(p)
#define SG_STORE_STREAMING(p, v) __stcs((p), (v))
#define SG_SHUFFLES 1
#define SG_LANE_ID() (threadIdx.x & 31u)
#define SG_SHFL_UP(mask, w, d) __shfl_up_sync((mask), (w), (d))
#define SG_SHFL_IDX(mask, w, lane) __shfl_sync((mask), (w), (lane))
#endif
