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
#define SG_THREAD() ((int)get_local_id(0))
#define SG_BLOCK() ((ulong)get_group_id(0))
#endif
