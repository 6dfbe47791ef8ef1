// Global compaction offsets across MPI ranks: every rank holds some items and
// a keep flag for each (here: multiples of 3 are kept); the exclusive scan of
// the flags over the whole array, in rank order, is the position of each kept
// item in the global output, and its total is the output's size. One
// scangen::mpi::Scan, on OpenCL (PoCL on a CPU); with CUDA, the same with
// Scan::CudaArgs and device pointers.
//
//   mpiexec -n 3 ./global_offsets        (docs/distributed.md)
#include <mpi.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "scangen/mpi/mpi.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int status = 0;
  try {
    scangen::Runtime rt({scangen::Backend::OpenCL});
    // u8 flags in, u64 positions out: input = u8 converts each flag as it is read.
    scangen::mpi::Scan positions(rt, "scan keep_positions { type = u64; input = u8; op = add; mode = exclusive; }",
                                 MPI_COMM_WORLD);

    // This rank's part: 1000 + 7 * rank items, numbered globally; keep the multiples of 3.
    const uint64_t n = 1000 + 7 * static_cast<uint64_t>(rank);
    uint64_t first = 0;
    for (int r = 0; r < rank; ++r) first += 1000 + 7 * static_cast<uint64_t>(r);
    std::vector<uint8_t> keep(n);
    for (uint64_t i = 0; i < n; ++i) keep[i] = (first + i) % 3 == 0;

    cl_int err = CL_SUCCESS;
    cl_mem flags = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n, keep.data(), &err);
    cl_mem out = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE, n * sizeof(uint64_t), nullptr, &err);
    if (err != CL_SUCCESS) throw scangen::Error("clCreateBuffer failed with OpenCL error " + std::to_string(err));
    scangen::Scan::OpenCLArgs part;
    part.in = flags;
    part.exclusive = out;
    part.n = n;
    uint64_t kept = 0;  // the whole array's total: every rank gets it
    positions.run(part, &kept);

    std::vector<uint64_t> at(n);
    clEnqueueReadBuffer(rt.opencl_queue(), out, CL_TRUE, 0, n * sizeof(uint64_t), at.data(), 0, nullptr, nullptr);
    // Item first + i is kept at position (first + i + 2) / 3 of the output: check every one.
    for (uint64_t i = 0; i < n; ++i)
      if (at[i] != (first + i + 2) / 3) status = 1;
    uint64_t all_items = 0;
    for (int r = 0; r < ranks; ++r) all_items += 1000 + 7 * static_cast<uint64_t>(r);
    if (kept != (all_items + 2) / 3) status = 1;
    std::printf("rank %d: items %llu - %llu go to output positions %llu - %llu of %llu%s\n", rank,
                static_cast<unsigned long long>(first), static_cast<unsigned long long>(first + n - 1),
                static_cast<unsigned long long>(at.front()), static_cast<unsigned long long>(at.back()),
                static_cast<unsigned long long>(kept), status ? " (WRONG)" : "");
    clReleaseMemObject(flags);
    clReleaseMemObject(out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    status = 1;
  }
  int any = 0;
  MPI_Allreduce(&status, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
