#include "scangen/generator/tuning.h"

#include "spec_rules.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace scangen::generator {

namespace {

// Items per thread for about `bytes` bytes per thread, 1..32.
int items_for(size_t element_bytes, size_t bytes) {
  const size_t items = bytes / std::max<size_t>(element_bytes, 1);
  return static_cast<int>(std::clamp<size_t>(items, 1, 32));
}

constexpr size_t kAnySize = std::numeric_limits<size_t>::max();
// The most bytes of elements an auto-sized tile holds (device_tuning).
constexpr size_t kMaxTileBytes = size_t{32} << 10;

// A row of the table: the entry for a backend, an architecture and elements
// of up to max_bytes.
struct Row {
  Backend backend;
  int arch;          // Target::arch; 0: any
  size_t max_bytes;  // the first row the element fits is the entry
  int threads;
  int items;             // per thread; 0: about bytes_per_thread bytes (1..32 items)
  int bytes_per_thread;  // when items is 0
  int first_poll_ns;
  const char* why;              // one line; bench/RESULTS.md ("Tuning") has every variant measured
  bool packed_sums = false;     // only for wrapping 1- and 2-byte sums (detail::packable_sum: packed words)
  int streaming = 0;            // DeviceTuning::streaming
  bool fused_outputs = false;   // only for scans with fused outputs (scatter)
  int min_blocks = 0;           // DeviceTuning::min_blocks
  int tagged_words = 0;         // DeviceTuning::tagged_words
  bool plain_only = false;      // only for plain scans (plain_flat_scan): the shapes tune_bench measured
  const char* device = "";      // only for a device whose name contains this (Target::device); "": any
  const char* type = "";        // only for elements of this type ("f16"); "": any
  bool segmented_only = false;  // only for segmented scans (their tiles scan (count, value) pairs)
  bool rows_only = false;       // only for batched rows (shape = rows: the rows kernel)
};

// Whether a row of the table serves a scan of `spec` on `target` (rows for a
// device only where the architecture is known and the device's name has
// theirs).
bool row_serves(const Row& r, const dsl::Spec& spec, const Target& target) {
  if (*r.device && (target.arch != r.arch || target.device.find(r.device) == std::string::npos)) return false;
  if (*r.type && spec.type.name() != r.type) return false;
  return true;
}

// A flat, unsegmented, forward scan of one input array by decoupled look-back
// in any order, with neither fused outputs nor neighbours: the scans of
// bench/specs/device_bench.scan, which tune_bench times. Rows with plain_only
// serve these alone; every other scan keeps the row after them, measured
// before (or not) with its own kernels.
bool plain_flat_scan(const dsl::Spec& spec) {
  return spec.level == dsl::Level::Device && spec.shape == dsl::Shape::Flat && spec.segments == dsl::Segments::None &&
         !spec.has_scatter() && !spec.has_input_arrays() && !(spec.convert && spec.convert->neighbours >= 0) &&
         !spec.reverse && !spec.deterministic && spec.algorithm == dsl::Algorithm::DecoupledLookback;
}

// The table. CUDA: bench/tune_bench on an NVIDIA H100 80GB HBM3 (sm_90),
// N = 2^28, fraction of a device-to-device copy of the same bytes. Keyed by
// element size: at 8 bytes the written affine combine and the built-in i64
// sum tuned alike, and every larger element is a written combine. Every CUDA
// row sleeps before the first read of the predecessors from tile 512 on (the
// first wave on 132 SMs: it paces the blocks) and 32 ns between reads (the
// DeviceTuning defaults; 100 or 300 ns made no difference). The I/O moves
// 16-byte words, so a thread's bytes, not its elements, set a tile's cost.
// The fractions in the rows were measured with statuses published by
// volatile stores; since they are published by atomic exchange (status_ops,
// 2026-11-27) the same rows give i32 0.988, max 0.989, i64 0.995, i8 0.946,
// i16 0.970, 2x2 matrices 0.784 of a copy (bench/RESULTS.md, "Statuses
// published by atomic exchange"), and the first sleep matters less; the
// matrices 0.887 with tagged-word statuses (their row). The first sleep of
// the rows of the plain sums is 1000 ns since 2026-11-27 (it was 3000 - 4000
// ns): the same on the H100 (i32 0.989 against 0.992, i64 0.996 against
// 0.997, i8 0.959 against 0.937, i16 0.980 against 0.967 at 2^28) and better
// on the H200 (i32 0.911 against 0.891, i64 0.945 against 0.939, i8 0.869
// against 0.814, i16 0.923 against 0.875), tune_bench, bench/tune/h200_probe.txt
// and first_poll_1000.txt (bench/RESULTS.md, "The H200").
constexpr Row kTable[] = {
    // Sums of 1- and 2-byte integers and of f16 in packed words (templates/cuda/packed.cuh): 40 - 80
    // registers instead of 80 at 64 items, so more items per thread pay for i8; streaming words. Plain
    // scans (plain_flat_scan) in blocks of 128 threads since 2026-11-28 (bench/tune/i8_tiles.txt, threads128.txt;
    // bench/RESULTS.md,
    // "Blocks of 128 threads"): the same items, half the tile, twice the blocks per SM. i8 at 128 x 128
    // (56 registers, 9 blocks per SM) against 256 x 128 in one run: H100 0.966 against 0.921, H200 0.912
    // against 0.856. i16 / f16 at 128 x 64 unbounded (48 / 80 registers, 10 / 6 blocks per SM) against
    // 256 x 64 with at least 5 blocks per SM (the f16x2 chains' 80 registers allowed only 3 blocks of
    // 256): H100 0.983 / 0.979 against 0.954 / 0.947.
    // Other scans of these types keep the rows of 256 threads after them.
    {Backend::Cuda, 90, 1, 128, 128, 0, 1000,
     "1-byte sum in packed words: 128 x 128, at least 9 blocks per SM, sleep 1000 ns, streaming: i8 sum 0.966 of copy",
     true, 1, false, 9, 0, true},
    // The H200 (and the GH200, whose name holds "H200"; not measured): it copies 40 % faster than the
    // H100 with the same SMs. Of the tiles of bench/tune/h200_dynamic_*.txt only the f16 sum's differs
    // from the H100's (bench/RESULTS.md, "Rows for a device: the f16 sum on the H200"): the H100's
    // 128 x 64 held to at least 10 blocks per SM (48 registers instead of 80, 10 blocks instead of 6)
    // gave 0.943 - 0.944 of copy at 2^28 against 0.879 - 0.880 unbounded, and 256 x 64 with at least 5
    // blocks 0.904 - 0.928, in one run (2^24: 0.677 - 0.682 against 0.683 - 0.693).
    {Backend::Cuda, 90, 2, 128, 64, 0, 1000,
     "H200, f16 sum in packed words: 128 x 64, at least 10 blocks per SM, sleep 1000 ns, streaming: 0.943 of copy "
     "(H200)",
     true, 1, false, 10, 0, true, "H200", "f16"},
    {Backend::Cuda, 90, 2, 128, 64, 0, 1000,
     "2-byte sums in packed words: 128 x 64, sleep 1000 ns, streaming: i16 sum 0.983, f16 0.979 of copy", true, 1,
     false, 0, 0, true},
    {Backend::Cuda, 90, 1, 256, 128, 0, 1000,
     "1-byte sum in packed words: 256 x 128, sleep 1000 ns, streaming: i8 sum 0.959 of copy", true, 1},
    {Backend::Cuda, 90, 2, 256, 64, 0, 1000,
     "2-byte sums in packed words: 256 x 64, at least 5 blocks per SM, sleep 1000 ns, streaming: i16 sum 0.980, f16 "
     "0.985 of copy",
     true, 1, false, 5},
    // Fused outputs (select, partition, run-length encoding): the pass over the tile in the striped
    // order (the fused outputs and the scan's own results) does better on smaller tiles; select_bench on
    // an H200 at 2^28, select 50 % / partition / run-length encoding in ms: 256 x 32 0.90 / 0.97 / -,
    // the same with at least 5 blocks per SM 0.81 / 0.92 / -, 256 x 16 0.73 / 0.82 / 1.58, 128 x 32
    // 0.84 / 0.95 / 2.00, 128 x 16 (8 bytes) - / - / 1.54 (bench/RESULTS.md, "Fused outputs in the
    // striped order").
    {Backend::Cuda, 90, 4, 256, 16, 0, 3000,
     "fused outputs, 1-4 bytes: 256 x 16, sleep 3000 ns: select 50 % 0.73 ms, partition 0.82 ms at 2^28 (H200)", false,
     0, true},
    {Backend::Cuda, 90, 8, 128, 16, 0, 3000,
     "fused outputs, 5-8 bytes: 128 x 16, sleep 3000 ns: run-length encoding 1.54 ms at 2^28 (H200)", false, 0, true},
    {Backend::Cuda, 90, 1, 256, 64, 0, 1500,
     "1 byte: 256 x 64, sleep 1500 ns: i8 sum element by element 0.648 of copy"},
    {Backend::Cuda, 90, 2, 256, 64, 0, 3000,
     "2 bytes: 256 x 64, sleep 3000 ns: i16 sum element by element 0.859 of copy"},
    // 3-4 bytes, plain scans: 128 x 32 (9 blocks per SM) since 2026-11-28; against 256 x 32 in one run on the H100
    // the same at 2^28 (i32 0.987 / 0.985, f32 0.987 / 0.982, max 0.989 / 0.985) and faster at 2^24
    // (i32 51.7 against 56.5 us, f32 52.2 / 57.2, max 51.6 / 57.2; a copy 48.5 us).
    {Backend::Cuda, 90, 4, 128, 32, 0, 1000,
     "3-4 bytes: 128 x 32, at least 9 blocks per SM, sleep 1000 ns: i32 sum 0.987 of copy", false, 0, false, 9, 0,
     true},
    // Batched rows (shape = rows) of 3-4 bytes: the rows kernel in blocks of 128 threads held to at least
    // 8 blocks per SM (64 registers, no spills; decide_shape gives the bound to the rows kernel where it
    // keeps one output and no aggregates, 6 to the fixed-order look-back's, which spills at 8). f32 sums on
    // an H200, fraction of copy, against the row after this one (256 x 32, at least 3 blocks) in one call
    // (bench/RESULTS.md, "The rows kernel: heads in 32 bits, blocks of 128"): at least 6 / 7 / 8 blocks
    // 0.842 / 0.838 / 0.853 at 4096 x 4096, 0.892 / 0.850 / 0.848 at 65536 x 256, 0.896 / 0.888 / 0.908 at
    // 2^20 x 32, 0.795 / 0.850 / 0.872 at 4 x 2^26, against 0.743 - 0.749, 0.746 - 0.749, 0.792 - 0.796 and
    // 0.683 - 0.684.
    {Backend::Cuda, 90, 4, 128, 32, 0, 1000,
     "batched rows, 3-4 bytes: 128 x 32, at least 8 blocks per SM, sleep 1000 ns: rows 4096 x 4096 f32 0.853 of "
     "copy (H200)",
     false, 0, false, 8, 0, false, "", "", false, true},
    {Backend::Cuda, 90, 4, 256, 32, 0, 1000, "3-4 bytes: 256 x 32, sleep 1000 ns: i32 sum 0.989 of copy"},
    {Backend::Cuda, 90, 8, 128, 32, 0, 1000, "5-8 bytes: 128 x 32, sleep 1000 ns: i64 sum 0.996 of copy"},
    // Over 8 bytes the statuses are tagged words (StatusLayout::TaggedWords: each 32-bit word with its
    // tag in a 64-bit slot, published by exchange, no fences), not the tag after the value and a fence:
    // 2x2 matrices 0.887 of copy against 0.783 (2026-11-27, bench/tune/tagged_16byte.txt), with 218
    // registers instead of 167 (4 blocks per SM instead of 6); sleeps of 0 / 1000 / 3000 ns: 0.886 /
    // 0.887 / 0.873. Blocks of 128 threads gave 0.923 against 0.892 in one run on the H100 (2026-11-28),
    // but their exchange (64 KiB of matrices) fits only in dynamic shared memory, which a plan for an
    // unknown architecture cannot use (direct I/O, a collapse): not taken.
    // Segmented scans whose (count, value) pairs are 9 - 12 bytes (8-byte values: the affine maps of f32):
    // segmented_bench's affine recurrence over 4096 sequences of mean 4096 on an H200 (bench/RESULTS.md, "The
    // affine sequences' tiles"), against the row after this one (64 x 32, 128 registers, 8 blocks of 2 warps
    // an SM) in each of three calls, two runs each: forward 5 - 8 % faster, reverse 2 - 5 %; 128 x 8 and
    // 256 x 8 20 % slower, 64 x 16 12 %, 128 x 24 and 128 x 32 (dynamic shared memory) no faster.
    {Backend::Cuda, 90, 12, 128, 16, 0, 1000,
     "segmented, pairs of 9-12 bytes: 128 x 16, tagged-word statuses, sleep 1000 ns: affine sequences 0.59 of copy "
     "(H200)",
     false, 0, false, 0, 1, false, "", "", true},
    {Backend::Cuda, 90, kAnySize, 64, 0, 512, 1000,
     "over 8 bytes: 64 threads x 512 bytes, tagged-word statuses, sleep 1000 ns: 2x2 matrices 0.887 of copy", false, 0,
     false, 0, 1},
    // OpenCL: the shapes of CUDA's rows of 256 x 32 and 128 x 32 for 3-8 bytes, 64 bytes per thread
    // otherwise. The sleep only where the device sleeps (NVIDIA's PTX,
    // SCANGEN_OPENCL_PTX). NVIDIA's OpenCL on an H100, i32 sum, fraction of
    // a copy at 2^28 / 2^24 (bench/RESULTS.md, "OpenCL on the H100 again"):
    // 256 x 16 without PTX 0.50; 256 x 32 without PTX 0.82 / 0.69; with the
    // warp look-back and shuffles, sleep 0 / 1000 / 3000 ns: 0.951 / 0.852,
    // 0.960 / 0.850, 0.956 / 0.835. 8 bytes follow CUDA's row, untimed.
    // An OpenCL CPU device (the runtime plans for "opencl cpu" there, PoCL's among them): work-groups of
    // 64 work-items of 4 elements. A CPU runs a work-group as a loop, and its JIT compile, not the scan,
    // is most of a call's time: PoCL on 2 cores of an AMD EPYC, an f32 device scan's first call 0.6 s
    // against 1.6 s at 256 x 32 (its reverse variant 1.7 s against 4.9 s), and 2^24 elements 155 ms
    // against 143 ms (2026-12-07).
    {Backend::OpenCL, 0, kAnySize, 64, 4, 0, 0,
     "OpenCL on a CPU: 64 x 4, no sleep: a third of the JIT time of 256 x 32 on PoCL, 2^24 f32 sum 9 % slower", false,
     0, false, 0, 0, false, "opencl cpu"},
    {Backend::OpenCL, 0, 2, 256, 0, 64, 0, "OpenCL, 1-2 bytes: 64 bytes per thread, 256 threads (not tuned)"},
    {Backend::OpenCL, 0, 4, 256, 32, 0, 1000,
     "OpenCL, 3-4 bytes: 256 x 32, sleep 1000 ns: i32 sum 0.960 of copy (H100)"},
    {Backend::OpenCL, 0, 8, 128, 32, 0, 1000, "OpenCL, 5-8 bytes: 128 x 32 (CUDA's shape), sleep 1000 ns (not timed)"},
    {Backend::OpenCL, 0, kAnySize, 256, 0, 64, 0, "OpenCL, over 8 bytes: 64 bytes per thread, 256 threads (not tuned)"},
};

// The architecture whose rows serve a target the table has none for.
int default_arch(Backend backend) { return backend == Backend::Cuda ? 90 : 0; }

bool has_rows(Backend backend, int arch) {
  for (const Row& r : kTable)
    if (r.backend == backend && r.arch == arch) return true;
  return false;
}

}  // namespace

