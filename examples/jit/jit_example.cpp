// JIT-compiles a scan at run time and runs it on the default device (a CUDA
// GPU when there is one, else OpenCL: PoCL on the CPU), then checks the
// result against scangen's CPU reference.
//
//   jit_example [FILE.scan [SCAN]] [N]     (default: bytes summed in u32, 1,000,000 elements)
//   jit_example FILE.scan [SCAN] --in=3,1,7,0  the given integers as the input (a scalar integer
//                                              input type), printed with the results
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda_driver.h"
#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

namespace {

// Bytes summed in 32 bits: no overflow where a u8 sum would wrap.
const char* const kDefaultScan = R"(
scan byte_sum {
  type = u32;
  input = u8;
  op = add;
  level = device;
  mode = both;
  outputs = aggregate;
}
)";

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "jit_example: %s failed\n", what);
    std::exit(2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string file, name;
  uint64_t n = 1000000;
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<long long> given;  // --in=...
  for (auto it = args.begin(); it != args.end();) {
    if (it->rfind("--in=", 0) == 0) {
      std::string list = it->substr(5) + ",";
      for (size_t start = 0, comma; (comma = list.find(',', start)) != std::string::npos; start = comma + 1)
        if (comma > start) given.push_back(std::strtoll(list.substr(start, comma - start).c_str(), nullptr, 10));
      it = args.erase(it);
    } else {
      ++it;
    }
  }
  if (!args.empty() && args.back().find_first_not_of("0123456789") == std::string::npos) {
    n = std::strtoull(args.back().c_str(), nullptr, 10);
    args.pop_back();
  }
  if (!args.empty()) file = args[0];
  if (args.size() > 1) name = args[1];
  try {
    scangen::Runtime rt;
    std::printf("device: %s (%s)\n", rt.device_name().c_str(), rt.backend() == scangen::Backend::Cuda ? "CUDA" : "OpenCL");
    if (!rt.fallback_reason().empty())
      std::printf("  no CUDA GPU could be used, so the scan runs on this OpenCL device instead (%s)\n",
                  rt.fallback_reason().c_str());
    const auto t0 = std::chrono::steady_clock::now();
    scangen::Scan scan = file.empty() ? rt.compile(kDefaultScan) : rt.compile_file(file, name);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const scangen::dsl::Spec& s = scan.spec();
    const scangen::CacheStats st = rt.stats();
    std::printf("scan '%s' (%s, %s): ready in %.1f ms (%s)\n", s.name.c_str(), scangen::dsl::to_string(s.level),
                scangen::dsl::to_string(s.algorithm), ms,
                st.misses ? "compiled" : st.disk_hits ? "from the disk cache" : "from memory");

    std::mt19937_64 rng(12345);
    if (!given.empty()) n = given.size();
    std::vector<uint8_t> in(n * s.input.size() + 1);  // + 1: never empty
    scangen::ref::fill_random(s.input, in.data(), n, rng);
    if (!given.empty()) {
      const size_t is = s.input.size();
      check(s.input.is_scalar() && !s.input.contains_float(), "--in (the input type must be a scalar integer)");
      for (size_t i = 0; i < given.size(); ++i) {
        const unsigned long long v = static_cast<unsigned long long>(given[i]);
        for (size_t b = 0; b < is; ++b) in[i * is + b] = static_cast<uint8_t>(v >> (8 * b));  // little-endian
      }
    }
    const size_t es = s.type.size();
    const size_t out_elems = s.mode == scangen::dsl::Mode::Both ? 2 * n : n;
    std::vector<uint8_t> out(out_elems * es, 0xAB);
    std::vector<uint8_t> extra(2 * es + 64, 0);  // aggregate and running total, if the spec has them
    scangen::ref::Evaluator ev(s);
    if (s.running_total) ev.identity(extra.data() + es);

    if (rt.backend() == scangen::Backend::Cuda) {
      // CUDA memory through the driver, loaded as the runtime loads it (its
      // table of libcuda's functions, runtime/src/cuda_driver.h).
      const scangen::runtime::detail::Driver* cu = scangen::runtime::detail::load_driver(nullptr);
      check(cu != nullptr, "loading the CUDA driver");
      CUdeviceptr d_in = 0, d_out = 0, d_extra = 0;
      check(cu->cuMemAlloc(&d_in, in.size()) == CUDA_SUCCESS && cu->cuMemAlloc(&d_out, out.size() + 1) == CUDA_SUCCESS &&
                cu->cuMemAlloc(&d_extra, extra.size()) == CUDA_SUCCESS,
            "cuMemAlloc");
      check(cu->cuMemcpyHtoD(d_in, in.data(), in.size()) == CUDA_SUCCESS &&
                cu->cuMemcpyHtoD(d_extra, extra.data(), extra.size()) == CUDA_SUCCESS,
            "cuMemcpyHtoD");
      scangen::Scan::CudaArgs a;
      a.in = reinterpret_cast<void*>(d_in);
      if (s.has_inclusive()) a.inclusive = reinterpret_cast<void*>(d_out);
      if (s.has_exclusive()) a.exclusive = reinterpret_cast<void*>(d_out + (s.has_inclusive() ? n * es : 0));
      if (s.aggregate) a.aggregate = reinterpret_cast<void*>(d_extra);
      if (s.running_total) a.running_total = reinterpret_cast<void*>(d_extra + es);
      a.n = n;
      scan.run(a);
      check(cu->cuCtxSynchronize() == CUDA_SUCCESS && cu->cuMemcpyDtoH(out.data(), d_out, out.size()) == CUDA_SUCCESS,
            "running the scan");
      cu->cuMemFree(d_in), cu->cuMemFree(d_out), cu->cuMemFree(d_extra);
    } else {
      cl_int err = CL_SUCCESS;
      cl_context ctx = rt.opencl_context();
      cl_mem d_in = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, in.size(), in.data(), &err);
      check(err == CL_SUCCESS, "clCreateBuffer");
      // Inclusive results first, exclusive ones after them (each a buffer of its own).
      const size_t half = s.mode == scangen::dsl::Mode::Both ? n * es : out.size();
      cl_mem d_out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, half + 1, nullptr, &err);
      check(err == CL_SUCCESS, "clCreateBuffer");
      cl_mem d_extra = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, extra.size(), extra.data(), &err);
      check(err == CL_SUCCESS, "clCreateBuffer");
      cl_mem d_exc = d_out;
      if (s.mode == scangen::dsl::Mode::Both) {
        d_exc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * es + 1, nullptr, &err);
        check(err == CL_SUCCESS, "clCreateBuffer");
      }
      scangen::Scan::OpenCLArgs a;
      a.in = d_in;
      if (s.has_inclusive()) a.inclusive = d_out;
      if (s.has_exclusive()) a.exclusive = d_exc;
      if (s.aggregate) a.aggregate = d_extra;
      check(!s.running_total, "this example's running totals (use the CUDA path or your own buffers)");
      a.n = n;
      scan.run(a);
      if (half > 0)
        check(clEnqueueReadBuffer(rt.opencl_queue(), d_out, CL_TRUE, 0, half, out.data(), 0, nullptr, nullptr) ==
                  CL_SUCCESS,
              "clEnqueueReadBuffer");
      check(clFinish(rt.opencl_queue()) == CL_SUCCESS, "clFinish");
      if (d_exc != d_out && n > 0)
        check(clEnqueueReadBuffer(rt.opencl_queue(), d_exc, CL_TRUE, 0, n * es, out.data() + half, 0, nullptr,
                                  nullptr) == CL_SUCCESS,
              "clEnqueueReadBuffer");
      if (d_exc != d_out) clReleaseMemObject(d_exc);
      clReleaseMemObject(d_in), clReleaseMemObject(d_out), clReleaseMemObject(d_extra);
    }

    const auto want = ev.scan(in.data(), n);
    uint64_t bad = 0, first_bad = 0;
    auto compare = [&](const uint8_t* got, const std::vector<uint8_t>& w) {
      scangen::ref::Tolerance tol;
      if (s.type.contains_float()) tol.rel = 1e-3, tol.abs = 1e-3;  // float sums in another order
      for (uint64_t i = 0; i < n; ++i)
        if (!scangen::ref::values_match(s.type, got + i * es, w.data() + i * es, tol) && bad++ == 0) first_bad = i;
    };
    if (s.has_inclusive()) compare(out.data(), want.inclusive);
    if (s.has_exclusive()) compare(out.data() + (s.has_inclusive() ? n * es : 0), want.exclusive);
    if (bad) {
      std::printf("FAIL: %llu of %llu elements differ from the CPU reference (the first at %llu)\n",
                  static_cast<unsigned long long>(bad), static_cast<unsigned long long>(n),
                  static_cast<unsigned long long>(first_bad));
      return 1;
    }
    if (!given.empty()) {  // the values themselves
      auto row = [&](const char* label, const uint8_t* p, const scangen::dsl::Type& t) {
        std::printf("  %-9s [", label);
        for (uint64_t i = 0; i < n; ++i)
          std::printf("%s%s", i ? " " : "", scangen::ref::format_value(t, p + i * t.size()).c_str());
        std::printf("]\n");
      };
      row("in", in.data(), s.input);
      if (s.has_inclusive()) row("inclusive", out.data(), s.type);
      if (s.has_exclusive()) row("exclusive", out.data() + (s.has_inclusive() ? n * es : 0), s.type);
    }
    std::printf("OK: %llu elements match the CPU reference", static_cast<unsigned long long>(n));
    if (n > 0) {
      const bool inc = s.has_inclusive();
      const uint8_t* last = out.data() + (inc ? (n - 1) * es : (out_elems - 1) * es);
      std::printf("; the last %s prefix is %s", inc ? "inclusive" : "exclusive", scangen::ref::format_value(s.type, last).c_str());
    }
    std::printf("\n");
    return 0;
  } catch (const scangen::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
