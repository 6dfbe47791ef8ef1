// Device scans through the OpenCL backend, against a copy of the same bytes
// on the same queue: the runtime's OpenCL path on whatever device it picks
// (SCANGEN_OPENCL_DEVICE or RuntimeOptions' default: a GPU first).
//
//   opencl_bench [--log2n 16,20,24,28] [--runs 15] [--csv FILE]
//                [--variants default,before,...] [--tile 256x16,128x32,...]
//
// Each case is checked once per size against a CPU loop (integers exact,
// f32 on sums of -1, 0, 1, so exact too). Timing: 20 calls queued back to
// back, then clFinish, on a profiling queue: the time from the first
// command's start to the last one's end over 20, the median of --runs such
// batches; the copy (clEnqueueCopyBuffer of n elements) the same way.
//
// --variants: the emitted source's switches (RuntimeOptions::opencl_build_options),
// each variant on a runtime of its own, all in one run (kVariants below).
// --tile: threads x items per work-group given in the spec (threads = T;
// items = I;) instead of the tuning table's, each a case of its own.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <sstream>
#include <string>
#include <utility>
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

// The variants --variants names: the runtime's build options of each.
struct Variant {
  const char* name;
  const char* options;
  const char* what;
};

const Variant kVariants[] = {
    {"default", "",
     "the runtime's choice (NVIDIA: PTX's warp look-back, shuffles and sleep; volatile status reads)"},
    {"portable", "-DSCANGEN_OPENCL_PTX=0", "no PTX: work-item 0's look-back, local-memory lane scans, no sleep"},
    {"serial_lookback", "-DSCANGEN_OPENCL_WARP_LOOKBACK=0", "work-item 0's look-back (shuffles and sleep kept)"},
    {"local_lanes", "-DSCANGEN_OPENCL_SHUFFLES=0", "lane scans through local memory (the rest kept)"},
    {"no_sleep", "-DSCANGEN_OPENCL_FIRST_POLL_NS=0", "no sleep before the look-back's first read"},
    {"sleep3000", "-DSCANGEN_OPENCL_FIRST_POLL_NS=3000", "a sleep of 3 us (CUDA's) instead of the tuning's"},
    {"atomic_reads", "-DSCANGEN_OPENCL_ATOMIC_STATUS_READS", "status slots read with atomic adds of 0"},
    {"before", "-DSCANGEN_OPENCL_PTX=0 -DSCANGEN_OPENCL_ATOMIC_STATUS_READS",
     "portable, atomic status reads: the kernels before the change (with --tile 256x16)"},
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

// "256x16,128x32" as (threads, items) pairs; {0, 0}: the tuning table's.
std::vector<std::pair<int, int>> parse_tiles(const std::string& text) {
  std::vector<std::pair<int, int>> tiles;
  std::stringstream ss(text);
  for (std::string t; std::getline(ss, t, ',');) {
    int threads = 0, items = 0;
    if (std::sscanf(t.c_str(), "%dx%d", &threads, &items) != 2 || threads < 1 || items < 1) {
      std::fprintf(stderr, "opencl_bench: --tile wants THREADSxITEMS, not '%s'\n", t.c_str());
      std::exit(1);
    }
    tiles.emplace_back(threads, items);
  }
  return tiles;
}

// One variant's table: every case at every size, rows to stdout and the CSV.
int run_variant(const Variant& v, const std::vector<std::pair<int, int>>& tiles, const std::vector<int>& log2n,
                int runs, FILE* out) {
  scangen::RuntimeOptions options;
  options.backend = scangen::Backend::OpenCL;
  options.opencl_build_options = v.options;
  scangen::Runtime rt(options);
  std::printf("## variant %s: %s (build options: %s)\n\nOpenCL device: %s\n\n", v.name, v.what,
              *v.options ? v.options : "none", rt.device_name().c_str());
  cl_context ctx = rt.opencl_context();
  cl_device_id dev = nullptr;
  check(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof dev, &dev, nullptr), "clGetContextInfo");
  cl_int e = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e);
  check(e, "clCreateCommandQueue");
  std::printf("| case | tile | N | scan µs | copy µs | fraction of copy |\n|---|---|---:|---:|---:|---:|\n");
  const int batch = 20;
  int status = 0;
  for (const Case& c : kCases)
    for (const auto& [threads, items] : tiles) {
      std::string spec = c.spec;
      if (threads > 0)
        spec.insert(spec.rfind('}'), "threads = " + std::to_string(threads) + "; items = " + std::to_string(items) + "; ");
      scangen::Scan scan;
      try {
        scan = rt.compile(spec);
      } catch (const std::exception& ex) {  // a tile the device cannot take: say so, go on
        std::printf("| %s | %dx%d | | %s | | |\n", c.name, threads, items, ex.what());
        status = 1;
        continue;
      }
      const std::string tile =
          std::to_string(scan.plan().block_threads) + "x" + std::to_string(scan.plan().items);
      for (int k : log2n) {
        const uint64_t n = uint64_t{1} << k;
        const size_t bytes = n * c.bytes;
        cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &e);
        check(e, "clCreateBuffer");
        cl_mem o = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &e);
        check(e, "clCreateBuffer");
        cl_mem ws =
            clCreateBuffer(ctx, CL_MEM_READ_WRITE, std::max<uint64_t>(16, scan.workspace_bytes(n)), nullptr, &e);
        check(e, "clCreateBuffer");
        std::mt19937_64 rng(42 + static_cast<unsigned>(k));
        bool ok = true;
        if (c.bytes == 4 && c.name[4] == 'f') {
          std::vector<float> h(n);
          for (float& x : h) x = static_cast<float>(static_cast<int>(rng() % 3) - 1);
          check(clEnqueueWriteBuffer(q, in, CL_TRUE, 0, bytes, h.data(), 0, nullptr, nullptr),
                "clEnqueueWriteBuffer");
          scan.inclusive(in, o, n, q);
          ok = verify(q, in, o, h, "add");
        } else if (c.bytes == 4) {
          std::vector<int32_t> h(n);
          for (int32_t& x : h) x = static_cast<int32_t>(rng() % 2001) - 1000;
          check(clEnqueueWriteBuffer(q, in, CL_TRUE, 0, bytes, h.data(), 0, nullptr, nullptr),
                "clEnqueueWriteBuffer");
          scan.inclusive(in, o, n, q);
          ok = verify(q, in, o, h, c.name[0] == 'm' ? "max" : "add");
        } else {
          std::vector<int64_t> h(n);
          for (int64_t& x : h) x = static_cast<int64_t>(rng() % 2001) - 1000;
          check(clEnqueueWriteBuffer(q, in, CL_TRUE, 0, bytes, h.data(), 0, nullptr, nullptr),
                "clEnqueueWriteBuffer");
          scan.inclusive(in, o, n, q);
          ok = verify(q, in, o, h, "add");
        }
        if (!ok) {
          std::printf("| %s | %s | 2^%d | WRONG | | |\n", c.name, tile.c_str(), k);
          if (out) std::fprintf(out, "%s,%s,%s,%d,%llu,,,WRONG\n", v.name, c.name, tile.c_str(), k,
                                static_cast<unsigned long long>(n));
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
          const double sc = median(ts) * 1e3, cp = median(tc) * 1e3;
          std::printf("| %s | %s | 2^%d | %.1f | %.1f | %.2f |\n", c.name, tile.c_str(), k, sc, cp, cp / sc);
          if (out)
            std::fprintf(out, "%s,%s,%s,%d,%llu,%.3f,%.3f,%.4f\n", v.name, c.name, tile.c_str(), k,
                         static_cast<unsigned long long>(n), sc, cp, cp / sc);
        }
        clReleaseMemObject(in);
        clReleaseMemObject(o);
        clReleaseMemObject(ws);
      }
    }
  std::printf("\n");
  clReleaseCommandQueue(q);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> log2n = {16, 20, 24, 28};
  int runs = 15;
  std::string csv, variants = "default";
  std::vector<std::pair<int, int>> tiles = {{0, 0}};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--log2n") == 0 && i + 1 < argc) {
      log2n.clear();
      std::stringstream ss(argv[++i]);
      for (std::string t; std::getline(ss, t, ',');) log2n.push_back(std::atoi(t.c_str()));
    } else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
      csv = argv[++i];
    } else if (std::strcmp(argv[i], "--variants") == 0 && i + 1 < argc) {
      variants = argv[++i];
    } else if (std::strcmp(argv[i], "--tile") == 0 && i + 1 < argc) {
      tiles = parse_tiles(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: opencl_bench [--log2n 16,20,24,28] [--runs 15] [--csv FILE] [--variants V,...] "
                   "[--tile THREADSxITEMS,...]\nvariants:");
      for (const Variant& v : kVariants) std::fprintf(stderr, " %s", v.name);
      std::fprintf(stderr, "\n");
      return 1;
    }
  }
  std::vector<const Variant*> chosen;
  std::stringstream ss(variants);
  for (std::string t; std::getline(ss, t, ',');) {
    const Variant* found = nullptr;
    for (const Variant& v : kVariants)
      if (t == v.name) found = &v;
    if (!found) {
      std::fprintf(stderr, "opencl_bench: no variant '%s'\n", t.c_str());
      return 1;
    }
    chosen.push_back(found);
  }
  FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
  if (out) std::fprintf(out, "variant,case,tile,log2n,n,scan_us,copy_us,fraction_of_copy\n");
  int status = 0;
  for (const Variant* v : chosen) status |= run_variant(*v, tiles, log2n, runs, out);
  if (out) std::fclose(out);
  return status;
}
