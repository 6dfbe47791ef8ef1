#include "scangen/generator/tuning.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace scangen::generator {

namespace {

// Items per thread for about `bytes` bytes per thread, 1..32.
int items_for(size_t element_bytes, size_t bytes) {
  const size_t items = bytes / std::max<size_t>(element_bytes, 1);
  return static_cast<int>(std::clamp<size_t>(items, 1, 32));
}

}  // namespace

// The table. CUDA entries: bench/tune_bench on an NVIDIA H100 80GB HBM3,
// N = 2^28 unless said, fraction of a device-to-device copy of the same
// bytes (bench/RESULTS.md, "Tuning", has every variant measured). Keyed by
// element size alone: at 8 bytes the written affine combine and the built-in
// i64 sum tuned alike (0.956 / 0.957 with the same entry), and every larger
// element is a written combine.
DeviceTuning device_tuning(const dsl::Spec& spec, Backend backend) {
  const size_t bytes = spec.type.size();
  DeviceTuning t;
  if (backend != Backend::Cuda) {
    // OpenCL: 64 bytes per thread, 256 threads (untuned).
    t.threads = 256;
    t.items = items_for(bytes, 64);
    t.why = "OpenCL: 64 bytes per thread, 256 threads (not tuned)";
    return t;
  }
  // Every size: a sleep before the first read of the predecessors, from
  // tile 512 on (about the tiles of the first wave on 132 SMs): i32 256 x 16
  // 0.70 -> 0.75 / 0.79 / 0.83 of copy with 1000 / 2000 / 3000 ns. It paces
  // the blocks rather than sparing reads: sleeping only when a first read
  // finds no complete prefix was as slow as no sleep (i32 0.79, i64 0.92),
  // since most tiles find one at once. From tile 64 on instead, 2^20 i32
  // took 10.8 us instead of 8.0.
  t.first_poll_from = 512;
  t.poll_ns = 32;  // 100 or 300 ns between reads: no difference (0.846 / 0.850 vs 0.847)
  // The I/O moves 16-byte words through shared memory (templates/common/io.h),
  // so a thread's bytes, not its elements, set the cost of a tile's loads.
  if (bytes <= 1) {
    // i8: 64 bytes per thread. 256 x 64 0.648 of copy, 128 x 128 0.640,
    // 256 x 32 0.598, 256 x 128 0.465 (184 registers: one block per SM),
    // 256 x 48 0.467 (100 registers); sleep 3000 ns 0.569. Every byte is a
    // 32-bit register and an instruction: ncu read 51 % of DRAM peak.
    t.threads = 256;
    t.items = 64;
    t.first_poll_ns = 1500;
    t.why = "1 byte: 256 x 64, sleep 1500 ns: i8 sum 0.648 of copy";
  } else if (bytes <= 2) {
    // i16 / f16: 128 bytes per thread. 256 x 64 with 3000 ns 0.859 of copy,
    // 1500 ns 0.812; 256 x 32 0.78; 128 x 64 0.80; 256 x 96 and up no
    // longer fit the exchange in shared memory (0.08, elements one by one).
    t.threads = 256;
    t.items = 64;
    t.first_poll_ns = 3000;
    t.why = "2 bytes: 256 x 64, sleep 3000 ns: i16 sum 0.859 of copy";
  } else if (bytes <= 4) {
    // 128 bytes per thread: 256 x 32 with 3000 ns 0.895 of copy; 128 x 64
    // 0.899 (within the noise); 256 x 16 0.876; 256 x 40 0.868 (80
    // registers); 2000 ns 0.868, 4000 ns 0.893. (Before the 16-byte-word
    // I/O: 0.883.)
    t.threads = 256;
    t.items = 32;
    t.first_poll_ns = 3000;
    t.why = "3-4 bytes: 256 x 32, sleep 3000 ns: i32 sum 0.895, max 0.895 of copy";
  } else if (bytes <= 8) {
    // 256 bytes per thread in 128-thread blocks: 128 x 32 with 3000 ns i64
    // 0.957, affine 0.956 of copy; 256 x 16 0.942 / 0.941; 64 x 64 0.891;
    // 96 x 32 0.933; 2000 ns 0.944, 4000 ns 0.957.
    t.threads = 128;
    t.items = 32;
    t.first_poll_ns = 3000;
    t.why = "5-8 bytes: 128 x 32, sleep 3000 ns: i64 sum 0.957, affine 0.956 of copy";
  } else {
    // Large elements (the 16-byte 2x2 matrix product): 512 bytes per thread
    // in small blocks: 64 x 32 0.744 of copy, 128 x 16 0.722, 32 x 32 0.625,
    // 64 x 16 0.579, 256 x 8 0.620 (3000 ns each); 1500 / 6000 / 0 ns 0.738
    // / 0.744 / 0.717.
    t.threads = 64;
    t.items = items_for(bytes, 512);
    t.first_poll_ns = 3000;
    t.why = "over 8 bytes: 64 threads x 512 bytes, sleep 3000 ns: 2x2 matrices 0.744 of copy";
  }
  return t;
}

DeviceTuning parse_tuning(const std::string& text, DeviceTuning t) {
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == ',' || text[i] == '\t') {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && text[end] != ' ' && text[end] != ',' && text[end] != '\t') ++end;
    const std::string part = text.substr(i, end - i);
    i = end;
    const size_t eq = part.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument("tuning: '" + part + "' is not of the form knob=value");
    const std::string key = part.substr(0, eq), value = part.substr(eq + 1);
    char* stop = nullptr;
    const long v = std::strtol(value.c_str(), &stop, 10);
    if (value.empty() || *stop != '\0' || v < 0 || v > 1000000)
      throw std::invalid_argument("tuning: '" + part + "': the value must be an integer in 0..1000000");
    const int iv = static_cast<int>(v);
    if (key == "threads") {
      if (iv < 32 || iv > 1024 || iv % 32 != 0)
        throw std::invalid_argument("tuning: threads must be a multiple of 32 in 32..1024");
      t.threads = iv;
    } else if (key == "items") {
      if (iv < 1 || iv > 128) throw std::invalid_argument("tuning: items must be in 1..128");
      t.items = iv;
    } else if (key == "min_blocks") {
      if (iv > 32) throw std::invalid_argument("tuning: min_blocks must be in 0..32");
      t.min_blocks = iv;
    } else if (key == "first_poll_ns") {
      t.first_poll_ns = iv;
    } else if (key == "first_poll_from") {
      t.first_poll_from = iv;
    } else if (key == "poll_ns") {
      t.poll_ns = iv;
    } else if (key == "streaming") {
      if (iv > 1) throw std::invalid_argument("tuning: streaming must be 0 or 1");
      t.streaming = iv;
    } else {
      throw std::invalid_argument("tuning: unknown knob '" + key +
                                  "' (threads, items, min_blocks, first_poll_ns, first_poll_from, poll_ns, streaming)");
    }
  }
  t.why = "given";
  return t;
}

std::string to_string(const DeviceTuning& t) {
  return "threads=" + std::to_string(t.threads) + " items=" + std::to_string(t.items) +
         " min_blocks=" + std::to_string(t.min_blocks) + " first_poll_ns=" + std::to_string(t.first_poll_ns) +
         " first_poll_from=" + std::to_string(t.first_poll_from) +
         " poll_ns=" + std::to_string(t.poll_ns) + " streaming=" + std::to_string(t.streaming);
}

}  // namespace scangen::generator