std::string to_string(const Target& t) {
  if (t.backend != Backend::Cuda) return to_string(t.backend);
  return t.arch > 0 ? "cuda sm_" + std::to_string(t.arch) : "cuda, any architecture";
}

int cuda_arch_number(const std::string& arch) {
  for (const std::string prefix : {"sm_", "compute_"}) {
    if (arch.rfind(prefix, 0) != 0) continue;
    size_t i = prefix.size(), end = i;
    while (end < arch.size() && end - i < 4 && std::isdigit(static_cast<unsigned char>(arch[end]))) ++end;
    if (end == i) return 0;
    if (end != arch.size() && !(end + 1 == arch.size() && std::islower(static_cast<unsigned char>(arch[end]))))
      return 0;
    return std::stoi(arch.substr(i, end - i));
  }
  return 0;
}

DeviceTuning device_tuning(const dsl::Spec& spec, Backend backend) { return device_tuning(spec, Target{backend, 0}); }

DeviceTuning device_tuning(const dsl::Spec& spec, const Target& target) {
  // A segmented scan's tiles scan (count, value) pairs: the row of the pair's size.
  const size_t bytes =
      spec.segments != dsl::Segments::None ? detail::segmented_pair_bytes(spec.type) : spec.type.size();
  const int arch = has_rows(target.backend, target.arch) ? target.arch : default_arch(target.backend);
  for (const Row& r : kTable) {
    if (r.backend != target.backend || r.arch != arch || bytes > r.max_bytes) continue;
    if (r.packed_sums && !detail::packable_sum(spec)) continue;
    if (r.fused_outputs && !spec.has_scatter()) continue;
    if (r.plain_only && !plain_flat_scan(spec)) continue;
    if (r.segmented_only && spec.segments == dsl::Segments::None) continue;
    if (r.rows_only && spec.shape != dsl::Shape::Rows) continue;
    if (!row_serves(r, spec, target)) continue;
    DeviceTuning t;
    t.threads = r.threads;
    t.items = r.items > 0 ? r.items : items_for(bytes, static_cast<size_t>(r.bytes_per_thread));
    // Large elements: a block's tile (and the per-thread scratch that grows with its threads) kept to
    // kMaxTileBytes, so that an auto-sized tile fits a block's 48 KiB of shared memory: threads halved
    // down to a warp, then items. No row's own shape is past it for the element sizes it was tuned on.
    while (static_cast<size_t>(t.threads) * static_cast<size_t>(t.items) * bytes > kMaxTileBytes) {
      if (t.threads > 32)
        t.threads /= 2;
      else if (t.items > 1)
        t.items /= 2;
      else
        break;
    }
    t.first_poll_ns = r.first_poll_ns;
    t.streaming = r.streaming;
    t.min_blocks = r.min_blocks;
    t.tagged_words = r.tagged_words;
    // CUDA: the flat look-back's workspace zeroed by a kernel it overlaps, from kZeroKernelFromTiles tiles.
    t.pdl = r.backend == Backend::Cuda ? 1 : 0;
    t.arch = r.arch;
    t.device = r.device;
    t.why = r.why;
    return t;
  }
  return DeviceTuning{};
}

