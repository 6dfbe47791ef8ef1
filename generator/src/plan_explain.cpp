// The plan in words, one decision per line, from its fields: `scangen explain`.
#include <string>

#include "plan_steps.h"

namespace scangen::generator {

using dsl::Algorithm;
using dsl::Level;

const char* describe(StatusLayout s) {
  switch (s) {
    case StatusLayout::None:
      return "none";
    case StatusLayout::Word64:
      return "one 64-bit word (value and tag)";
    case StatusLayout::Word128:
      return "one 16-byte word (value and tag)";
    case StatusLayout::TagThenWords:
      return "a 32-bit tag, then the aggregate and the inclusive prefix apart (release / acquire)";
    case StatusLayout::TaggedWords:
      return "the aggregate and the inclusive prefix apart, each 32-bit word with its own tag in a 64-bit atomic";
  }
  return "?";
}

namespace {

void line(std::string& o, const std::string& k, const std::string& v) { o += "  " + k + ": " + v + "\n"; }

// How a CUDA tile status is published (cuda/lookback.cuh, SG_LB_STATUS_OPS:
// the tuning's status_ops).
std::string publication(const Plan& p) {
  if (p.backend != Backend::Cuda) return "";
  const int ops = p.tuning.status_ops;
  switch (p.status) {
    case StatusLayout::Word64:
      return ops == 0   ? "; published by atomic exchange"
             : ops == 1 ? "; published by relaxed stores"
                        : "; published by volatile stores";
    case StatusLayout::Word128:
      return ops == 0
                 ? "; published by a 128-bit atomic exchange (sm_90 and later; a 16-byte relaxed store on older GPUs)"
                 : "; published by a 16-byte relaxed store";
    case StatusLayout::TagThenWords:
      return ops == 0 ? "; the tag published by atomic exchange after a fence"
                      : "; the tag published by a volatile store after a fence";
    case StatusLayout::TaggedWords:
      return "; each slot published by atomic exchange";
    case StatusLayout::None:
      break;
  }
  return "";
}

std::string target_words(const Plan& p) {
  std::string t = to_string(Target{p.backend, p.arch});
  if (p.level == Level::Device && p.backend == Backend::Cuda)
    t += p.tuning.arch ? "; the tuning table's sm_" + std::to_string(p.tuning.arch) + " entry" +
                             (*p.tuning.device ? std::string(" for ") + p.tuning.device + " devices" : std::string())
                       : "; a given tuning";
  return t;
}

// Device level: the tile, the tile statuses and the look-back, or the passes.
void explain_device(std::string& o, const Plan& p) {
  line(o, "tile",
       std::to_string(p.block_threads) + " threads x " + std::to_string(p.items) + " items = " +
           std::to_string(p.tile) + " elements per block, scanned by " + dsl::to_string(p.tile_algorithm));
  if (p.status == StatusLayout::None) {
    line(o, "passes",
         "reduce tiles, scan the tile totals in one block, scan tiles from their prefixes: "
         "3 launches, deterministic");
    return;
  }
  line(o, "tile status",
       std::string(describe(p.status)) + ", " + std::to_string(p.status_bytes) +
           (p.epoch_tags ? " bytes per tile, tagged with the call's epoch (taken with the ticket): a Scan's own "
                           "workspace is zeroed once (and every 2^29 calls), a caller's before each call"
                         : " bytes per tile, zeroed by the host before each call") +
           publication(p));
  if (!p.zero_kernel.empty())
    line(
        o, "zeroing",
        std::string(p.epoch_tags ? "where it is zeroed for the call (a caller's workspace, the host wrappers): " : "") +
            "from " + std::to_string(kZeroKernelFromTiles) + " tiles on sm_90 and later by " + p.zero_kernel +
            ", which the scan kernel overlaps (a programmatic dependent launch: its blocks wait for that "
            "kernel's end before they read); else a memset");
  if (p.fixed_order) {
    line(o, "look-back",
         std::string("fixed order (deterministic = true with floats): each tile publishes once the combine of a "
                     "fixed range of tiles before it (a Fenwick tree's node) and folds at most log2(tiles) of "
                     "them in an order fixed by its index; ") +
             (p.backend == Backend::Cuda ? "the first warp reads them at once; tile ids from an atomic ticket"
                                         : "work-item 0 waits for each (no fallback); tile ids from an atomic "
                                           "ticket"));
  } else {
    line(o, "look-back",
         p.backend == Backend::Cuda
             ? "the first warp, 32 predecessors at a time; tile ids from an atomic ticket; sleeps " +
                   std::to_string(p.tuning.first_poll_ns) + " ns before its first read (from tile " +
                   std::to_string(p.tuning.first_poll_from) + " on), " + std::to_string(p.tuning.poll_ns) +
                   " ns between reads"
             : "work-item 0, one predecessor at a time; after " + std::to_string(p.status_reads) +
                   " reads of a missing status it reduces that tile itself from the input");
  }
  if (p.min_blocks > 0)
    line(o, "occupancy", "at least " + std::to_string(p.min_blocks) + " blocks per SM (__launch_bounds__)");
}

// Segmented scans: the form and the pair the tiles scan.
void explain_segments(std::string& o, const Plan& p) {
  const Plan::Segmented& g = p.segmented;
  std::string form;
  switch (g.form) {
    case dsl::Segments::Flags:
      form = "flags: a byte per element, nonzero starts a segment (element 0 always does)";
      break;
    case dsl::Segments::Offsets:
      form = "offsets: segment_count + 1 of " + g.offset_type + ", from 0 to n; " +
             (g.head_bits ? "first turned into a bit per element in the workspace by " + p.spec.name +
                                "_seg_heads_kernel (one launch before the scan), from which each thread reads "
                                "its starts"
              : p.staged_io ? "one search per tile by the block, then the tile's offsets read together and "
                              "scattered as head marks"
                            : "each thread finds its first item's segment by binary search, then walks");
      break;
    case dsl::Segments::Keys:
      form = "keys of " + g.key_type + ": a segment starts where the key differs from the one before";
      if (g.key_equal)
        form = "keys of " + g.key_type +
               ": a segment starts where key_equal(a, b) = " + dsl::to_string(*p.spec.key_equal->body) +
               " is false for the key before (" + p.spec.key_equal->params[0] + ") and its own (" +
               p.spec.key_equal->params[1] + ")";
      break;
    case dsl::Segments::None:
      break;
  }
  line(o, "segments", form);
  line(o, "segmented operator",
       "the tiles scan (count of starts, value) pairs of " + std::to_string(g.pair_bytes) +
           " bytes; a start resets the value, the count numbers the segments");
}

// The group's algorithm: loads and stores, lanes, raking, tree, seed, scratch.
void explain_group(std::string& o, const Plan& p) {
  std::string io = p.staged_io ? "coalesced, transposed through shared memory"
                               : "direct, blocked (the shared-memory exchange does not fit)";
  if (p.dynamic_shared_bytes)
    io += " (" + std::to_string(p.dynamic_shared_bytes) +
          " bytes of dynamic shared memory, which the scan kernel's launch gives: past the 48 KiB a block may "
          "declare)";
  const int output_words = p.segmented.on() ? detail::segmented_output_words(p) : p.output_words;
  if (p.input_words || output_words)
    io += "; 16-byte words: " + std::to_string(p.input_words) + " of inputs / " + std::to_string(output_words) +
          " of outputs per thread (full, aligned blocks)";
  if (p.packed_lanes)
    io += "; items packed " + std::to_string(p.packed_lanes) +
          " to a 32-bit word, reduced and scanned in their words (" +
          (p.spec.type.is_float() ? "f16x2 additions" : "wrapping sums") + ")";
  line(o, "loads and stores", io);
  if (p.uses_lanes) {
    std::string ex = std::string(to_string(p.exchange)) + " (" + describe(p.exchange) + ")";
    if (p.shuffle_words && p.exchange == LaneExchange::LocalMemory)
      ex += "; register shuffles instead where the device has warps of 32 (NVIDIA), " +
            std::to_string(p.shuffle_words) + " word(s) per element";
    else if (p.shuffle_words)
      ex += ", " + std::to_string(p.shuffle_words) + " word(s) per element";
    line(o, "lane exchange", ex);
  }
  if (p.rake_threads)
    line(o, "raking",
         std::to_string(p.rake_threads) + " raking threads x " + std::to_string(p.rake_segment) + " partials, " +
             std::to_string(p.rake_padding) + " padding slot(s) per segment" +
             (p.tile_algorithm == Algorithm::RakingMemoize ? ", segments kept in registers" : ""));
  if (p.blelloch_pad_shift)
    line(o, "tree", "one padding slot every " + std::to_string(1 << p.blelloch_pad_shift) + " nodes");
  line(o, "seed",
       !p.seeded               ? "none (init is the identity)"
       : p.seed_exclusive_only ? "init, combined before each exclusive result only (init_applies_to = exclusive)"
                               : "init, combined before each group's prefix");
  line(o, "scratch",
       std::to_string(p.temp_bytes) + " bytes per group (" + p.spec.name + "_temp), " +
           std::to_string(p.block_shared_bytes) + " bytes of shared memory per block of the kernels");
}

// shape = rows / strided: the run-time shape and how its kernels cover it.
void explain_shape(std::string& o, const Plan& p) {
  if (p.shape == dsl::Shape::Rows)
    line(o, "shape",
         "rows (run time: rows, length, row strides); the rows laid end to end in tiles of " + std::to_string(p.tile) +
             ", a head at each row's start: short rows share a tile (a segmented scan of (head, value) pairs), "
             "long rows span tiles (a tile holding a head publishes INCLUSIVE, so each row's look-back stops at "
             "its first tile)");
  if (p.shape == dsl::Shape::Strided)
    line(o, "shape",
         "strided (run time: rank 1..4, extents, strides, axis); a contiguous axis whose lines lie evenly: the "
         "rows kernel; otherwise the axis kernel: a tile of lanes lines (a power of two up to 32, threads across "
         "the lines) x " +
             std::to_string(p.block_threads) + " / lanes x " + std::to_string(p.items) +
             " positions along the axis, one look-back status per line of each tile");
  if (p.shape != dsl::Shape::Flat)
    line(o, "shape scratch", std::to_string(p.shape_shared_bytes) + " bytes (thread totals, head flags, carries)");
  if (p.shape_min_blocks > 0)
    line(o, "shape occupancy",
         "at least " + std::to_string(p.shape_min_blocks) + " blocks per SM for the shape kernels (__launch_bounds__)");
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Input arrays: the arrays, how each is loaded, what convert takes.
void explain_input_arrays(std::string& o, const Plan& p) {
  const std::vector<std::string>& params = p.spec.convert->params;
  std::string arrays;
  for (size_t k = 0; k < p.arrays.size(); ++k) {
    const Plan::InputArray& a = p.arrays[k];
    arrays += (k ? ", " : "") + a.name + " (" + (*p.spec.input_arrays)[k].name() + ", " +
              (a.words    ? std::to_string(a.words) + " 16-byte words per thread"
               : a.staged ? std::string("by element")
                          : std::string("each thread its own items, the exchange too small")) +
              ")";
  }
  std::string call = "convert(";
  for (size_t k = 0; k < params.size(); ++k) call += (k ? ", " : "") + params[k];
  call += ")";
  const bool index = p.spec.convert_takes_index();
  if (p.arrays.empty())
    line(o, "input",
         "no array: " + call + " makes each element " + (index ? "from its index (u64)" : "alone") +
             "; nothing is read (template common/io_inputs.h)");
  else
    line(o, "input",
         std::to_string(p.arrays.size()) + " arrays, each loaded as one array is" +
             (p.arrays_together ? ", side by side in the exchange (a full, aligned tile: one pair of barriers): "
                                : ", one after another through the exchange: ") +
             arrays + "; " + call + " builds each element from one of each" + (index ? " and its index (u64)" : "") +
             " (template common/io_inputs.h)");
}

// The fused outputs (scatter and the named ones) and the neighbours they read.
void explain_fused_outputs(std::string& o, const Plan& p) {
  if (p.scatter) {
    const dsl::Spec& s = p.spec;
    const bool group = p.level != dsl::Level::Device;
    line(o, "fused output",
         std::string(group ? "each thread's items in order, by " + s.name + "_scatter" +
                                 (p.counter ? " (" + s.name + "_scatter_update)" : std::string()) +
                                 " (template section 'group_scatter'; in the entry kernel, each element's own "
                                 "segment's results)"
                     : p.scatter_striped
                         ? std::string("the tile's elements in the striped order, their results from the "
                                       "exchange") +
                               (p.raw_tile ? ", the elements from the tile the loads kept in shared "
                                             "memory (raw_tile)"
                                           : "")
                         : "each thread's items in order") +
             (group ? ": " : " (template section 'scatter'): ") +
             (s.scatter_if ? "where scatter_if(...) holds" : std::string("for every element (no scatter_if)")) +
             ", scatter(...) is written to scattered[scatter_at(...)] (" + s.scatter_type.name() +
             "; a position >= n dropped), before the scan's results, which are not written when their arrays "
             "are null");
    for (size_t k = 1; k < p.fused_outputs.size(); ++k) {
      const dsl::Spec::NamedScatter& named = s.scatter_named[k - 1];
      const std::string& w = named.name;
      line(o, "fused output",
           (named.when ? "where scatter_if." + w + "(...) holds" : "for every element (no scatter_if." + w + ")") +
               ", scatter." + w + "(...) is written to " + w + "[scatter_at." + w + "(...)] (" + named.type.name() +
               "; a position >= n dropped)");
    }
  }
  if (p.reads_neighbours)
    line(o, "neighbours",
         "prev(x) / next(x) are read beside each element: no output may be the input (refused at run time)");
}

}  // namespace

std::string to_string(const Plan& p) {
  std::string o = "plan of scan '" + p.spec.name + "' for " + to_string(p.backend) + ":\n";
  line(o, "target", target_words(p));
  line(o, "level", std::string(dsl::to_string(p.level)) + ", algorithm " + dsl::to_string(p.algorithm));
  line(o, "element",
       std::to_string(p.element_bytes) + " bytes" +
           (p.input_arrays
                ? (p.arrays.empty() ? " (made by convert, no input array)" : " (from input arrays, converted on load)")
            : p.converts_input ? " (input " + std::to_string(p.input_bytes) + " bytes, converted on load)"
                               : ""));
  if (p.segmented.on()) explain_segments(o, p);
  if (p.level == Level::Device)
    explain_device(o, p);
  else
    line(o, "group",
         std::to_string(p.group_threads) + " threads x " + std::to_string(p.items) + " items = segments of " +
             std::to_string(p.segment) + " elements, blocked arrangement" +
             (p.level == Level::Warp && p.group_threads > 32
                  ? "; " + std::to_string(p.group_threads / 32) +
                        " warps of 32 per logical warp, their totals met in shared memory (block-wide barriers: "
                        "every thread of the block calls)"
                  : std::string()));
  explain_group(o, p);
  if (p.reverse && p.segmented.on())
    line(o, "order",
         "reverse: element n-1 first (scan-order position j is element n-1-j, io_mirror.h's exact mirror); a "
         "segment starts in scan order at the last element of each segment of the array (flags: where the "
         "element after it is flagged; keys: where the key after it differs; offsets: the reversed array's); the "
         "inputs in 16-byte words where a whole tile allows, the segments and outputs by element");
  else if (p.reverse && p.shape != dsl::Shape::Flat)
    line(o, "order",
         "reverse: every row or line from its last element (rows: column c is element length-1-c of its row; "
         "lines: a step of -stride along the axis); the rows kernel's full tiles in 16-byte words, each word's "
         "elements backwards, where the row's length and stride allow; the axis kernel's by element");
  else if (p.reverse)
    line(o, "order",
         "reverse: element n-1 first; tile t reads and writes the t-th block of the array from its end, last "
         "element first (common/io_mirror.h)");
  explain_shape(o, p);
  if (p.input_arrays) explain_input_arrays(o, p);
  if (p.convert_index && p.spec.convert->written_params() > 1)
    line(o, "input",
         "convert(v, " + p.spec.convert->params[1] + ") takes each element's " +
             (p.shape != dsl::Shape::Flat
                  ? std::string("place along its ") + (p.shape == dsl::Shape::Rows ? "row" : "line") +
                        " (u64, 0 at its first element)"
                  : std::string("index in the array (u64)")) +
             " from the loads (template section 'indexed')");
  if (p.convert_neighbours)
    line(o, "input",
         "prev(v) and next(v) in convert: in[i - 1] and in[i + 1] (the element itself at 0 and n - 1), read by " +
             p.names.convert + "_near(v, i) from the loads' in and n");
  explain_fused_outputs(o, p);
  for (const Kernel& k : p.kernels) {
    line(o, "kernel",
         k.name + ", " + std::to_string(p.block_threads) + " threads per block" +
             (p.groups_per_block > 1 ? " (" + std::to_string(p.groups_per_block) + " groups)" : "") + ", " + k.grid);
    for (const KernelParam& a : k.params) line(o, "  param " + a.name, a.type + ": " + a.meaning);
  }
  line(o, "device functions", joined(p.device_functions));
  line(o, "templates", joined(p.templates));
  if (p.head_flags.on) {
    const Plan::HeadFlags& h = p.head_flags;
    std::string ex = p.uses_lanes ? std::string(", lane exchange ") + to_string(h.exchange) : std::string();
    if (h.shuffle_words) ex += " (" + std::to_string(h.shuffle_words) + " word(s) per pair)";
    line(o, "head flags",
         "the *_segmented functions scan (heads, value) pairs of " + std::to_string(h.pair_bytes) +
             " bytes with the group's algorithm again, named " + p.spec.name + "_seg_*" + ex + "; scratch " +
             std::to_string(h.temp_bytes) + " bytes per group (" + p.spec.name + "_seg_temp)");
    line(o, "head-flag templates", joined(h.templates));
  }
  return o;
}

}  // namespace scangen::generator
