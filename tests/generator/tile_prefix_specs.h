// The scans of the tile-prefix tests (P_device_tile_ticket and
// P_device_tile_prefix called from a test kernel of the tests' own), their
// operators on the CPU, and the test kernel's text for both backends.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace scangen::test::tile_prefix {

// Three device scans of 64 threads x 2 items: a 4-byte sum, an 8-byte
// affine map and a 16-byte 2x2 matrix product (both not commutative), so
// every status layout of each backend is taken.
inline const char* specs() {
  return R"(type Aff { a: u32, b: u32 }
type Mat { a: u32, b: u32, c: u32, d: u32 }
scan tp_add { type = i32; op = add; level = device; threads = 64; items = 2; }
scan tp_affine {
  type = Aff;
  combine(x, y) = Aff { a: y.a * x.a, b: y.a * x.b + y.b };
  identity = Aff { a: 1, b: 0 };
  level = device; threads = 64; items = 2;
}
scan tp_mat {
  type = Mat;
  combine(x, y) = Mat { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d,
                        c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d };
  identity = Mat { a: 1, b: 0, c: 0, d: 1 };
  level = device; threads = 64; items = 2;
}
)";
}

constexpr int kThreads = 64;
constexpr int kItems = 2;
constexpr uint64_t kTile = kThreads * kItems;

struct Aff {
  uint32_t a, b;
};
struct Mat {
  uint32_t a, b, c, d;
};
inline void set_identity(int32_t& v) { v = 0; }
inline void set_identity(Aff& v) { v = {1, 0}; }
inline void set_identity(Mat& v) { v = {1, 0, 0, 1}; }
inline int32_t combine(int32_t x, int32_t y) {
  return static_cast<int32_t>(static_cast<uint32_t>(x) + static_cast<uint32_t>(y));
}
inline Aff combine(Aff x, Aff y) { return {y.a * x.a, y.a * x.b + y.b}; }
inline Mat combine(Mat x, Mat y) {
  return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
}

// The element counts of the tests, launched in this order on one
// workspace: one tile (twice, and once with none), two, many, partial last
// tiles, one tile again after many, and many after many with fewer tiles.
inline std::vector<uint64_t> sizes() { return {1, 128, 0, 129, 256, 1000, 5000, 77, 40000, 12345, 200, 128 * 300}; }

// The test kernels (test_kernel below): the name after P, the block's threads.
struct TestKernel {
  const char* suffix;
  int threads;
};
inline std::vector<TestKernel> test_kernels() { return {{"_tile_test", kThreads}, {"_tile_test_serial", 32}}; }

inline uint64_t tiles_of(uint64_t n) { return n > 0 ? (n + kTile - 1) / kTile : 1; }

template <typename T>
T random_value(std::mt19937_64& rng) {
  T v;
  uint32_t words[sizeof(T) / 4];
  for (uint32_t& w : words) w = static_cast<uint32_t>(rng());
  std::memcpy(&v, words, sizeof v);
  return v;
}

// The test kernel's outputs against a loop on the CPU: every element's
// inclusive scan, and each tile's exclusive and inclusive prefixes. Empty
// when all match, else the first mismatch.
template <typename T>
std::string compare(const std::vector<T>& in, const std::vector<T>& inc, const std::vector<T>& texc,
                    const std::vector<T>& tinc) {
  const uint64_t n = in.size();
  T sum{};
  set_identity(sum);
  if (n > 0 && std::memcmp(&texc[0], &sum, sizeof(T)) != 0) return "tile 0: exclusive prefix not the identity";
  for (uint64_t i = 0; i < n; ++i) {
    if (i % kTile == 0 && i > 0 && std::memcmp(&texc[i / kTile], &sum, sizeof(T)) != 0)
      return "tile " + std::to_string(i / kTile) + ": wrong exclusive prefix";
    sum = i == 0 ? in[0] : combine(sum, in[i]);
    if (std::memcmp(&inc[i], &sum, sizeof(T)) != 0) return "element " + std::to_string(i) + ": wrong inclusive scan";
    if ((i + 1) % kTile == 0 || i + 1 == n)
      if (std::memcmp(&tinc[i / kTile], &sum, sizeof(T)) != 0)
        return "tile " + std::to_string(i / kTile) + ": wrong inclusive prefix";
  }
  return "";
}

