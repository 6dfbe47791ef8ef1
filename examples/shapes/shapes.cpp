// The shapes of real data through the runtime on OpenCL (PoCL on the CPU, or
// a GPU's OpenCL), each checked against a plain loop:
//
//   segments   running balances per account: transactions grouped by account
//              (CSR offsets, empty accounts included), the inclusive and
//              exclusive running sums and each account's total
//              (examples/segmented_offsets.scan)
//   by key     the running maximum of readings per sensor, a new segment
//              wherever the sensor id changes (examples/scan_by_key.scan)
//   rows       the cumulative sum of every row of a matrix whose rows are
//              padded (row stride > length), with each row's total
//              (examples/batched_rows.scan)
//   columns    the cumulative sum down every column of a row-major matrix,
//              torch.cumsum(x, dim=0) (examples/column_scan.scan)
//
//   shapes EXAMPLES_DIR [SCALE]      (SCALE multiplies the sizes; default 1)
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "scangen/runtime/runtime.h"

namespace {

struct Ocl {
  cl_context context;
  cl_command_queue queue;
};

void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "shapes: %s failed (%d)\n", what, err);
    std::exit(2);
  }
}

// A buffer of `v` (at least one byte: OpenCL has no empty buffers).
template <class T>
cl_mem upload(const Ocl& cl, const std::vector<T>& v) {
  cl_int err = CL_SUCCESS;
  const size_t bytes = std::max<size_t>(1, v.size() * sizeof(T));
  cl_mem m = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  check(err, "clCreateBuffer");
  if (!v.empty())
    check(clEnqueueWriteBuffer(cl.queue, m, CL_TRUE, 0, v.size() * sizeof(T), v.data(), 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
  return m;
}

template <class T>
cl_mem output(const Ocl& cl, size_t count) {
  return upload(cl, std::vector<T>(count, T(-7)));  // poisoned: every element must be written
}

template <class T>
std::vector<T> download(const Ocl& cl, cl_mem m, size_t count) {
  std::vector<T> v(count);
  if (count)
    check(clEnqueueReadBuffer(cl.queue, m, CL_TRUE, 0, count * sizeof(T), v.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
  check(clReleaseMemObject(m), "clReleaseMemObject");
  return v;
}

// Counts the elements of `got` that differ from `want` by more than a float
// sum's rounding (relative 1e-4 of the magnitude summed), printing the first few.
uint64_t compare(const char* what, const std::vector<float>& got, const std::vector<double>& want,
                 const std::vector<double>& magnitude) {
  uint64_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-4 * std::max(1.0, magnitude[i])) && bad++ < 5)
      std::printf("  %s[%zu]: got %.6f, want %.6f\n", what, i, static_cast<double>(got[i]), want[i]);
  return bad;
}

bool report(const char* what, uint64_t bad, uint64_t count) {
  if (bad) {
    std::printf("FAIL %s: %llu of %llu values differ from the loop\n", what, static_cast<unsigned long long>(bad),
                static_cast<unsigned long long>(count));
    return false;
  }
  std::printf("OK   %s\n", what);
  return true;
}

bool segments(scangen::Runtime& rt, const Ocl& cl, const std::string& dir, uint64_t scale, std::mt19937_64& rng) {
  // Accounts with 0 to 40 transactions each (some with none).
  const uint64_t accounts = 5000 * scale;
  std::uniform_int_distribution<int> count(0, 40);
  std::uniform_real_distribution<float> amount(-100.0f, 100.0f);
  std::vector<uint32_t> offsets = {0};
  for (uint64_t a = 0; a < accounts; ++a) offsets.push_back(offsets.back() + static_cast<uint32_t>(count(rng)));
  const uint64_t n = offsets.back();
  std::vector<float> x(n);
  for (float& v : x) v = amount(rng);

  const scangen::Scan scan = rt.compile_file(dir + "/segmented_offsets.scan", "segmented_offsets");
  scangen::Scan::OpenCLArgs a;
  a.in = upload(cl, x);
  a.inclusive = output<float>(cl, n);
  a.exclusive = output<float>(cl, n);
  a.n = n;
  a.segment_offsets = upload(cl, offsets);
  a.segment_count = accounts;
  a.segment_aggregates = output<float>(cl, accounts);
  a.check_segments = true;  // offsets from 0 to n, never decreasing: checked on the device
  scan.run(a);
  const std::vector<float> inc = download<float>(cl, a.inclusive, n), exc = download<float>(cl, a.exclusive, n),
                           totals = download<float>(cl, a.segment_aggregates, accounts);
  check(clReleaseMemObject(a.in), "clReleaseMemObject");
  check(clReleaseMemObject(a.segment_offsets), "clReleaseMemObject");

  std::vector<double> want_inc(n), want_exc(n), mag(n), want_tot(accounts), mag_tot(accounts);
  for (uint64_t s = 0; s < accounts; ++s) {
    double sum = 0, m = 0;
    for (uint64_t i = offsets[s]; i < offsets[s + 1]; ++i) {
      want_exc[i] = sum;
      sum += x[i];
      m += std::fabs(x[i]);
      want_inc[i] = sum;
      mag[i] = m;
    }
    want_tot[s] = sum;
    mag_tot[s] = m;
  }
  const uint64_t bad = compare("inclusive", inc, want_inc, mag) + compare("exclusive", exc, want_exc, mag) +
                       compare("total", totals, want_tot, mag_tot);
  std::printf("segments: %llu transactions in %llu accounts\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(accounts));
  return report("running balances and totals per account", bad, 2 * n + accounts);
}

bool by_key(scangen::Runtime& rt, const Ocl& cl, const std::string& dir, uint64_t scale, std::mt19937_64& rng) {
  // Readings of sensors in runs: a sensor id per reading, runs of 1 to 300.
  const uint64_t n = 200003 * scale;
  std::uniform_int_distribution<int> run(1, 300), reading(-50000, 50000);
  std::uniform_int_distribution<uint64_t> sensor(0, 1000);
  std::vector<uint64_t> keys(n);
  std::vector<int32_t> x(n);
  for (uint64_t i = 0, left = 0, id = 0; i < n; ++i) {
    if (left == 0) {
      left = static_cast<uint64_t>(run(rng));
      id = sensor(rng);  // may repeat the last id: then the run continues, as a key scan says
    }
    --left;
    keys[i] = id;
    x[i] = reading(rng);
  }
  const scangen::Scan scan = rt.compile_file(dir + "/scan_by_key.scan", "scan_by_key");
  scangen::Scan::OpenCLArgs a;
  a.in = upload(cl, x);
  a.inclusive = output<int32_t>(cl, n);
  a.keys = upload(cl, keys);
  // One maximum per run of equal keys: at most n of them.
  a.segment_aggregates = output<int32_t>(cl, n);
  a.n = n;
  scan.run(a);
  const std::vector<int32_t> got = download<int32_t>(cl, a.inclusive, n),
                             runs = download<int32_t>(cl, a.segment_aggregates, n);
  check(clReleaseMemObject(a.in), "clReleaseMemObject");
  check(clReleaseMemObject(a.keys), "clReleaseMemObject");
  uint64_t bad = 0, segments = 0;
  int32_t m = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const bool start = i == 0 || keys[i] != keys[i - 1];
    if (start) {
      if (i > 0 && runs[segments - 1] != m && bad++ < 5) std::printf("  run %llu: wrong maximum\n", (unsigned long long)segments);
      ++segments;
      m = x[i];
    } else {
      m = std::max(m, x[i]);
    }
    if (got[i] != m && bad++ < 5)
      std::printf("  max[%llu]: got %d, want %d\n", static_cast<unsigned long long>(i), got[i], m);
  }
  if (n && runs[segments - 1] != m) ++bad;
  std::printf("by key: %llu readings in %llu runs of one sensor\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(segments));
  return report("running maximum per run of a sensor, and each run's maximum", bad, n + segments);
}

bool rows(scangen::Runtime& rt, const Ocl& cl, const std::string& dir, uint64_t scale, std::mt19937_64& rng) {
  // 1000 rows of 777 values each, stored with a stride of 800 (padding between rows).
  const uint64_t r = 1000 * scale, length = 777, stride = 800;
  std::uniform_real_distribution<float> v(0.0f, 1.0f);
  std::vector<float> x(r * stride, std::nanf(""));  // the padding is never read
  for (uint64_t i = 0; i < r; ++i)
    for (uint64_t j = 0; j < length; ++j) x[i * stride + j] = v(rng);
  const scangen::Scan scan = rt.compile_file(dir + "/batched_rows.scan", "row_cumsum");
  scangen::Scan::OpenCLArgs a;
  a.in = upload(cl, x);
  a.inclusive = output<float>(cl, r * length);
  a.aggregate = output<float>(cl, r);
  a.rows = r;
  a.length = length;
  a.row_stride = stride;
  a.out_row_stride = length;  // the output packed
  scan.run(a);
  const std::vector<float> got = download<float>(cl, a.inclusive, r * length), tot = download<float>(cl, a.aggregate, r);
  check(clReleaseMemObject(a.in), "clReleaseMemObject");
  std::vector<double> want(r * length), mag(r * length), want_tot(r), mag_tot(r);
  for (uint64_t i = 0; i < r; ++i) {
    double s = 0;
    for (uint64_t j = 0; j < length; ++j) {
      s += x[i * stride + j];
      want[i * length + j] = s;
      mag[i * length + j] = s;
    }
    want_tot[i] = s;
    mag_tot[i] = s;
  }
  const uint64_t bad = compare("row", got, want, mag) + compare("row total", tot, want_tot, mag_tot);
  std::printf("rows: %llu rows of %llu (row stride %llu)\n", static_cast<unsigned long long>(r),
              static_cast<unsigned long long>(length), static_cast<unsigned long long>(stride));
  return report("cumulative sum of every row, and each row's total", bad, r * length + r);
}

bool columns(scangen::Runtime& rt, const Ocl& cl, const std::string& dir, uint64_t scale,
             std::mt19937_64& rng) {
  // A row-major 5000 x 33 matrix, scanned down its columns (axis 0).
  const uint64_t r = 5000 * scale, c = 33;
  std::uniform_real_distribution<float> v(-1.0f, 1.0f);
  std::vector<float> x(r * c);
  for (float& e : x) e = v(rng);
  const scangen::Scan scan = rt.compile_file(dir + "/column_scan.scan", "column_cumsum");
  scangen::Scan::OpenCLArgs a;
  a.in = upload(cl, x);
  a.inclusive = output<float>(cl, r * c);
  a.strided.rank = 2;
  a.strided.axis = 0;
  a.strided.extents[0] = r;
  a.strided.extents[1] = c;
  a.strided.strides[0] = c;
  a.strided.strides[1] = 1;
  scan.run(a);
  const std::vector<float> got = download<float>(cl, a.inclusive, r * c);
  check(clReleaseMemObject(a.in), "clReleaseMemObject");
  std::vector<double> want(r * c), mag(r * c), s(c, 0.0), m(c, 0.0);
  for (uint64_t i = 0; i < r; ++i)
    for (uint64_t j = 0; j < c; ++j) {
      s[j] += x[i * c + j];
      m[j] += std::fabs(x[i * c + j]);
      want[i * c + j] = s[j];
      mag[i * c + j] = m[j];
    }
  std::printf("columns: a %llu x %llu row-major matrix along axis 0\n", static_cast<unsigned long long>(r),
              static_cast<unsigned long long>(c));
  return report("cumulative sum down every column", compare("column", got, want, mag), r * c);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: shapes EXAMPLES_DIR [SCALE]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const uint64_t scale = argc > 2 ? std::max<uint64_t>(1, std::strtoull(argv[2], nullptr, 10)) : 1;
  std::mt19937_64 rng(2026);
  try {
    scangen::Runtime rt({scangen::Backend::OpenCL});
    std::printf("device: %s (OpenCL)\n", rt.device_name().c_str());
    const Ocl cl{rt.opencl_context(), rt.opencl_queue()};
    bool ok = segments(rt, cl, dir, scale, rng);
    ok = by_key(rt, cl, dir, scale, rng) && ok;
    ok = rows(rt, cl, dir, scale, rng) && ok;
    ok = columns(rt, cl, dir, scale, rng) && ok;
    return ok ? 0 : 1;
  } catch (const scangen::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
