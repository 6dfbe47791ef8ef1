// mpi_bench: what the distributed scan costs over one process's scan of the
// same total size, step by step. Run under mpiexec with P ranks:
//
//   mpiexec -n P build/default/mpi/bench/scangen_mpi_bench [TOTAL_ELEMENTS] [RUNS]
//
// The array (i64 sums, TOTAL elements, 2^24 by
// default) is split evenly; each rank's device is its OpenCL device (PoCL on
// a CPU: the ranks share the machine's cores). Rank 0 first times one
// process's scan of the whole array (the spec's own build), then every rank
// times, RUNS times after a warm-up, with a barrier before each: the whole
// scangen::mpi::Scan::run, and its steps alone — the reduce of the part
// (Scan::reduce), the collective (MPI_Allgather of one element per rank), and
// the scan of the part from a carry (the running-total build). Rank 0 prints
// the medians (of the slowest rank per run) and the passes over the data.
#include <mpi.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "scangen/mpi/mpi.h"

namespace {

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The median over `runs` of the slowest rank's time of `step` (a barrier before each run).
double median_time(int runs, const std::function<void()>& step) {
  step();  // warm-up
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = seconds_now();
    step();
    double mine = seconds_now() - t0, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    times.push_back(slowest);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

cl_mem buffer(scangen::Runtime& rt, size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE, bytes ? bytes : 1, nullptr, &err);
  if (err != CL_SUCCESS) throw scangen::Error("clCreateBuffer failed with OpenCL error " + std::to_string(err));
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const uint64_t total = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : (1ull << 24);
  const int runs = argc > 2 ? std::atoi(argv[2]) : 10;
  try {
    scangen::Runtime rt({scangen::Backend::OpenCL});
    const char* text = "scan bench_sum { type = i64; op = add; }";
    const uint64_t n = total / static_cast<uint64_t>(ranks) + (static_cast<uint64_t>(rank) < total % ranks ? 1 : 0);
    // One process, the whole array (rank 0 alone; the others wait).
    double single = 0;
    if (rank == 0) {
      const scangen::Scan whole = rt.compile(text);
      cl_mem in = buffer(rt, total * 8), out = buffer(rt, total * 8);
      scangen::Scan::OpenCLArgs a;
      a.in = in, a.inclusive = out, a.n = total;
      auto step = [&] {
        whole.run(a);
        clFinish(rt.opencl_queue());
      };
      step();
      std::vector<double> t;
      for (int r = 0; r < runs; ++r) {
        const double t0 = seconds_now();
        step();
        t.push_back(seconds_now() - t0);
      }
      std::sort(t.begin(), t.end());
      single = t[t.size() / 2];
      clReleaseMemObject(in);
      clReleaseMemObject(out);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) MPI_Barrier(MPI_COMM_WORLD);  // rank 0 compiles the builds first, the others find them cached
    scangen::mpi::Scan scan(rt, text, MPI_COMM_WORLD);
    if (rank == 0) MPI_Barrier(MPI_COMM_WORLD);
    cl_mem in = buffer(rt, n * 8), out = buffer(rt, n * 8);
    scangen::Scan::OpenCLArgs part;
    part.in = in, part.inclusive = out, part.n = n;
    const double whole_run = median_time(runs, [&] { scan.run(part); });
    int64_t agg = 0;
    scangen::Scan::OpenCLArgs r = part;
    r.inclusive = nullptr;
    r.host_aggregate = &agg;
    const double reduce = median_time(runs, [&] { scan.reduce_build().reduce(r); });
    std::vector<int64_t> all(static_cast<size_t>(ranks));
    const double gather = median_time(runs * 10, [&] {
      MPI_Allgather(&agg, 8, MPI_BYTE, all.data(), 8, MPI_BYTE, MPI_COMM_WORLD);
    });
    int64_t carry = 0;
    scangen::Scan::OpenCLArgs s = part;
    s.host_running_total = &carry;
    const double seeded = median_time(runs, [&] { scan.scan_build().run(s); });
    if (rank == 0) {
      const double gb = static_cast<double>(total) * 8 / 1e9;
      std::printf("mpi_bench: %d ranks, %llu i64 elements in all (%.3f GB), %s, median of %d runs\n", ranks,
                  static_cast<unsigned long long>(total), gb, rt.device_name().c_str(), runs);
      std::printf("| step | passes over the data | time (ms) |\n|---|---:|---:|\n");
      std::printf("| one process, the whole array (inclusive scan) | 2 (read, write) | %.2f |\n", single * 1e3);
      std::printf("| scangen::mpi::Scan::run | 3 (read; read, write) | %.2f |\n", whole_run * 1e3);
      std::printf("| 1. reduce of each part (Scan::reduce) | 1 (read) | %.2f |\n", reduce * 1e3);
      std::printf("| 2. MPI_Allgather, one element a rank | 0 | %.4f |\n", gather * 1e3);
      std::printf("| 3. scan of each part from its carry | 2 (read, write) | %.2f |\n", seeded * 1e3);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpi_bench: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return 0;
}
