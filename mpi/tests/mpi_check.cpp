// scangen_mpi_check: run under mpiexec with any number of ranks. Every rank
// makes the same arrays (the seed is rank 0's, broadcast), keeps its part,
// scans it with scangen::mpi::Scan on OpenCL (PoCL here, NVIDIA's OpenCL on
// the GPU machine) and compares it, exactly, with its part of the CPU
// reference's scan of the whole array; every rank's verdict is gathered and
// rank 0 prints one line. Parts of awkward sizes (empty, one element, a tile
// and one either side, more ranks than elements, everything on one rank),
// every mode, reverse, init, a non-commutative operator and a conversion.
// Exit status 0: every rank passed; 1: a mismatch (seed and case printed).
#include <mpi.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "rank_seed.h"
#include "scangen/dsl/dsl.h"
#include "scangen/mpi/mpi.h"
#include "scangen/reference/reference.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

namespace {

struct Case {
  const char* text;
  const char* what;
};

// The operators and settings; each is compiled twice (reduce and scan) on every rank.
const Case kCases[] = {
    {"scan mpi_sum { type = i64; op = add; }", "i64 sum, inclusive"},
    {"scan mpi_sum_x { type = i64; op = add; mode = exclusive; reverse = true; init = 7; }",
     "i64 sum, exclusive, reverse, init 7"},
    {"type A { a: i64, b: i64 }\n"
     "scan mpi_affine { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * x.b + y.b }; "
     "identity = A { a: 1, b: 0 }; mode = both; init = A { a: -1, b: 3 }; }",
     "affine maps (not commutative), both modes, init"},
    {"type A { a: i64, b: i64 }\n"
     "scan mpi_affine_r { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * x.b + y.b }; "
     "identity = A { a: 1, b: 0 }; reverse = true; }",
     "affine maps (not commutative), reverse"},
    {"scan mpi_alloc { type = u32; input = u8; op = add; mode = exclusive; }", "u8 sizes to u32 offsets, exclusive"},
    {"scan mpi_max { type = f32; op = max; }", "f32 max"},
};

// Part sizes of a layout: kind 0 random (some empty), 1 tile edges, 2 all on the last rank, 3 all empty, 4 one each.
std::vector<uint64_t> part_sizes(int kind, int ranks, std::mt19937_64& rng) {
  std::vector<uint64_t> sizes(static_cast<size_t>(ranks), 0);
  const uint64_t edges[] = {0, 1, 2, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097};
  for (int r = 0; r < ranks; ++r) {
    switch (kind) {
      case 0: sizes[r] = rng() % 4 == 0 ? 0 : rng() % 20000; break;
      case 1: sizes[r] = edges[rng() % (sizeof edges / sizeof edges[0])]; break;
      case 2: sizes[r] = r == ranks - 1 ? 5000 : 0; break;
      case 3: sizes[r] = 0; break;
      default: sizes[r] = 1; break;
    }
  }
  return sizes;
}

// Input elements small enough that sums and affine maps stay exact (a of the maps +1 or -1).
void fill(const scangen::dsl::Spec& spec, std::vector<uint8_t>& in, uint64_t n, std::mt19937_64& rng) {
  const size_t bytes = spec.input.size();
  in.assign(n * bytes, 0);
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t* e = in.data() + i * bytes;
    if (spec.input.name() == "A") {
      const int64_t a = rng() % 2 ? 1 : -1, b = static_cast<int64_t>(rng() % 2001) - 1000;
      std::memcpy(e, &a, 8);
      std::memcpy(e + 8, &b, 8);
    } else if (bytes == 8) {
      const int64_t v = static_cast<int64_t>(rng() % 2000001) - 1000000;
      std::memcpy(e, &v, 8);
    } else if (bytes == 1) {
      e[0] = static_cast<uint8_t>(rng());
    } else {
      const float v = static_cast<float>(static_cast<int64_t>(rng() % 200001) - 100000) / 8.0f;
      std::memcpy(e, &v, 4);
    }
  }
}

cl_mem buffer(cl_context ctx, size_t bytes, const void* host) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes ? bytes : 1,
                            const_cast<void*>(host), &err);
  if (err != CL_SUCCESS) throw scangen::Error("clCreateBuffer failed with OpenCL error " + std::to_string(err));
  return m;
}

std::vector<uint8_t> read(cl_command_queue q, cl_mem m, size_t bytes) {
  std::vector<uint8_t> out(bytes);
  if (bytes) {
    const cl_int err = clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr);
    if (err != CL_SUCCESS) throw scangen::Error("clEnqueueReadBuffer failed with OpenCL error " + std::to_string(err));
  }
  return out;
}

