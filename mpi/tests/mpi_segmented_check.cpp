// scangen_mpi_segmented_check: run under mpiexec with any number of ranks.
// Segmented scans whose segments span ranks: every rank makes the same
// array and the same heads (the seed is rank 0's, broadcast), keeps its part
// and its part's flags or offsets (local to it: a part whose first element
// is no head continues the last segment of the ranks before it), scans it
// with scangen::mpi::Scan on OpenCL and compares it, exactly, with its part
// of the CPU reference's segmented scan of the whole array. Layouts: random
// heads and parts (some empty), one segment over every rank, a head at every
// element, more ranks than elements, parts without heads; flags and offsets
// (with empty segments), every mode, reverse, init, a non-commutative
// operator and a conversion. Exit status 0: every rank passed; 1: a mismatch
// (seed and case printed; SCANGEN_TEST_SEED replays it).
#include <mpi.h>

#include <algorithm>
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

#define AFFINE                                                                                     \
  "type A { a: i64, b: i64 }\n"                                                                    \
  "scan %s { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * x.b + y.b }; identity = A { a: " \
  "1, b: 0 }; level = device; %s }"

struct Case {
  std::string text;
  const char* what;
};

std::string affine(const char* name, const char* settings) {
  char text[512];
  std::snprintf(text, sizeof text, AFFINE, name, settings);
  return text;
}

const Case kCases[] = {
    {"scan mpi_seg_sum { type = i64; op = add; segments = flags; mode = exclusive; reverse = true; init = 7; }",
     "i64 sum by flags, exclusive, reverse, init 7"},
    {affine("mpi_seg_affine", "segments = flags; mode = both; init = A { a: -1, b: 3 };"),
     "affine maps by flags, both modes, init"},
    {affine("mpi_seg_affine_ox", "segments = offsets; mode = exclusive; reverse = true; init = A { a: 1, b: 5 };"),
     "affine maps by u32 offsets, exclusive, reverse, init"},
    {affine("mpi_seg_affine_or", "segments = offsets; offset = u64; mode = both; reverse = true;"),
     "affine maps by u64 offsets, both modes, reverse"},
    {"scan mpi_seg_off { type = i64; op = add; segments = offsets; offset = i64; init = -2; }",
     "i64 sum by i64 offsets, inclusive, init -2"},
    {"scan mpi_seg_alloc { type = u32; input = u8; op = add; segments = flags; mode = exclusive; }",
     "u8 sizes to u32 offsets by flags, exclusive"},
};
constexpr int kLayouts = 6;

// Part sizes and heads (a byte per element of the whole array) of layout `kind`: 0 random, 1 one segment
// over everything, 2 a head at every element, 3 more ranks than elements, 4 tile edges with few heads (parts
// without any), 5 every part empty.
void layout(int kind, int ranks, std::mt19937_64& rng, std::vector<uint64_t>& sizes, std::vector<uint8_t>& heads) {
  const uint64_t edges[] = {0, 1, 2, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097};
  sizes.assign(static_cast<size_t>(ranks), 0);
  for (int r = 0; r < ranks; ++r) {
    const uint64_t random = rng() % 4 == 0 ? 0 : rng() % 6000;
    sizes[r] = kind == 3 ? (rng() % 3 == 0 ? 1 : 0) : kind == 4 ? edges[rng() % 12] : kind == 5 ? 0 : random;
  }
  uint64_t total = 0;
  for (uint64_t s : sizes) total += s;
  const double p[] = {0.0005, 0.02, 0.3};
  const double chance = kind == 1 ? 0 : kind == 2 ? 1 : kind == 3 ? 0.5 : kind == 4 ? 0.0003 : p[rng() % 3];
  std::bernoulli_distribution head(chance);
  heads.assign(total, 0);
  for (uint64_t i = 0; i < total; ++i) heads[i] = head(rng) ? 1 : 0;
}