namespace {

// The knobs of a given tuning, in the order to_string writes them.
struct Knob {
  const char* name;
  int DeviceTuning::*field;
  int min, max, multiple;
  const char* range;  // for the error message
};
constexpr Knob kKnobs[] = {
    {"threads", &DeviceTuning::threads, 32, 1024, 32, "a multiple of 32 in 32..1024"},
    {"items", &DeviceTuning::items, 1, 128, 1, "in 1..128"},
    {"min_blocks", &DeviceTuning::min_blocks, 0, 32, 1, "in 0..32"},
    {"first_poll_ns", &DeviceTuning::first_poll_ns, 0, 1000000, 1, "in 0..1000000"},
    {"first_poll_from", &DeviceTuning::first_poll_from, 0, 1000000, 1, "in 0..1000000"},
    {"poll_ns", &DeviceTuning::poll_ns, 0, 1000000, 1, "in 0..1000000"},
    {"streaming", &DeviceTuning::streaming, 0, 1, 1, "0 or 1"},
    {"packed", &DeviceTuning::packed, 0, 1, 1, "0 or 1"},
    {"words", &DeviceTuning::words, 0, 1, 1, "0 or 1"},
    {"raking", &DeviceTuning::raking, 0, 1, 1, "0 or 1"},
    {"status_ops", &DeviceTuning::status_ops, 0, 2, 1, "0, 1 or 2"},
    {"tagged_words", &DeviceTuning::tagged_words, 0, 1, 1, "0 or 1"},
    {"pdl", &DeviceTuning::pdl, 0, 1, 1, "0 or 1"},
    {"raw_tile", &DeviceTuning::raw_tile, 0, 1, 1, "0 or 1"},
};

}  // namespace

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
    if (eq == std::string::npos) throw std::invalid_argument("tuning: '" + part + "' is not of the form knob=value");
    const std::string key = part.substr(0, eq), value = part.substr(eq + 1);
    char* stop = nullptr;
    const long v = std::strtol(value.c_str(), &stop, 10);
    if (value.empty() || *stop != '\0' || v < 0 || v > 1000000)
      throw std::invalid_argument("tuning: '" + part + "': the value must be an integer in 0..1000000");
    const int iv = static_cast<int>(v);
    const Knob* knob = nullptr;
    for (const Knob& k : kKnobs)
      if (key == k.name) knob = &k;
    if (!knob) {
      std::string names;
      for (const Knob& k : kKnobs) names += std::string(names.empty() ? "" : ", ") + k.name;
      throw std::invalid_argument("tuning: unknown knob '" + key + "' (" + names + ")");
    }
    if (iv < knob->min || iv > knob->max || iv % knob->multiple != 0)
      throw std::invalid_argument(std::string("tuning: ") + knob->name + " must be " + knob->range);
    t.*(knob->field) = iv;
  }
  t.why = "given";
  return t;
}

std::string to_string(const DeviceTuning& t) {
  std::string s;
  for (const Knob& k : kKnobs) s += std::string(s.empty() ? "" : " ") + k.name + "=" + std::to_string(t.*(k.field));
  return s;
}

}  // namespace scangen::generator
