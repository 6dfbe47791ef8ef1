#include "scangen/generator/plan.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "plan_steps.h"
#include "scangen/generator/preamble.h"

namespace scangen::generator {

using dsl::Algorithm;
using dsl::Level;

const char* to_string(LaneExchange e) {
  switch (e) {
#define X(en, s, f, d)   \
  case LaneExchange::en: \
    return s;
    SCANGEN_LANE_EXCHANGES(X)
#undef X
  }
  return "?";
}

const char* template_file(LaneExchange e) {
  switch (e) {
#define X(en, s, f, d)   \
  case LaneExchange::en: \
    return f;
    SCANGEN_LANE_EXCHANGES(X)
#undef X
  }
  return "?";
}

const char* describe(LaneExchange e) {
  switch (e) {
#define X(en, s, f, d)   \
  case LaneExchange::en: \
    return d;
    SCANGEN_LANE_EXCHANGES(X)
#undef X
  }
  return "?";
}

namespace detail {

void fail(const dsl::Spec& spec, const std::string& why) {
  throw std::invalid_argument("scan '" + spec.name + "': " + why);
}

bool packable_sum(const dsl::Spec& s) {
  if (s.level != Level::Device || s.algorithm != Algorithm::DecoupledLookback) return false;
  if (s.segments != dsl::Segments::None || s.shape != dsl::Shape::Flat || s.reverse || s.has_scatter()) return false;
  if (!s.op || *s.op != dsl::BuiltinOp::Add || s.input != s.type || s.convert) return false;
  if (s.type.is_scalar() && s.type.scalar_kind() == dsl::ScalarKind::F16) return true;
  return s.type.is_integer() && (s.type.size() == 1 || s.type.size() == 2);
}

}  // namespace detail

using namespace detail;

namespace {

// Register shuffles move an element of up to this many bytes; larger ones go
// through shared memory.
constexpr size_t kMaxShuffleBytes = 32;

// Whether the spec can be generated for the target at all.
void check_target(const dsl::Spec& spec, const Target& target) {
  bool listed = false;
  for (dsl::Target t : spec.targets) listed = listed || backend_for(t) == target.backend;
  if (!listed) fail(spec, std::string("the scan does not list target '") + to_string(target.backend) + "'");
  if (spec.algorithm == Algorithm::Coalesced && target.backend != Backend::Cuda)
    fail(spec, "algorithm 'coalesced' exists only on CUDA");
  if (spec.level != Level::Device && (spec.threads < 1 || spec.items < 1))
    fail(spec, "threads and items must be set for warp and block scans");
  // The checker refuses it in a spec's text; a shape given after the check (the Python package's
  // variants for N-d arrays) meets it here. The rows and column kernels read no neighbours.
  if (spec.convert && spec.convert->neighbours >= 0 && spec.shape != dsl::Shape::Flat)
    fail(spec, std::string("convert reads prev(...) / next(...), the elements beside each one, which scans of ") +
                   "rows or columns (shape = " + dsl::to_string(spec.shape) +
                   "; an N-d array's lines in Python) do not support yet: scan each line as a flat 1-D array");
}

// Warp and block scans with a running total: the counter's atomic (the
// checker refuses other operators; this is its backstop).
std::optional<CounterUpdate> decide_counter(const dsl::Spec& s) {
  if (!s.running_total || s.level == Level::Device) return std::nullopt;
  if (s.op && *s.op != dsl::BuiltinOp::Mul && s.type.is_integer() && dsl::scalar_size(s.type.scalar_kind()) >= 4)
    return CounterUpdate{s.type.scalar_kind(), *s.op, 0};
  if (s.type.size() != 4 && s.type.size() != 8)
    fail(s,
         "outputs = running_total at warp and block level updates the counter atomically: a built-in operator "
         "other than mul on a 32- or 64-bit integer, or any operator on an element of 4 or 8 bytes");
  return CounterUpdate{dsl::ScalarKind::U32, dsl::BuiltinOp::Add, s.type.size()};  // a compare-and-swap loop
}

// What the scan is: its kind, sizes, names, seed and outputs.
// scattered first, then the named outputs, under the preamble's names.
std::vector<Plan::FusedOutput> fused_outputs(const dsl::Spec& spec) {
  std::vector<Plan::FusedOutput> v;
  const std::vector<FusedOutputNames> names = fused_output_names(spec);
  for (size_t i = 0; i < names.size(); ++i)
    v.push_back({names[i].name, names[i].out_type, names[i].value, names[i].at, names[i].when,
                 i == 0 ? spec.scatter_type : spec.scatter_named[i - 1].type});
  return v;
}

void decide_scan(Plan& p, const dsl::Spec& spec, const Target& target) {
  p.spec = spec;
  p.backend = target.backend;
  p.arch = target.backend == Backend::Cuda ? target.arch : 0;
  p.level = spec.level;
  p.algorithm = spec.algorithm;
  p.names = preamble_names(spec);
  p.element_bytes = spec.type.size();
  p.input_bytes = spec.input.size();
  p.converts_input = p.input_bytes != p.element_bytes || spec.convert.has_value();
  // Seeded when init's value differs from the identity's (dsl::Expr's
  // equality compares the constants' literal bits: -0.0 is not 0.0).
  p.seeded = spec.init && !(spec.identity && *spec.init == *spec.identity);
  p.seed_exclusive_only = p.seeded && spec.init_exclusive_only;
  p.outputs = {spec.has_inclusive(), spec.has_exclusive(), spec.aggregate, spec.running_total};
  p.counter = decide_counter(spec);
  p.output_may_alias_input = spec.mode != dsl::Mode::Both && spec.input == spec.type;
  p.reverse = spec.reverse;
  p.fixed_order = p.level == Level::Device && p.algorithm == Algorithm::DecoupledLookback && spec.deterministic &&
                  spec.combines_floats();
  p.counter_by_last_group = p.backend == Backend::OpenCL && p.outputs.running_total && !p.fixed_order;
  p.convert_index = spec.convert && spec.convert->params.size() > 1;
  if (p.convert_index && p.level != Level::Device)
    fail(spec, "convert's index is given to device scans only");  // the checker's backstop
  p.input_arrays = spec.has_input_arrays();
  if (p.input_arrays) {
    if (p.level != Level::Device || p.algorithm != Algorithm::DecoupledLookback ||
        spec.segments != dsl::Segments::None || spec.shape != dsl::Shape::Flat || spec.reverse || spec.has_scatter() ||
        (spec.convert && spec.convert->neighbours >= 0))
      fail(spec, "input arrays are read by flat, forward decoupled look-back device scans only");  // the backstop
    for (size_t k = 0; k < spec.input_arrays->size(); ++k)
      p.arrays.push_back({"in_" + spec.convert->params[k], p.names.input_arrays[k], (*spec.input_arrays)[k].size()});
    p.converts_input = true;
    p.output_may_alias_input = false;
    p.convert_index = false;  // the loads of io_inputs.h pass the index themselves
  }
  // prev(v) / next(v): the loads pass the index; the preamble's convert_near reads the neighbours.
  p.convert_neighbours = spec.convert && spec.convert->neighbours >= 0;
  p.scatter = spec.has_scatter();
  p.fused_outputs = fused_outputs(spec);
  auto reads = [](const std::optional<dsl::Function>& f) { return f && f->neighbours >= 0; };
  p.reads_neighbours = p.convert_neighbours || reads(spec.scatter) || reads(spec.scatter_at) || reads(spec.scatter_if);
  for (const dsl::Spec::NamedScatter& o : spec.scatter_named)
    p.reads_neighbours = p.reads_neighbours || o.value.neighbours >= 0 || o.at.neighbours >= 0 || reads(o.when);
  if (p.reads_neighbours) p.output_may_alias_input = false;
  if (p.scatter && p.level == Level::Device &&
      (p.algorithm != Algorithm::DecoupledLookback || spec.segments != dsl::Segments::None ||
       spec.shape != dsl::Shape::Flat || spec.reverse || spec.running_total))
    fail(spec, "fused outputs (scatter) are flat, forward decoupled look-back device scans only");  // the backstop
  if (p.scatter && p.level != Level::Device &&
      (spec.segments != dsl::Segments::None || spec.reverse || p.reads_neighbours))
    fail(spec, "fused outputs of warp and block scans are forward and unsegmented, without neighbours");
  decide_segmented(p);
}

LaneExchange choose_exchange(const dsl::Spec& spec, Backend backend, size_t bytes) {
  if (backend == Backend::OpenCL) return LaneExchange::LocalMemory;
  if (spec.algorithm == Algorithm::Coalesced) {
    if (bytes > kMaxShuffleBytes)
      fail(spec, "algorithm 'coalesced' shuffles its elements, which must be at most " +
                     std::to_string(kMaxShuffleBytes) + " bytes; this one has " + std::to_string(bytes));
    return LaneExchange::ActiveLanes;
  }
  if (spec.algorithm == Algorithm::KoggeStoneLocal) return LaneExchange::SharedMemory;
  return bytes <= kMaxShuffleBytes ? LaneExchange::Shuffle : LaneExchange::SharedMemory;
}

bool through_memory(LaneExchange e) { return e == LaneExchange::SharedMemory || e == LaneExchange::LocalMemory; }

// The group (a logical warp or a block), its items, the block algorithm
// and the lane exchange; device level, the tuning's tile shape.
void decide_group_shape(Plan& p, const dsl::Spec& spec, const DeviceTuning& tuning) {
  const bool device = spec.level == Level::Device;
  p.tuning = tuning;
  if (device) {
    if (spec.threads > 0) p.tuning.threads = spec.threads;
    if (spec.items > 0) p.tuning.items = spec.items;
    // A row's resident-block bound is for its own tile shape.
    if (spec.threads > 0 || spec.items > 0) p.tuning.min_blocks = 0;
  }
  p.items = spec.items > 0 ? spec.items : p.tuning.items;
  p.exchange = choose_exchange(spec, p.backend, scanned_bytes(p));
  if (spec.level == Level::Warp) {
    p.group_threads = spec.warp_width;
    p.block_threads = spec.threads;
    p.groups_per_block = spec.threads / spec.warp_width;
    // A logical warp of more than 32 lanes spans warps: its warps of 32 scan
    // with the level's lane exchange and meet in shared memory, as a block's
    // warp_scans do (cooperative groups' thread_block_tile<64 .. 1024>).
    if (spec.warp_width > 32) {
      if (spec.algorithm == Algorithm::Coalesced)
        fail(spec, "algorithm 'coalesced' scans the active lanes of one warp of 32, not a logical warp of " +
                       std::to_string(spec.warp_width));
      p.tile_algorithm = Algorithm::WarpScans;
    }
    return;
  }
  p.group_threads = p.block_threads = spec.threads > 0 ? spec.threads : p.tuning.threads;
  p.groups_per_block = 1;
  // A device scan scans each tile with a block algorithm: warp_scans on CUDA
  // (shuffles, fewest barriers), raking on OpenCL (fewest local-memory steps).
  // (The tuning's `raking` knob gives CUDA OpenCL's, to compare.)
  p.tile_algorithm = !device                                          ? spec.algorithm
                     : p.backend == Backend::Cuda && !p.tuning.raking ? Algorithm::WarpScans
                                                                      : Algorithm::Raking;
}

// The block (or warp) algorithm's constants; returns its scratch elements
// per group besides the lane scratch.
size_t decide_block_algorithm(Plan& p) {
  const int t = p.group_threads;
  p.uses_lanes = needs_lanes(group_template(p));
  if (p.level == Level::Warp && t <= 32) {
    p.lane_scratch = through_memory(p.exchange) ? t : 1;
    return static_cast<size_t>(p.lane_scratch);
  }
  switch (p.tile_algorithm) {
    case Algorithm::Raking:
    case Algorithm::RakingMemoize:
      // As few raking threads as fill one warp's worth of segments.
      p.rake_segment = (t + 31) / 32;
      p.rake_threads = (t + p.rake_segment - 1) / p.rake_segment;
      p.rake_padding = p.rake_segment > 1 ? 1 : 0;
      p.lane_scratch = through_memory(p.exchange) ? p.rake_threads : 1;
      return static_cast<size_t>(p.rake_threads) * (p.rake_segment + p.rake_padding) +
             static_cast<size_t>(p.lane_scratch) + 1;
    case Algorithm::WarpScans:
      if (t % 32 != 0) fail(p.spec, "algorithm 'warp_scans' needs a multiple of 32 threads");
      p.lane_scratch = through_memory(p.exchange) ? 32 : 1;
      return static_cast<size_t>(t / 32) * static_cast<size_t>(p.lane_scratch + 1) + 1;
    case Algorithm::HillisSteele:
      return 2 * static_cast<size_t>(t) + 1;
    case Algorithm::Blelloch:
      if ((t & (t - 1)) != 0) fail(p.spec, "algorithm 'blelloch' needs a power-of-two thread count");
      p.blelloch_pad_shift = 5;  // 32 banks
      return static_cast<size_t>(t) + static_cast<size_t>(t >> p.blelloch_pad_shift) + 1;
    default:
      fail(p.spec, std::string("algorithm '") + dsl::to_string(p.algorithm) + "' is not a block algorithm");
  }
}

// The segment or tile, and the scratch the groups of a block declare.
void decide_tile(Plan& p, size_t temp_elements) {
  // OpenCL: the words of the shuffles that devices with warps of 32 use
  // instead of local memory (common/lanes_shfl.h, chosen when the program is
  // built; plan_templates.cpp).
  if (p.uses_lanes && (p.exchange == LaneExchange::Shuffle || p.exchange == LaneExchange::ActiveLanes ||
                       (p.exchange == LaneExchange::LocalMemory && scanned_bytes(p) <= kMaxShuffleBytes)))
    p.shuffle_words = static_cast<int>((scanned_bytes(p) + 3) / 4);
  p.segment = p.level == Level::Device ? 0 : static_cast<uint64_t>(p.group_threads) * static_cast<uint64_t>(p.items);
  p.tile = static_cast<uint64_t>(p.block_threads) * static_cast<uint64_t>(p.items);
  // Every member of P_temp is an array of P_T, whose size is a multiple of
  // its alignment: no padding between them.
  p.temp_bytes = temp_elements * scanned_bytes(p);
  p.block_shared_bytes = p.temp_bytes * static_cast<size_t>(p.groups_per_block);
}

// How a tile publishes its status (decoupled look-back).
// (CUDA, over 8 bytes: OpenCL's tagged words where the tuning asks, as its table does.)
StatusLayout status_layout(Backend backend, size_t element_bytes, const DeviceTuning& tuning) {
  if (backend != Backend::Cuda) return StatusLayout::TaggedWords;
  return element_bytes <= 4    ? StatusLayout::Word64
         : element_bytes <= 8  ? StatusLayout::Word128
         : tuning.tagged_words ? StatusLayout::TaggedWords
                               : StatusLayout::TagThenWords;
}

// Device level: the look-back's status layout, its pacing and the blocks per SM.
void decide_lookback(Plan& p) {
  if (p.level != Level::Device) return;
  const size_t bytes = scanned_bytes(p);
  p.status_words = static_cast<int>((bytes + 3) / 4);
  if (p.algorithm != Algorithm::DecoupledLookback) return;
  p.status = status_layout(p.backend, bytes, p.tuning);
  switch (p.status) {
    case StatusLayout::Word64:
      p.status_bytes = 8;
      break;
    case StatusLayout::Word128:
      p.status_bytes = 16;
      break;
    case StatusLayout::TagThenWords:
      p.status_bytes = 4 * static_cast<size_t>(1 + 2 * p.status_words);
      break;
    case StatusLayout::TaggedWords:
      p.status_bytes = 8 * static_cast<size_t>(2 * p.status_words);
      break;
    case StatusLayout::None:
      break;
  }
  if (p.backend == Backend::Cuda)
    p.min_blocks = p.tuning.min_blocks;
  else
    p.status_reads = kOpenCLStatusReads;
  p.block_shared_bytes += 8 + bytes;  // the tile id and its prefix
  // Offsets: the range of the tile's search (device_segmented.h).
  if (p.segmented.form == dsl::Segments::Offsets) p.block_shared_bytes += 32;
}

// Input arrays (io_inputs.h): each array through the exchange on its own, in
// 16-byte words where a thread's items fill them (CUDA), else element by
// element into the padded exchange; the exchange grows to hold the largest,
// as far as shared memory allows (an array it cannot hold is read by each
// thread directly, its own items).
void decide_array_io(Plan& p, size_t element, size_t limit) {
  if (!p.input_arrays) return;
  p.input_words = 0;  // no `in`
  for (Plan::InputArray& a : p.arrays) {
    a.staged = p.staged_io;
    if (!a.staged) continue;
    const size_t chunk = static_cast<size_t>(p.items) * a.bytes;
    a.words = p.backend == Backend::Cuda && chunk % 16 == 0 ? static_cast<int>(chunk / 16) : 0;
    const uint64_t slots = a.words ? p.tile : p.tile + p.tile / 32;
    const uint64_t need = (slots * a.bytes + element - 1) / element;
    if (need <= p.exchange_elements) continue;
    const size_t extra = static_cast<size_t>(need - p.exchange_elements) * element;
    if (p.block_shared_bytes + extra <= limit) {
      p.block_shared_bytes += extra;
      p.exchange_elements = need;
    } else {
      a.staged = false;
      a.words = 0;
    }
  }
  // Arrays all read in words lie side by side in the exchange where they fit
  // (the exchange grown for them where shared memory allows): one pair of
  // barriers per full tile, and every array's words in flight at once.
  bool words = !p.arrays.empty();
  uint64_t offset = 0;
  for (Plan::InputArray& a : p.arrays) {
    words = words && a.words > 0;
    a.offset = offset;
    offset += p.tile * a.bytes;  // whole words: tile * bytes is a multiple of 16
  }
  const uint64_t need = (offset + element - 1) / element;
  if (words && need > p.exchange_elements) {
    const size_t extra = static_cast<size_t>(need - p.exchange_elements) * element;
    if (p.block_shared_bytes + extra <= limit) {
      p.block_shared_bytes += extra;
      p.exchange_elements = need;
    }
  }
  p.arrays_together = words && need <= p.exchange_elements;
  if (!p.arrays_together)
    for (Plan::InputArray& a : p.arrays) a.offset = 0;
}

// A thread's items as packed 32-bit words (Plan::packed_lanes): where the sum
// of 1- or 2-byte integers wraps as 32-bit words' lanes do, so that any
// grouping of the additions gives the same bits as combine's own; and f16
// sums, whose f16x2 additions round each half as combine does, in a grouping
// of the packed scan's own (templates/cuda/packed.cuh).
void decide_packed(Plan& p) {
  p.packed_lanes = 0;
  if (p.backend != Backend::Cuda || p.status == StatusLayout::None || !p.tuning.packed || !packable_sum(p.spec)) return;
  if (!p.input_words || p.input_words != p.output_words) return;
  p.packed_lanes = static_cast<int>(4 / p.element_bytes);
}

// The fused outputs in the striped order (Plan::scatter_striped): the
// tile's exclusive results in the exchange, padded, and each thread's last
// inclusive one after them (device_lookback.h); the exchange grows for those
// where the block's shared memory allows.
void decide_scatter_writes(Plan& p, size_t element, size_t limit) {
  if (!p.scatter || !p.staged_io || p.level != Level::Device) return;
  const uint64_t need = p.tile + p.tile / 32 + static_cast<uint64_t>(p.block_threads);
  if (need > p.exchange_elements) {
    const size_t extra = static_cast<size_t>(need - p.exchange_elements) * element;
    if (p.block_shared_bytes + extra > limit) return;
    p.block_shared_bytes += extra;
    p.exchange_elements = need;
  }
  p.scatter_striped = true;
}

}  // namespace

uint64_t raw_tile_slots(const Plan& p) { return p.tile + 2 + (p.tile + 2) / 32; }

namespace {

// The tile's inputs kept in shared memory from the loads (Plan::raw_tile):
// one slot per element and one on either side (its neighbours), padded as
// the exchange is; in the block's static shared memory only.
void decide_raw_tile(Plan& p) {
  if (!p.tuning.raw_tile || !p.scatter_striped || p.input_arrays || p.packed_lanes != 0 || p.reverse ||
      p.segmented.on() || p.shape != dsl::Shape::Flat || p.algorithm != Algorithm::DecoupledLookback)
    return;
  const size_t bytes = static_cast<size_t>(raw_tile_slots(p)) * p.input_bytes;
  if (p.block_shared_bytes + bytes > kMaxSharedBytes) return;
  p.block_shared_bytes += bytes;
  p.raw_tile = true;
  p.input_words = 0;  // the loads go element by element, in the striped order
}

// Loads and stores: coalesced through shared memory where the exchange fits,
// in 16-byte words (CUDA) where a thread's items fill whole words. Not on
// OpenCL: the words' path holds barriers under a condition (full, aligned
// tiles), which PoCL's work-group compiler mishandles (an assertion in its
// parallel regions, wrong aggregates), and on NVIDIA's OpenCL it gained
// nothing (H200, i32 sum at 2^28: 0.570 of copy with words, 0.567 without).
void decide_io(Plan& p) {
  const uint64_t exchange = p.tile + p.tile / 32 + static_cast<uint64_t>(p.groups_per_block);
  const size_t element = scanned_bytes(p);
  const size_t exchange_bytes = exchange * element;
  // The flat and segmented look-back kernels of CUDA for a known architecture
  // may hold their exchange in dynamic shared memory, past the 48 KiB a block
  // may declare (without it a segmented tile past 48 KiB loaded element by
  // element and searched its offsets per thread: 4 - 6 times slower).
  const size_t static_bytes = p.block_shared_bytes;
  const bool dynamic = p.backend == Backend::Cuda && p.level == Level::Device && p.status != StatusLayout::None &&
                       p.shape == dsl::Shape::Flat;
  const size_t limit = dynamic ? max_block_shared_bytes(p.arch) : kMaxSharedBytes;
  p.staged_io = p.block_shared_bytes + exchange_bytes <= limit;
  if (p.staged_io) p.block_shared_bytes += exchange_bytes;
  p.exchange_elements = exchange;
  auto words = [&](size_t bytes) -> int {
    if (p.backend != Backend::Cuda || !p.staged_io || bytes == 0 || !p.tuning.words) return 0;
    const size_t chunk = static_cast<size_t>(p.items) * bytes;
    return chunk % 16 == 0 ? static_cast<int>(chunk / 16) : 0;
  };
  p.input_words = words(p.input_bytes);
  p.output_words = p.segmented.on() ? 0 : words(p.element_bytes);  // segmented: values, not pairs, go out
  // A reverse shaped scan's rows kernel moves words too, each word's elements backwards (device_rows.h; the
  // axis kernel moves elements either way); a reverse segmented one reads its inputs in words through the
  // mirror (io_mirror.h), its marks and outputs element by element.
  // convert's prev / next: read where the striped loads convert (a warp's neighbours are consecutive, one
  // or two cache lines), not beside a thread's own words (32 lines a warp for each neighbour at 32 items).
  if (p.convert_neighbours) p.input_words = 0;
  // The inputs' words must fit the exchange too.
  const uint64_t need = (p.tile * p.input_bytes + element - 1) / element;
  if (p.input_words && need > exchange) {
    const size_t extra = static_cast<size_t>(need - exchange) * element;
    if (p.block_shared_bytes + extra <= limit) {
      p.block_shared_bytes += extra;
      p.exchange_elements = need;
    } else {
      p.input_words = 0;
    }
  }
  decide_array_io(p, element, limit);
  p.streaming = p.level == Level::Device && p.backend == Backend::Cuda && p.tuning.streaming != 0;
  decide_packed(p);
  // The fused outputs' second read of the tile's inputs, through the exchange where they fit (padded).
  p.scatter_staged = p.scatter && p.level == Level::Device && p.staged_io &&
                     (p.tile + p.tile / 32) * p.input_bytes <= p.exchange_elements * static_cast<uint64_t>(element);
  decide_scatter_writes(p, element, limit);
  decide_raw_tile(p);
  // Past the static limit, the exchange (and only it) goes to dynamic shared memory.
  if (p.staged_io && p.block_shared_bytes > kMaxSharedBytes && static_bytes <= kMaxSharedBytes) {
    p.dynamic_shared_bytes = p.block_shared_bytes - static_bytes;
    p.block_shared_bytes = static_bytes;
  }
  if (p.block_shared_bytes > kMaxSharedBytes)
    fail(p.spec, "the " + std::string(dsl::to_string(p.algorithm)) + " scan needs " +
                     std::to_string(p.block_shared_bytes) + " bytes of shared memory per block, more than the " +
                     std::to_string(kMaxSharedBytes) + " a block may declare; use fewer threads or another algorithm");
}

// head_flags = true: the pair scan of the head-flag functions, planned as the
// group's own scan of an element of the pair's size.
void decide_head_flags(Plan& p, const dsl::Spec& spec, const Target& target, const DeviceTuning& tuning) {
  if (!spec.head_flags) return;
  if (p.level == Level::Device || p.segmented.on())
    fail(spec, "head_flags is for warp- and block-level scans (device level: segments = flags)");
  Plan q;
  decide_scan(q, spec, target);
  q.element_bytes = segmented_pair_bytes(spec.type);
  if (spec.algorithm == Algorithm::Coalesced && q.element_bytes > kMaxShuffleBytes)
    fail(spec, "head_flags with algorithm 'coalesced' shuffles (heads, value) pairs of " +
                   std::to_string(q.element_bytes) + " bytes, more than " + std::to_string(kMaxShuffleBytes));
  decide_group_shape(q, spec, tuning);
  decide_tile(q, decide_block_algorithm(q));
  Plan::HeadFlags& h = p.head_flags;
  h.on = true;
  h.pair_bytes = q.element_bytes;
  h.exchange = q.exchange;
  h.shuffle_words = q.shuffle_words;
  h.lane_scratch = q.lane_scratch;
  h.temp_bytes = q.temp_bytes;
  h.templates = {"common/segmented_pair.h"};
  if (q.uses_lanes)
    for (const char* t : lane_templates(q)) h.templates.push_back(t);
  h.templates.push_back(group_template(q));
  h.templates.push_back("common/api_segmented.h");
}

}  // namespace

namespace {

// The look-back of a flat decoupled look-back scan as device functions for
// kernels of the user's own (templates/common/device_tile_prefix.h).
void decide_tile_prefix(Plan& p) {
  // (The device functions take the one input array's scan's look-back; a scan of input arrays has none.)
  p.tile_prefix = p.status != StatusLayout::None && !p.segmented.on() && p.shape == dsl::Shape::Flat && !p.input_arrays;
}

}  // namespace

size_t detail::max_block_shared_bytes(int arch) {
  if (arch >= 120) return 99 * 1024;
  if (arch >= 100) return 227 * 1024;
  switch (arch) {
    case 70:
    case 72:
      return 96 * 1024;
    case 75:
      return 64 * 1024;
    case 80:
    case 87:
      return 163 * 1024;
    case 86:
    case 89:
      return 99 * 1024;
    case 90:
      return 227 * 1024;
    default:
      return kMaxSharedBytes;
  }
}

Plan make_plan(const dsl::Spec& spec, Backend backend) { return make_plan(spec, Target{backend, 0}); }

Plan make_plan(const dsl::Spec& spec, const Target& target) {
  const DeviceTuning table = device_tuning(spec, target);
  return make_plan(spec, target, target.tuning.empty() ? table : parse_tuning(target.tuning, table));
}

Plan make_plan(const dsl::Spec& spec, Backend backend, const DeviceTuning& tuning) {
  return make_plan(spec, Target{backend, 0}, tuning);
}

Plan make_plan(const dsl::Spec& spec, const Target& target, const DeviceTuning& tuning) {
  check_target(spec, target);
  Plan p;
  decide_scan(p, spec, target);
  decide_group_shape(p, spec, tuning);
  const size_t temp_elements = decide_block_algorithm(p);
  decide_tile(p, temp_elements);
  decide_lookback(p);
  decide_shape(p);
  decide_tile_prefix(p);
  decide_io(p);
  detail::decide_segmented_heads(p);
  p.templates = plan_templates(p);
  decide_head_flags(p, spec, target, tuning);
  plan_kernels(p);
  shape_kernels(p);
  return p;
}

Plan fast_tier_plan(const Plan& plan) {
  // The plan's own decisions alone (the spec is not read again).
  const bool plain = plan.backend == Backend::Cuda && plan.level == Level::Device && plan.shape == dsl::Shape::Flat &&
                     plan.status != StatusLayout::None && !plan.segmented.on() && !plan.scatter && !plan.input_arrays &&
                     !plan.reads_neighbours && !plan.reverse && plan.packed_lanes == 0 &&
                     plan.algorithm == Algorithm::DecoupledLookback;
  if (!plain || !plan.staged_io) return plan;
  Plan f = plan;
  f.staged_io = false;
  f.input_words = 0;
  f.output_words = 0;
  f.streaming = false;
  return f;
}

}  // namespace scangen::generator
