// Discounted returns of reinforcement learning with a reverse scan
// (examples/discounted_returns.scan): G[t] = r[t] + gamma * G[t+1] within an
// episode, G = r at an episode's last step. The scan runs through the
// runtime on OpenCL (PoCL on the CPU, or a GPU's OpenCL) and is checked
// against the plain backward loop.
//
//   discounted_returns SPEC [STEPS]     (default 1,000,003 steps)
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "scangen/runtime/runtime.h"

namespace {

struct Step {  // the spec's type Step { a: f32, b: f32 }: the map G -> a * G + b
  float a, b;
};

void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "discounted_returns: %s failed (%d)\n", what, err);
    std::exit(2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: discounted_returns SPEC [STEPS]\n");
    return 2;
  }
  const uint64_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000003;
  const float gamma = 0.99f;
  // Rewards in [0, 1), episodes of 1 to 2000 steps.
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<float> reward(0.0f, 1.0f);
  std::uniform_int_distribution<int> length(1, 2000);
  std::vector<float> r(n);
  std::vector<bool> done(n, false);  // the episode ends after step t
  for (uint64_t t = 0, left = 0; t < n; ++t) {
    if (left == 0) left = static_cast<uint64_t>(length(rng));
    r[t] = reward(rng);
    done[t] = --left == 0 || t == n - 1;
  }
  // Step t: G -> gamma * G + r[t], or, at an episode's end, G -> r[t].
  std::vector<Step> steps(n);
  for (uint64_t t = 0; t < n; ++t) steps[t] = {done[t] ? 0.0f : gamma, r[t]};

  try {
    scangen::Runtime rt({scangen::Backend::OpenCL});
    std::printf("device: %s (OpenCL)\n", rt.device_name().c_str());
    const scangen::Scan scan = rt.compile_file(argv[1], "discounted_returns");
    cl_int err = CL_SUCCESS;
    const size_t bytes = std::max<size_t>(1, n * sizeof(Step));
    cl_mem in = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                               n ? steps.data() : nullptr, &err);
    if (n == 0) in = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_ONLY, bytes, nullptr, &err);
    check(err, "clCreateBuffer");
    cl_mem out = clCreateBuffer(rt.opencl_context(), CL_MEM_WRITE_ONLY, bytes, nullptr, &err);
    check(err, "clCreateBuffer");
    scan.inclusive(in, out, n);  // out[t] = steps[n-1] then ... then steps[t], composed
    std::vector<Step> composed(n);
    if (n) check(clEnqueueReadBuffer(rt.opencl_queue(), out, CL_TRUE, 0, n * sizeof(Step), composed.data(), 0,
                                     nullptr, nullptr),
                 "clEnqueueReadBuffer");
    check(clReleaseMemObject(in), "clReleaseMemObject");
    check(clReleaseMemObject(out), "clReleaseMemObject");

    // The backward loop, in double; G[t] is the composed map applied to G[n] = 0: its b.
    uint64_t bad = 0;
    double g = 0.0, worst = 0.0;
    for (uint64_t t = n; t-- > 0;) {
      g = r[t] + (done[t] ? 0.0 : gamma * g);
      const double err_t = std::fabs(composed[t].b - g);
      worst = std::max(worst, err_t);
      if (err_t > 1e-3 * std::max(1.0, std::fabs(g)) && bad++ < 5)
        std::printf("  G[%llu]: got %.6f, want %.6f\n", static_cast<unsigned long long>(t), composed[t].b, g);
    }
    if (bad) {
      std::printf("FAIL: %llu of %llu returns differ from the backward loop\n", static_cast<unsigned long long>(bad),
                  static_cast<unsigned long long>(n));
      return 1;
    }
    std::printf("OK: %llu returns match the backward loop (largest difference %.2g)", static_cast<unsigned long long>(n),
                worst);
    if (n) std::printf("; G[0] = %.4f", composed[0].b);
    std::printf("\n");
    return 0;
  } catch (const scangen::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
