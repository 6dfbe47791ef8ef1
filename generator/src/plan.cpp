#include "scangen/generator/plan.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

#include "scangen/generator/preamble.h"

namespace scangen::generator {

using dsl::Algorithm;
using dsl::Level;

const char* to_string(LaneExchange e) {
  switch (e) {
#define X(en, s, f, d) \
  case LaneExchange::en: return s;
    SCANGEN_LANE_EXCHANGES(X)
#undef X
  }
  return "?";
}

const char* template_file(LaneExchange e) {
  switch (e) {
#define X(en, s, f, d) \
  case LaneExchange::en: return f;
    SCANGEN_LANE_EXCHANGES(X)
#undef X
  }
  return "?";
}

const char* describe(LaneExchange e) {
  switch (e) {
#define X(en, s, f, d) \
  case LaneExchange::en: return d;
    SCANGEN_LANE_EXCHANGES(X)
#undef X
  }
  return "?";
}

namespace {

// The most static shared memory a CUDA block may declare, and a bound that
// common OpenCL GPUs (32 to 64 KiB of local memory) honour as well.
constexpr size_t kMaxSharedBytes = 48 * 1024;
// Register shuffles move an element of up to this many bytes; larger ones go
// through shared memory.
constexpr size_t kMaxShuffleBytes = 32;
// Bytes before the tile statuses in a decoupled look-back workspace: the ticket.
constexpr uint64_t kWorkspaceHeader = 16;

[[noreturn]] void fail(const dsl::Spec& spec, const std::string& why) {
  throw std::invalid_argument("scan '" + spec.name + "': " + why);
}

LaneExchange choose_exchange(const dsl::Spec& spec, Backend backend) {
  const size_t bytes = spec.type.size();
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

void define(Plan& p, const std::string& name, const std::string& value) { p.constants.emplace_back(name, value); }
void define(Plan& p, const std::string& name, long value) { define(p, name, std::to_string(value)); }

std::vector<std::string> public_functions(const dsl::Spec& spec, bool device) {
  const std::string& n = spec.name;
  std::vector<std::string> f = {n + "_inclusive", n + "_exclusive", n + "_inclusive_exclusive", n + "_reduce",
                                n + "_broadcast"};
  if (spec.running_total && !device) {
    f.push_back(n + "_inclusive_update");
    f.push_back(n + "_exclusive_update");
    f.push_back(n + "_inclusive_exclusive_update");
  }
  return f;
}

void add_device_kernels(Plan& p, const PreambleNames& names) {
  const dsl::Spec& s = p.spec;
  const std::string& n = s.name;
  const std::string T = names.value_type;
  using R = ParamRole;
  std::vector<KernelParam> outs;
  if (s.has_inclusive()) outs.push_back({R::Inclusive, T + "*", "inclusive", "n elements, the inclusive scan (may be in)"});
  if (s.has_exclusive()) outs.push_back({R::Exclusive, T + "*", "exclusive", "n elements, the exclusive scan (may be in)"});
  const KernelParam in{R::Input, "const " + names.input_type + "*", "in", "n input elements"};
  const KernelParam count{R::Count, "u64", "n", "the element count"};
  const KernelParam aggregate{R::Aggregate, T + "*", "aggregate", "one element: the total, without init"};
  const KernelParam running{R::RunningTotal, T + "*", "running_total", "one element: the carry, read and written back"};
  const std::string grid = "max(1, ceil(n / " + std::to_string(p.tile) + "))";
  if (s.algorithm == Algorithm::DecoupledLookback) {
    Kernel k{n + "_scan_kernel", grid + " blocks", Grid::Tiles, {in}};
    k.params.insert(k.params.end(), outs.begin(), outs.end());
    if (s.aggregate) k.params.push_back(aggregate);
    if (s.running_total) k.params.push_back(running);
    k.params.push_back(count);
    k.params.push_back({R::Workspace, "unsigned char*", "workspace",
                        std::to_string(kWorkspaceHeader) + " + tiles x " + std::to_string(p.status_bytes) +
                            " bytes; the first workspace_bytes(n) zeroed before each call"});
    p.kernels = {k};
  } else {
    const KernelParam partials{R::Partials, T + "*", "partials", "tiles elements (the workspace)"};
    Kernel reduce{n + "_reduce_kernel", grid + " blocks", Grid::Tiles, {in, partials, count}};
    Kernel spine{n + "_spine_kernel", "1 block", Grid::One, {partials}};
    if (s.aggregate) spine.params.push_back(aggregate);
    if (s.running_total) spine.params.push_back(running);
    spine.params.push_back(count);
    Kernel scan{n + "_scan_kernel", grid + " blocks", Grid::Tiles, {in}};
    scan.params.insert(scan.params.end(), outs.begin(), outs.end());
    scan.params.push_back({R::Partials, "const " + T + "*", "partials", "from the spine kernel"});
    scan.params.push_back(count);
    p.kernels = {reduce, spine, scan};
  }
  p.entry_params = p.kernels.back().params;
}

}  // namespace

uint64_t workspace_bytes(const Plan& plan, uint64_t n) {
  if (plan.spec.level != Level::Device) return 0;
  // Rounded up without n + tile - 1, which wraps for n near 2^64.
  const uint64_t tiles = std::max<uint64_t>(1, n / plan.tile + (n % plan.tile != 0 ? 1 : 0));
  const bool lookback = plan.spec.algorithm == Algorithm::DecoupledLookback;
  const uint64_t per_tile = lookback ? plan.status_bytes : plan.element_bytes;
  const uint64_t header = lookback ? kWorkspaceHeader : 0;
  if (tiles > (std::numeric_limits<uint64_t>::max() - header) / per_tile)
    throw std::overflow_error("scan '" + plan.spec.name + "': the workspace of " + std::to_string(n) +
                              " elements does not fit in 64 bits");
  return header + tiles * per_tile;
}

uint64_t launch_blocks(const Plan& plan, const Kernel& kernel, uint64_t n) {
  // Rounded up without n + d - 1, which wraps for n near 2^64.
  const auto blocks_for = [](uint64_t count, uint64_t per) { return count / per + (count % per != 0 ? 1 : 0); };
  switch (kernel.blocks) {
    case Grid::Segments: return blocks_for(n, plan.segment * static_cast<uint64_t>(plan.groups_per_block));
    case Grid::Tiles: return std::max<uint64_t>(1, blocks_for(n, plan.tile));
    case Grid::One: return 1;
  }
  return 1;
}

const char* to_string(ParamRole r) {
  switch (r) {
    case ParamRole::Input: return "input";
    case ParamRole::Inclusive: return "inclusive";
    case ParamRole::Exclusive: return "exclusive";
    case ParamRole::Aggregate: return "aggregate";
    case ParamRole::Aggregates: return "aggregates";
    case ParamRole::RunningTotal: return "running_total";
    case ParamRole::Count: return "count";
    case ParamRole::Workspace: return "workspace";
    case ParamRole::Partials: return "partials";
  }
  return "?";
}

uint64_t workspace_zero_bytes(const Plan& plan, uint64_t n) {
  if (plan.spec.level != Level::Device || plan.spec.algorithm != Algorithm::DecoupledLookback || n <= plan.tile)
    return 0;
  return workspace_bytes(plan, n);
}

Plan make_plan(const dsl::Spec& spec, Backend backend) {
  return make_plan(spec, backend, device_tuning(spec, backend));
}

Plan make_plan(const dsl::Spec& spec, Backend backend, const DeviceTuning& tuning) {
  bool listed = false;
  for (dsl::Target t : spec.targets) listed = listed || backend_for(t) == backend;
  if (!listed) fail(spec, std::string("the scan does not list target '") + to_string(backend) + "'");
  if (spec.algorithm == Algorithm::Coalesced && backend != Backend::Cuda)
    fail(spec, "algorithm 'coalesced' exists only on CUDA");
  const bool device = spec.level == Level::Device;
  if (!device && (spec.threads < 1 || spec.items < 1))
    fail(spec, "threads and items must be set for warp and block scans");

  Plan p;
  p.spec = spec;
  p.backend = backend;
  p.element_bytes = spec.type.size();
  p.tuning = tuning;
  if (device) {
    if (spec.threads > 0) p.tuning.threads = spec.threads;
    if (spec.items > 0) p.tuning.items = spec.items;
  }
  p.items = spec.items > 0 ? spec.items : p.tuning.items;
  p.input_bytes = spec.input.size();
  const std::string& n = spec.name;
  const PreambleNames names = preamble_names(spec);
  p.seeded = spec.init && !(spec.identity && dsl::to_string(*spec.init) == dsl::to_string(*spec.identity));

  define(p, "SG_T", names.value_type);
  define(p, "SG_IN", names.input_type);
  define(p, "SG_COMBINE", names.combine);
  define(p, "SG_IDENTITY", names.identity);
  define(p, "SG_INIT", names.init);
  define(p, "SG_CONVERT", names.convert);
  define(p, "SG_ITEMS", p.items);

  // Scratch elements per group, besides the lane scratch.
  size_t temp_elements = 0;
  bool uses_lanes = true;
  if (spec.level == Level::Warp) {
    p.group_threads = spec.warp_width;
    p.block_threads = spec.threads;
    p.groups_per_block = spec.threads / spec.warp_width;
    p.exchange = choose_exchange(spec, backend);
    p.lane_scratch = through_memory(p.exchange) ? spec.warp_width : 1;
    temp_elements = static_cast<size_t>(p.lane_scratch);
    define(p, "SG_WIDTH", spec.warp_width);
    p.templates = {template_file(p.exchange), "common/warp.h"};
  } else {
    const int t = spec.threads > 0 ? spec.threads : p.tuning.threads;
    p.group_threads = t;
    p.block_threads = t;
    p.groups_per_block = 1;
    p.exchange = choose_exchange(spec, backend);
    define(p, "SG_THREADS", t);
    // A device scan scans each tile with a block algorithm: warp_scans on CUDA
    // (shuffles, fewest barriers), raking on OpenCL (fewest local-memory steps).
    p.tile_algorithm = !device ? spec.algorithm : backend == Backend::Cuda ? Algorithm::WarpScans : Algorithm::Raking;
    switch (p.tile_algorithm) {
      case Algorithm::Raking:
      case Algorithm::RakingMemoize: {
        // As few raking threads as fill one warp's worth of segments.
        p.rake_segment = (t + 31) / 32;
        p.rake_threads = (t + p.rake_segment - 1) / p.rake_segment;
        p.rake_padding = p.rake_segment > 1 ? 1 : 0;
        p.lane_scratch = through_memory(p.exchange) ? p.rake_threads : 1;
        temp_elements = static_cast<size_t>(p.rake_threads) * (p.rake_segment + p.rake_padding) +
                        static_cast<size_t>(p.lane_scratch) + 1;
        define(p, "SG_RAKE", p.rake_threads);
        define(p, "SG_SEG", p.rake_segment);
        define(p, "SG_PAD", p.rake_padding);
        define(p, "SG_MEMOIZE", p.tile_algorithm == Algorithm::RakingMemoize ? 1 : 0);
        p.templates = {template_file(p.exchange), "common/block_raking.h"};
        break;
      }
      case Algorithm::WarpScans:
        if (t % 32 != 0) fail(spec, "algorithm 'warp_scans' needs a multiple of 32 threads");
        p.lane_scratch = through_memory(p.exchange) ? 32 : 1;
        temp_elements = static_cast<size_t>(t / 32) * static_cast<size_t>(p.lane_scratch + 1) + 1;
        p.templates = {template_file(p.exchange), "common/block_warp_scans.h"};
        break;
      case Algorithm::HillisSteele:
        uses_lanes = false;
        temp_elements = 2 * static_cast<size_t>(t) + 1;
        p.templates = {"common/block_hillis_steele.h"};
        break;
      case Algorithm::Blelloch:
        if ((t & (t - 1)) != 0) fail(spec, "algorithm 'blelloch' needs a power-of-two thread count");
        uses_lanes = false;
        p.blelloch_pad_shift = 5;  // 32 banks
        temp_elements = static_cast<size_t>(t) + static_cast<size_t>(t >> p.blelloch_pad_shift) + 1;
        define(p, "SG_PAD_SHIFT", p.blelloch_pad_shift);
        p.templates = {"common/block_blelloch.h"};
        break;
      default: fail(spec, std::string("algorithm '") + dsl::to_string(spec.algorithm) + "' is not a block algorithm");
    }
  }
  if (uses_lanes) {
    if (p.exchange == LaneExchange::Shuffle || p.exchange == LaneExchange::ActiveLanes) {
      p.shuffle_words = static_cast<int>((p.element_bytes + 3) / 4);
      define(p, "SG_SHFL_WORDS", p.shuffle_words);
    }
    define(p, "SG_LANE_SCRATCH", p.lane_scratch);
  }
  p.segment = device ? 0 : static_cast<uint64_t>(p.group_threads) * static_cast<uint64_t>(p.items);
  p.tile = static_cast<uint64_t>(p.block_threads) * static_cast<uint64_t>(p.items);
  // Every member of P_temp is an array of P_T, whose size is a multiple of
  // its alignment: no padding between them.
  p.temp_bytes = temp_elements * p.element_bytes;
  p.block_shared_bytes = p.temp_bytes * static_cast<size_t>(p.groups_per_block);
  if (device) {
    p.status_words = static_cast<int>((p.element_bytes + 3) / 4);
    if (spec.algorithm == Algorithm::DecoupledLookback) {
      if (backend == Backend::Cuda) {
        p.status_kind = p.element_bytes <= 4 ? 1 : p.element_bytes <= 8 ? 2 : 3;
        p.status_bytes = p.status_kind == 1 ? 8 : p.status_kind == 2 ? 16 : 4 * static_cast<size_t>(1 + 2 * p.status_words);
        p.block_shared_bytes += 8 + p.element_bytes;  // the tile id and its prefix
        define(p, "SG_LB_FIRST_POLL_NS", p.tuning.first_poll_ns);
        define(p, "SG_LB_FIRST_POLL_FROM", p.tuning.first_poll_from);
        define(p, "SG_LB_POLL_NS", p.tuning.poll_ns);
      } else {
        p.status_kind = 4;
        p.status_bytes = 8 * static_cast<size_t>(2 * p.status_words);
        p.spin = 4096;
        p.block_shared_bytes += 8 + p.element_bytes;
        define(p, "SG_SPIN", p.spin);
      }
      define(p, "SG_MIN_BLOCKS", backend == Backend::Cuda ? p.tuning.min_blocks : 0);
      define(p, "SG_STATUS_KIND", p.status_kind);
      define(p, "SG_STATUS_WORDS", p.status_words);
    }
    define(p, "SG_TILE", static_cast<long>(p.tile));
  }
  // Coalesced loads and stores through shared memory, where the exchange fits.
  const size_t exchange_bytes = (p.tile + p.tile / 32 + static_cast<uint64_t>(p.groups_per_block)) * p.element_bytes;
  p.staged_io = p.block_shared_bytes + exchange_bytes <= kMaxSharedBytes;
  if (p.staged_io) p.block_shared_bytes += exchange_bytes;
  define(p, "SG_STAGED_IO", p.staged_io ? 1 : 0);

  // 16-byte accesses (CUDA), where a thread's items fill whole 16-byte words:
  // the words per thread, or 0. The inputs' words must fit the exchange too.
  uint64_t exchange_elements = p.tile + p.tile / 32 + static_cast<uint64_t>(p.groups_per_block);
  auto words = [&](size_t bytes) -> int {
    if (backend != Backend::Cuda || !p.staged_io || bytes == 0) return 0;
    const size_t chunk = static_cast<size_t>(p.items) * bytes;
    return chunk % 16 == 0 ? static_cast<int>(chunk / 16) : 0;
  };
  p.vector_in = words(p.input_bytes);
  p.vector_out = words(p.element_bytes);
  if (p.vector_in) {
    const uint64_t need = (p.tile * p.input_bytes + p.element_bytes - 1) / p.element_bytes;
    if (need > exchange_elements) {
      const size_t extra = static_cast<size_t>(need - exchange_elements) * p.element_bytes;
      if (p.block_shared_bytes + extra <= kMaxSharedBytes) {
        p.block_shared_bytes += extra;
        exchange_elements = need;
      } else {
        p.vector_in = 0;
      }
    }
  }
  define(p, "SG_VEC_IN", p.vector_in);
  define(p, "SG_VEC_OUT", p.vector_out);
  define(p, "SG_STREAMING", device && backend == Backend::Cuda ? p.tuning.streaming : 0);
  define(p, "SG_EXCHANGE", p.staged_io ? static_cast<long>(exchange_elements) : 1L);
  if (p.block_shared_bytes > kMaxSharedBytes)
    fail(spec, "the " + std::string(dsl::to_string(spec.algorithm)) + " scan needs " +
                   std::to_string(p.block_shared_bytes) + " bytes of shared memory per block, more than the " +
                   std::to_string(kMaxSharedBytes) + " a block may declare; use fewer threads or another algorithm");

  define(p, "SG_GROUP_THREADS", p.group_threads);
  define(p, "SG_GROUPS", p.groups_per_block);
  define(p, "SG_BLOCK_THREADS", p.block_threads);
  define(p, "SG_SEEDED", p.seeded ? 1 : 0);
  define(p, "SG_INCLUSIVE_OUT", spec.has_inclusive() ? 1 : 0);
  define(p, "SG_EXCLUSIVE_OUT", spec.has_exclusive() ? 1 : 0);
  define(p, "SG_AGGREGATE_OUT", spec.aggregate ? 1 : 0);
  define(p, "SG_RUNNING_TOTAL", spec.running_total ? 1 : 0);
  define(p, "SG_GROUP_UPDATE", spec.running_total && !device ? 1 : 0);
  p.templates.push_back("common/api.h");
  p.templates.push_back("common/io.h");
  if (!device) {
    p.templates.push_back("common/entry.h");
  } else {
    p.templates.push_back("common/device.h");
    if (spec.algorithm == Algorithm::DecoupledLookback) {
      p.templates.push_back(backend == Backend::Cuda ? "cuda/lookback.cuh" : "opencl/lookback.cl");
      p.templates.push_back("common/device_lookback.h");
    } else {
      p.templates.push_back("common/device_reduce_then_scan.h");
    }
  }

  p.device_functions = public_functions(spec, device);
  p.entry_kernel = n + "_scan_kernel";
  if (device) {
    add_device_kernels(p, names);
    return p;
  }
  using R = ParamRole;
  p.entry_params.push_back({R::Input, "const " + names.input_type + "*", "in", "n input elements"});
  if (spec.mode == dsl::Mode::Both) {
    p.entry_params.push_back({R::Inclusive, names.value_type + "*", "inclusive", "n elements, the inclusive scan"});
    p.entry_params.push_back({R::Exclusive, names.value_type + "*", "exclusive", "n elements, the exclusive scan"});
  } else {
    const bool inclusive = spec.mode == dsl::Mode::Inclusive;
    p.entry_params.push_back({inclusive ? R::Inclusive : R::Exclusive, names.value_type + "*",
                              inclusive ? "inclusive" : "exclusive",
                              std::string("n elements, the ") + dsl::to_string(spec.mode) + " scan (may be in)"});
  }
  if (spec.aggregate)
    p.entry_params.push_back({R::Aggregates, names.value_type + "*", "aggregates", "one element per segment, its total"});
  if (spec.running_total)
    p.entry_params.push_back(
        {R::RunningTotal, names.value_type + "*", "running_total", "one element, the counter, updated"});
  p.entry_params.push_back({R::Count, "u64", "n", "the element count"});
  p.kernels = {{p.entry_kernel,
                "ceil(n / " + std::to_string(p.segment * static_cast<uint64_t>(p.groups_per_block)) + ") blocks",
                Grid::Segments, p.entry_params}};
  return p;
}

std::string to_string(const Plan& p) {
  const dsl::Spec& s = p.spec;
  std::string o = "plan of scan '" + s.name + "' for " + to_string(p.backend) + ":\n";
  auto line = [&](const std::string& k, const std::string& v) { o += "  " + k + ": " + v + "\n"; };
  line("level", std::string(dsl::to_string(s.level)) + ", algorithm " + dsl::to_string(s.algorithm));
  line("element", std::to_string(p.element_bytes) + " bytes" +
                      (p.input_bytes != p.element_bytes || s.convert
                           ? " (input " + std::to_string(p.input_bytes) + " bytes, converted on load)"
                           : ""));
  if (s.level == Level::Device) {
    line("tile", std::to_string(p.block_threads) + " threads x " + std::to_string(p.items) + " items = " +
                     std::to_string(p.tile) + " elements per block, scanned by " +
                     dsl::to_string(p.tile_algorithm));
    if (s.algorithm == Algorithm::DecoupledLookback) {
      const char* kinds[] = {"", "one 64-bit word (value and tag)", "one 16-byte word (value and tag)",
                             "a 32-bit tag, then the aggregate and the inclusive prefix apart (release / acquire)",
                             "the aggregate and the inclusive prefix apart, each 32-bit word with its own tag in a "
                             "64-bit atomic"};
      line("tile status", std::string(kinds[p.status_kind]) + ", " + std::to_string(p.status_bytes) +
                              " bytes per tile, zeroed by the host before each call");
      line("look-back", p.backend == Backend::Cuda
                            ? std::string("the first warp, 32 predecessors at a time; tile ids from ") +
                                  "an atomic ticket; sleeps " +
                                  std::to_string(p.tuning.first_poll_ns) + " ns before its first read (from tile " +
                                  std::to_string(p.tuning.first_poll_from) + " on), " +
                                  std::to_string(p.tuning.poll_ns) + " ns between reads"
                            : "work-item 0, one predecessor at a time; after " + std::to_string(p.spin) +
                                  " reads of a missing status it reduces that tile itself from the input");
      if (p.backend == Backend::Cuda && p.tuning.min_blocks > 0)
        line("occupancy", "at least " + std::to_string(p.tuning.min_blocks) + " blocks per SM (__launch_bounds__)");

    } else {
      line("passes", "reduce tiles, scan the tile totals in one block, scan tiles from their prefixes: "
                     "3 launches, deterministic");
    }
  } else {
    line("group", std::to_string(p.group_threads) + " threads x " + std::to_string(p.items) +
                      " items = segments of " + std::to_string(p.segment) + " elements, blocked arrangement");
  }
  std::string io = p.staged_io ? "coalesced, transposed through shared memory" :
                                 "direct, blocked (the shared-memory exchange does not fit)";
  if (p.vector_in || p.vector_out)
    io += "; 16-byte words: " + std::to_string(p.vector_in) + " of inputs / " + std::to_string(p.vector_out) +
          " of outputs per thread (full, aligned blocks)";
  line("loads and stores", io);
  bool lanes = !p.templates.empty() && p.templates.front().rfind("common/", 0) != 0;
  if (lanes) {
    std::string ex = std::string(to_string(p.exchange)) + " (" + describe(p.exchange) + ")";
    if (p.shuffle_words) ex += ", " + std::to_string(p.shuffle_words) + " word(s) per element";
    line("lane exchange", ex);
  }
  if (p.rake_threads)
    line("raking", std::to_string(p.rake_threads) + " raking threads x " + std::to_string(p.rake_segment) +
                       " partials, " + std::to_string(p.rake_padding) + " padding slot(s) per segment" +
                       (p.tile_algorithm == Algorithm::RakingMemoize ? ", segments kept in registers" : ""));
  if (p.blelloch_pad_shift)
    line("tree", "one padding slot every " + std::to_string(1 << p.blelloch_pad_shift) + " nodes");
  line("seed", p.seeded ? "init, combined before each group's prefix" : "none (init is the identity)");
  line("scratch", std::to_string(p.temp_bytes) + " bytes per group (" + s.name + "_temp), " +
                      std::to_string(p.block_shared_bytes) + " bytes of shared memory per block of the kernels");
  for (const Kernel& k : p.kernels) {
    line("kernel", k.name + ", " + std::to_string(p.block_threads) + " threads per block" +
                       (p.groups_per_block > 1 ? " (" + std::to_string(p.groups_per_block) + " groups)" : "") + ", " +
                       k.grid);
    for (const KernelParam& a : k.params) line("  param " + a.name, a.type + ": " + a.meaning);
  }
  std::string fns;
  for (const std::string& f : p.device_functions) fns += (fns.empty() ? "" : ", ") + f;
  line("device functions", fns);
  std::string t;
  for (const std::string& f : p.templates) t += (t.empty() ? "" : ", ") + f;
  line("templates", t);
  return o;
}

}  // namespace scangen::generator