// The test kernels of scan P: each block takes a tile of kTile elements by
// ticket, gets the tile's prefix from P_device_tile_prefix and writes every
// element's inclusive scan, and the tile's exclusive and inclusive prefixes.
//
//   P_tile_test(in, inclusive, tile_exclusive, tile_inclusive, n, tiles, workspace)
//   P_tile_test_serial(...)   the same parameters
//
// P_tile_test: the scan's 64 threads, the tile scanned with P_inclusive.
// P_tile_test_serial: 32 threads (a block that is not the scan's), thread 0
// reducing and scanning the tile alone.
inline std::string test_kernel(const std::string& P, bool cuda) {
  const std::string shared = cuda ? "__shared__" : "__local";
  const std::string barrier = cuda ? "__syncthreads()" : "barrier(CLK_LOCAL_MEM_FENCE)";
  auto head = [&](const std::string& name, int threads) {
    const std::string g = cuda ? "" : "__global ";
    return std::string(cuda ? "\nextern \"C\" __global__ void __launch_bounds__(" + std::to_string(threads) + ") "
                            : "\n__kernel __attribute__((reqd_work_group_size(" + std::to_string(threads) +
                                  ", 1, 1))) void ") +
           name + "(" + g + "const P_T* in, " + g + "P_T* inclusive, " + g + "P_T* tile_exclusive, " + g +
           "P_T* tile_inclusive, unsigned n, unsigned tiles, " + g + "unsigned char* workspace) {\n  " + shared +
           " P_device_tile_temp tt;\n  const unsigned lid = " + (cuda ? "threadIdx.x" : "(unsigned)get_local_id(0)") +
           ";\n  const scangen_u64 tile = P_device_tile_ticket(&tt, workspace, tiles);\n";
  };
  std::string k = head("P_tile_test", kThreads) + "  " + shared + R"( P_temp temp;
  const scangen_u64 first = tile * 128 + lid * 2;
  P_T items[2];
  for (int i = 0; i < 2; ++i) items[i] = first + i < n ? in[first + i] : P_identity();
  const P_T aggregate = P_inclusive(&temp, items, items);
  P_T inc;
  const P_T exc = P_device_tile_prefix(&tt, workspace, tile, aggregate, &inc);
  for (int i = 0; i < 2; ++i)
    if (first + i < n) inclusive[first + i] = P_combine(exc, items[i]);
  if (lid == 0) {
    tile_exclusive[tile] = exc;
    tile_inclusive[tile] = inc;
  }
}
)";
  k += head("P_tile_test_serial", 32) + "  " + shared + R"( P_T shared_aggregate;
  const scangen_u64 first = tile * 128, end = first + 128 < n ? first + 128 : n;
  if (lid == 0) {
    P_T a = P_identity();
    for (scangen_u64 i = first; i < end; ++i) a = P_combine(a, in[i]);
    shared_aggregate = a;
  }
  BARRIER;
  const P_T aggregate = shared_aggregate;
  P_T inc;
  const P_T exc = P_device_tile_prefix(&tt, workspace, tile, aggregate, &inc);
  if (lid == 0) {
    P_T run = exc;
    for (scangen_u64 i = first; i < end; ++i) inclusive[i] = run = P_combine(run, in[i]);
    tile_exclusive[tile] = exc;
    tile_inclusive[tile] = inc;
  }
}
)";
  std::string out;
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.compare(i, 7, "BARRIER") == 0) {
      out += barrier;
      i += 6;
    } else if (k.compare(i, 2, "P_") == 0 &&
               (i == 0 || !(isalnum(static_cast<unsigned char>(k[i - 1])) || k[i - 1] == '_'))) {
      out += P + "_";
      ++i;
    } else {
      out += k[i];
    }
  }
  return out;
}

}  // namespace scangen::test::tile_prefix