void fill(const scangen::dsl::Spec& spec, std::vector<uint8_t>& in, uint64_t n, std::mt19937_64& rng) {
  const size_t bytes = spec.input.size();
  in.assign(n * bytes, 0);
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t* e = in.data() + i * bytes;
    if (spec.input.name() == "A") {  // a of the maps +1 or -1: exact
      const int64_t a = rng() % 2 ? 1 : -1, b = static_cast<int64_t>(rng() % 2001) - 1000;
      std::memcpy(e, &a, 8);
      std::memcpy(e + 8, &b, 8);
    } else if (bytes == 8) {
      const int64_t v = static_cast<int64_t>(rng() % 2000001) - 1000000;
      std::memcpy(e, &v, 8);
    } else {
      e[0] = static_cast<uint8_t>(rng());
    }
  }
}

// The part's offsets (local): 0, the places of its heads, n; some heads and n repeated (empty segments).
std::vector<uint8_t> local_offsets(const scangen::dsl::Spec& spec, const uint8_t* heads, uint64_t n,
                                   std::mt19937_64& rng, uint64_t* count) {
  std::vector<uint64_t> offs{0};
  for (uint64_t i = 0; i < n; ++i)
    for (int k = heads[i] ? (rng() % 8 == 0 ? 2 : 1) : 0; k > 0; --k) offs.push_back(i);
  for (int k = rng() % 4 == 0 ? 2 : 1; k > 0; --k) offs.push_back(n);
  *count = offs.size() - 1;
  const size_t size = scangen::dsl::scalar_size(spec.offset);
  std::vector<uint8_t> bytes(offs.size() * size);
  for (size_t k = 0; k < offs.size(); ++k) std::memcpy(bytes.data() + k * size, &offs[k], size);  // little-endian
  return bytes;
}

cl_mem buffer(cl_context ctx, size_t bytes, const void* host) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (host && bytes ? CL_MEM_COPY_HOST_PTR : 0), bytes ? bytes : 1,
                            bytes ? const_cast<void*>(host) : nullptr, &err);
  if (err != CL_SUCCESS) throw scangen::Error("clCreateBuffer failed with OpenCL error " + std::to_string(err));
  return m;
}

std::vector<uint8_t> read(cl_command_queue q, cl_mem m, size_t bytes) {
  std::vector<uint8_t> out(bytes);
  if (bytes && clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr) != CL_SUCCESS)
    throw scangen::Error("clEnqueueReadBuffer failed");
  return out;
}

// One case and layout on this rank: "" when its part matches, else what differs.
std::string check(scangen::Runtime& rt, const scangen::mpi::Scan& scan, int kind, uint64_t seed, int rank,
                  int ranks) {
  const scangen::dsl::Spec& spec = scan.spec();
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> sizes;
  std::vector<uint8_t> heads, all;
  layout(kind, ranks, rng, sizes, heads);
  const uint64_t total_n = heads.size();
  uint64_t begin = 0;
  for (int r = 0; r < rank; ++r) begin += sizes[r];
  const uint64_t n = sizes[rank];
  fill(spec, all, total_n, rng);
  const bool by_flags = spec.segments == scangen::dsl::Segments::Flags;
  std::vector<uint8_t> offsets;
  uint64_t count = 0;
  if (!by_flags) offsets = local_offsets(spec, heads.data() + begin, n, rng, &count);
  const scangen::ref::Evaluator ref(spec);
  const auto want = ref.scan_ranges(all.data(), total_n, scangen::ref::ranges_from_flags(heads.data(), total_n));

  const size_t in_bytes = spec.input.size(), bytes = spec.type.size();
  cl_context ctx = rt.opencl_context();
  cl_command_queue q = rt.opencl_queue();
  const bool inc = spec.mode != scangen::dsl::Mode::Exclusive, exc = spec.mode != scangen::dsl::Mode::Inclusive;
  std::vector<uint8_t> poison(n * bytes, 0xA5);
  cl_mem in = buffer(ctx, n * in_bytes, all.data() + begin * in_bytes);
  cl_mem out_inc = inc ? buffer(ctx, n * bytes, poison.data()) : nullptr;
  cl_mem out_exc = exc ? buffer(ctx, n * bytes, poison.data()) : nullptr;
  cl_mem segs = by_flags ? buffer(ctx, n, heads.data() + begin) : buffer(ctx, offsets.size(), offsets.data());
  scangen::Scan::OpenCLArgs part;
  part.in = in;
  part.inclusive = out_inc;
  part.exclusive = out_exc;
  part.n = n;
  (by_flags ? part.segment_flags : part.segment_offsets) = segs;
  if (!by_flags) part.segment_count = count;
  scan.run(part);
  std::string bad;
  auto compare = [&](const char* what, const std::vector<uint8_t>& got, const std::vector<uint8_t>& whole) {
    for (uint64_t i = 0; i < n && bad.empty(); ++i)
      if (std::memcmp(got.data() + i * bytes, whole.data() + (begin + i) * bytes, bytes) != 0)
        bad = std::string(what) + " element " + std::to_string(i) + " of " + std::to_string(n) + " (global " +
              std::to_string(begin + i) + " of " + std::to_string(total_n) +
              "): " + scangen::ref::format_value(spec.type, got.data() + i * bytes) + ", the reference " +
              scangen::ref::format_value(spec.type, whole.data() + (begin + i) * bytes);
  };
  if (inc) compare("inclusive", read(q, out_inc, n * bytes), want.inclusive);
  if (exc) compare("exclusive", read(q, out_exc, n * bytes), want.exclusive);
  for (cl_mem m : {in, out_inc, out_exc, segs})
    if (m) clReleaseMemObject(m);
  return bad;
}