// One case and layout on this rank: "" when its part matches, else what differs.
std::string check(scangen::Runtime& rt, const scangen::mpi::Scan& scan, int kind, uint64_t seed, int rank,
                  int ranks) {
  const scangen::dsl::Spec& spec = scan.spec();
  std::mt19937_64 rng(seed);
  const std::vector<uint64_t> sizes = part_sizes(kind, ranks, rng);
  uint64_t begin = 0, total_n = 0;
  for (int r = 0; r < ranks; ++r) (r < rank ? begin : total_n) += sizes[r];
  total_n += begin;
  const uint64_t n = sizes[rank];
  std::vector<uint8_t> all;
  fill(spec, all, total_n, rng);
  const size_t in_bytes = spec.input.size(), bytes = spec.type.size();
  const scangen::ref::Evaluator ref(spec);
  const scangen::ref::Evaluator::Result want = ref.scan(all.data(), total_n);

  cl_context ctx = rt.opencl_context();
  cl_command_queue q = rt.opencl_queue();
  cl_mem in = buffer(ctx, n * in_bytes, n ? all.data() + begin * in_bytes : nullptr);
  const bool inc = spec.mode != scangen::dsl::Mode::Exclusive, exc = spec.mode != scangen::dsl::Mode::Inclusive;
  std::vector<uint8_t> poison(n * bytes, 0xA5);  // poisoned outputs: what the scan does not write shows
  cl_mem out_inc = inc ? buffer(ctx, n * bytes, n ? poison.data() : nullptr) : nullptr;
  cl_mem out_exc = exc ? buffer(ctx, n * bytes, n ? poison.data() : nullptr) : nullptr;
  scangen::Scan::OpenCLArgs part;
  part.in = in;
  part.inclusive = out_inc;
  part.exclusive = out_exc;
  part.n = n;
  std::vector<uint8_t> total(bytes);
  scan.run(part, total.data());
  std::string bad;
  auto compare = [&](const char* what, const std::vector<uint8_t>& got, const std::vector<uint8_t>& whole) {
    for (uint64_t i = 0; i < n && bad.empty(); ++i)
      if (std::memcmp(got.data() + i * bytes, whole.data() + (begin + i) * bytes, bytes) != 0)
        bad = std::string(what) + " element " + std::to_string(i) + " of " + std::to_string(n) + " (global " +
              std::to_string(begin + i) + "): " + scangen::ref::format_value(spec.type, got.data() + i * bytes) +
              ", the reference " + scangen::ref::format_value(spec.type, whole.data() + (begin + i) * bytes);
  };
  if (inc) compare("inclusive", read(q, out_inc, n * bytes), want.inclusive);
  if (exc) compare("exclusive", read(q, out_exc, n * bytes), want.exclusive);
  // The total: the reference's aggregate of the whole array.
  scangen::dsl::Spec with_total = spec;
  with_total.aggregate = true;
  const scangen::ref::Evaluator::Result agg = scangen::ref::Evaluator(with_total).scan(all.data(), total_n);
  if (bad.empty() && std::memcmp(total.data(), agg.aggregates.data(), bytes) != 0)
    bad = "total " + scangen::ref::format_value(spec.type, total.data()) + ", the reference " +
          scangen::ref::format_value(spec.type, agg.aggregates.data());
  for (cl_mem m : {in, out_inc, out_exc})
    if (m) clReleaseMemObject(m);
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const unsigned long long seed = scangen::test::rank_seed(MPI_COMM_WORLD, rank);
  int failed = 0;
  try {
    scangen::RuntimeOptions options;
    options.backend = scangen::Backend::OpenCL;
    scangen::Runtime rt(options);
    int index = 0;
    for (const Case& c : kCases) {
      // Rank 0 compiles first, the others then find its kernels in the disk cache.
      if (rank != 0) MPI_Barrier(MPI_COMM_WORLD);
      scangen::mpi::Scan scan(rt, c.text, MPI_COMM_WORLD);
      if (rank == 0) MPI_Barrier(MPI_COMM_WORLD);
      for (int kind = 0; kind < 5; ++kind) {
        const uint64_t case_seed = seed * 1000003ull + static_cast<uint64_t>(index * 5 + kind);
        const std::string bad = check(rt, scan, kind, case_seed, rank, ranks);
        int mine = bad.empty() ? 0 : 1, any = 0;
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (mine)
          std::fprintf(stderr, "mpi_check: rank %d of %d, %s, layout %d: %s (SCANGEN_TEST_SEED=%llu)\n", rank, ranks,
                       c.what, kind, bad.c_str(), seed);
        failed |= any;
      }
      ++index;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpi_check: rank %d of %d: %s (SCANGEN_TEST_SEED=%llu)\n", rank, ranks, e.what(), seed);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0)
    std::printf("mpi_check: %d ranks, %s (SCANGEN_TEST_SEED=%llu)\n", ranks, failed ? "FAILED" : "ok", seed);
  MPI_Finalize();
  return failed ? 1 : 0;
}
