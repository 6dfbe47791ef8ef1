// Device scans through the OpenCL backend, against a copy of the same bytes
// on the same queue: the runtime's OpenCL path on whatever device it picks
// (SCANGEN_OPENCL_DEVICE or RuntimeOptions' default: a GPU first).
//
//   opencl_bench [--log2n 16,20,24,28] [--runs 15] [--csv FILE]
//
// Each case is checked once per size against a CPU loop (integers exact,
// f32 on sums of -1, 0, 1, so exact too). Timing: 20 calls queued back to
// back, then clFinish, on a profiling queue: the time from the first
// command's start to the last one's end over 20, the median of --runs such
// batches; the copy (clEnqueueCopyBuffer of n elements) the same way.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "scangen/runtime/runtime.h"

namespace {

void check(cl_int e, const char* call) {
  if (e != CL_SUCCESS) {
    std::fprintf(stderr, "opencl_bench: %s failed: %d\n", call, e);
    std::exit(2);
  }
}

struct Case {
  const char* name;
  const char* spec;
  size_t bytes;
};

const Case kCases[] = {
    {"sum_i32", "scan sum_i32 { type = i32; op = add; level = device; }", 4},
    {"sum_f32", "scan sum_f32 { type = f32; op = add; level = device; }", 4},
    {"sum_i64", "scan sum_i64 { type = i64; op = add; level = device; }", 8},
    {"max_i32", "scan max_i32 { type = i32; op = max; level = device; }", 4},
};

// The time in ms of `batch` commands enqueued by `enqueue` (each returning
// its event), first start to last end.
template <typename F>
double batch_ms(cl_command_queue q, int batch, F enqueue) {
  std::vector<cl_event> ev(static_cast<size_t>(batch));
  for (int i = 0; i < batch; ++i) ev[static_cast<size_t>(i)] = enqueue();
  check(clFinish(q), "clFinish");
  cl_ulong start = 0, end = 0;
  check(clGetEventProfilingInfo(ev.front(), CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr),
        "clGetEventProfilingInfo");
  check(clGetEventProfilingInfo(ev.back(), CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr),
        "clGetEventProfilingInfo");
  for (cl_event e : ev) clReleaseEvent(e);
  return static_cast<double>(end - start) * 1e-6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename T>
bool verify(cl_command_queue q, cl_mem in, cl_mem out, const std::vector<T>& host, const char* op) {
  std::vector<T> got(host.size());
  if (host.empty()) return true;
  check(clEnqueueReadBuffer(q, out, CL_TRUE, 0, got.size() * sizeof(T), got.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer");
  (void)in;
  T acc = host[0];
  for (size_t i = 0; i < host.size(); ++i) {
    if (i > 0) acc = std::strcmp(op, "max") == 0 ? std::max(acc, host[i]) : static_cast<T>(acc + host[i]);
    if (got[i] != acc) {
      std::fprintf(stderr, "opencl_bench: wrong at %zu\n", i);
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> log2n = {16, 20, 24, 28};
  int runs = 15;
  std::string csv;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--log2n") == 0 && i + 1 < argc) {
      log2n.clear();
      std::stringstream ss(argv[++i]);
      for (std::string t; std::getline(ss, t, ',');) log2n.push_back(std::atoi(t.c_str()));
    } else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
      csv = argv[++i];
    } else {
      std::fprintf(stderr, "usage: opencl_bench [--log2n 16,20,24,28] [--runs 15] [--csv FILE]\n");
      return 1;
    }
  }
  scangen::RuntimeOptions options;
  options.backend = scangen::Backend::OpenCL;
  scangen::Runtime rt(options);
  std::printf("OpenCL device: %s\n\n", rt.device_name().c_str());
  cl_context ctx = rt.opencl_context();
  cl_device_id dev = nullptr;
  check(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof dev, &dev, nullptr), "clGetContextInfo");
  cl_int e = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e);
  check(e, "clCreateCommandQueue");
  FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
  if (out) std::fprintf(out, "case,log2n,n,scan_us,copy_us,fraction_of_copy\n");
  std::printf("| case | N | scan µs | copy µs | fraction of copy |\n|---|---:|---:|---:|---:|\n");
  const int batch = 20;
  int status = 0;
  for (const Case& c : kCases) {
    scangen::Scan scan = rt.compile(c.spec);
    for (int k : log2n) {
      const uint64_t n = uint64_t{1} << k;
      const size_t bytes = n * c.bytes;
      cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &e);
      check(e, "clCreateBuffer");
      cl_mem o = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &e);
      check(e, "clCreateBuffer");
      cl_mem ws = clCreateBuffer(ctx, CL_MEM_READ_WRITE, std::max<uint64_t>(16, scan.workspace_bytes(n)), nullptr, &e);
      check(e, "clCreateBuffer");
      std::mt19937_64 rng(42 + static_cast<unsigned>(k));
      bool ok = true;
      if (c.bytes == 4 && c.name[4] == 'f') {
        std::vector<float> h(n);
        for (float& x : h) x = static_cast<float>(static_cast<int>(rng() % 3) - 1);
        check(clEnqueueWriteBuffer(q, in, CL_TRUE, 0, bytes, h.data(), 0, nullptr, nullptr), "clEnqueueWriteBuffer");
        scan.inclusive(in, o, n, q);
        ok = verify(q, in, o, h, "add");
      } else if (c.bytes == 4) {
        std::vector<int32_t> h(n);
        for (int32_t& x : h) x = static_cast<int32_t>(rng() % 2001) - 1000;
        check(clEnqueueWriteBuffer(q, in, CL_TRUE, 0, bytes, h.data(), 0, nullptr, nullptr), "clEnqueueWriteBuffer");
        scan.inclusive(in, o, n, q);
        ok = verify(q, in, o, h, c.name[0] == 'm' ? "max" : "add");
      } else {
        std::vector<int64_t> h(n);
        for (int64_t& x : h) x = static_cast<int64_t>(rng() % 2001) - 1000;
        check(clEnqueueWriteBuffer(q, in, CL_TRUE, 0, bytes, h.data(), 0, nullptr, nullptr), "clEnqueueWriteBuffer");
        scan.inclusive(in, o, n, q);
        ok = verify(q, in, o, h, "add");
      }
      if (!ok) {
        std::printf("| %s | 2^%d | WRONG | | |\n", c.name, k);
        status = 1;
      } else {
        scangen::Scan::OpenCLArgs a;
        a.in = in;
        a.inclusive = o;
        a.n = n;
        a.workspace = ws;
        a.workspace_size = std::max<uint64_t>(16, scan.workspace_bytes(n));
        a.queue = q;
        auto copy_cmd = [&] {
          cl_event ev = nullptr;
          check(clEnqueueCopyBuffer(q, in, o, 0, 0, bytes, 0, nullptr, &ev), "clEnqueueCopyBuffer");
          return ev;
        };
        for (int i = 0; i < batch; ++i) scan.run(a);  // warm-up
        batch_ms(q, batch, copy_cmd);
        std::vector<double> ts, tc;
        for (int r = 0; r < runs; ++r) {
          // A scan call is several commands: the batch is timed from the end of
          // a marker before it to the end of a marker after it (a marker waits
          // for every command queued before it).
          check(clFinish(q), "clFinish");
          cl_event first = nullptr;
          check(clEnqueueMarkerWithWaitList(q, 0, nullptr, &first), "clEnqueueMarkerWithWaitList");
          cl_event last = nullptr;
          for (int i = 0; i < batch; ++i) scan.run(a);
          check(clEnqueueMarkerWithWaitList(q, 0, nullptr, &last), "clEnqueueMarkerWithWaitList");
          check(clFinish(q), "clFinish");
          cl_ulong s0 = 0, s1 = 0;
          check(clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_END, sizeof s0, &s0, nullptr), "profiling");
          check(clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof s1, &s1, nullptr), "profiling");
          clReleaseEvent(first);
          clReleaseEvent(last);
          ts.push_back(static_cast<double>(s1 - s0) * 1e-6 / batch);
          tc.push_back(batch_ms(q, batch, copy_cmd) / batch);
        }
        const double s = median(ts) * 1e3, cp = median(tc) * 1e3;
        std::printf("| %s | 2^%d | %.1f | %.1f | %.2f |\n", c.name, k, s, cp, cp / s);
        if (out) std::fprintf(out, "%s,%d,%llu,%.3f,%.3f,%.4f\n", c.name, k, static_cast<unsigned long long>(n), s, cp, cp / s);
      }
      clReleaseMemObject(in);
      clReleaseMemObject(o);
      clReleaseMemObject(ws);
    }
  }
  if (out) std::fclose(out);
  clReleaseCommandQueue(q);
  return status;
}