// What is refused says so: keys, and a total of a segmented scan. "" when both are refused as they should be.
std::string refusals(scangen::Runtime& rt) {
  try {
    scangen::mpi::Scan keys(rt, "scan mpi_seg_keys { type = i64; op = add; segments = keys; }", MPI_COMM_SELF);
    return "segments = keys were taken";
  } catch (const scangen::Error& e) {
    if (!std::strstr(e.what(), "segments = keys are not carried across ranks")) return e.what();
  }
  scangen::mpi::Scan flags(rt, kCases[0].text, MPI_COMM_SELF);
  scangen::Scan::OpenCLArgs part;
  int64_t total = 0;
  try {
    flags.run(part, &total);
    return "a segmented scan's total was taken";
  } catch (const scangen::Error& e) {
    return std::strstr(e.what(), "no one total") ? "" : e.what();
  }
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
    if (rank == 0) {
      const std::string bad = refusals(rt);
      if (!bad.empty()) {
        std::fprintf(stderr, "mpi_segmented_check: refusals: %s\n", bad.c_str());
        failed = 1;
      }
    }
    int index = 0;
    for (const Case& c : kCases) {
      if (rank != 0) MPI_Barrier(MPI_COMM_WORLD);  // rank 0 compiles, the others find its kernels on disk
      scangen::mpi::Scan scan(rt, c.text, MPI_COMM_WORLD);
      if (rank == 0) MPI_Barrier(MPI_COMM_WORLD);
      for (int kind = 0; kind < kLayouts; ++kind) {
        const uint64_t case_seed = seed * 1000003ull + static_cast<uint64_t>(index * kLayouts + kind);
        const std::string bad = check(rt, scan, kind, case_seed, rank, ranks);
        int mine = bad.empty() ? 0 : 1, any = 0;
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (mine)
          std::fprintf(stderr, "mpi_segmented_check: rank %d of %d, %s, layout %d: %s (SCANGEN_TEST_SEED=%llu)\n",
                       rank, ranks, c.what, kind, bad.c_str(), seed);
        failed |= any;
      }
      ++index;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpi_segmented_check: rank %d of %d: %s (SCANGEN_TEST_SEED=%llu)\n", rank, ranks, e.what(),
                 seed);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0)
    std::printf("mpi_segmented_check: %d ranks, %s (SCANGEN_TEST_SEED=%llu)\n", ranks, failed ? "FAILED" : "ok",
                seed);
  MPI_Finalize();
  return failed ? 1 : 0;
}
