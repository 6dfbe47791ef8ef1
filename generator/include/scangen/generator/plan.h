// Spec -> Plan: every decision the generator makes for one scan on one
// target (a backend and an architecture), before any text is written.
// `scangen explain` prints it; the emitter, the host wrappers and the runtime
// only follow it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scangen/dsl/spec.h"
#include "scangen/generator/backend.h"
#include "scangen/generator/preamble.h"
#include "scangen/generator/tuning.h"

namespace scangen::generator {

// How the lanes of a group exchange values (the backend's lane scan).
// X(enumerator, spelling, template file, description)
// clang-format off
#define SCANGEN_LANE_EXCHANGES(X)                                                                              \
  X(Shuffle, "shuffle", "common/lanes_shfl.h", "register shuffles, word by word")                            \
  X(SharedMemory, "shared_memory", "cuda/lanes_shared.cuh", "shared memory, __syncwarp between steps")       \
  X(ActiveLanes, "active_lanes", "cuda/lanes_coalesced.cuh", "shuffles over the lanes active at the call")   \
  X(LocalMemory, "local_memory", "opencl/lanes_local.cl", "local memory, a work-group barrier between steps")
// clang-format on

enum class LaneExchange : uint8_t {
#define X(e, s, f, d) e,
  SCANGEN_LANE_EXCHANGES(X)
#undef X
};
const char* to_string(LaneExchange e);
const char* template_file(LaneExchange e);
const char* describe(LaneExchange e);

// The kernel ABI: what each kernel parameter is. The templates declare the
// parameters in the order the Plan lists them (a test compares the two);
// the runtime and the generated host wrappers bind arguments by role, from
// the Plan's lists, and nowhere else.
enum class ParamRole : uint8_t {
  Input,         // const P_In*: n input elements
  InputArray,    // const P_In_<x>*: n elements of input array KernelParam::array (input = T1, T2, ...;)
  Inclusive,     // P_T*: n elements
  Exclusive,     // P_T*: n elements
  Aggregate,     // P_T*: one element, the total (device level)
  Aggregates,    // P_T*: one element per segment (warp and block level)
  RunningTotal,  // P_T*: one element, read and written
  Count,         // u64: n
  Workspace,     // unsigned char*: the look-back's header and tile statuses
  Partials,      // P_T*: reduce_then_scan's one element per tile (the workspace)
  // Segmented scans (device level, segments given at run time):
  SegmentAggregates,  // P_T*: one element per segment, its total without init
  SegmentFlags,       // const u8*: n bytes, nonzero starts a segment (segments = flags)
  SegmentOffsets,     // const offset*: n_segments + 1 offsets (segments = offsets)
  SegmentCount,       // u64: n_segments (segments = offsets)
  SegmentKeys,        // const key*: n keys, a segment starts where the key changes (segments = keys)
  // shape = rows / strided (u64 each, from the call's RunShape; see ShapeCall).
  Rows,          // rows
  Length,        // elements per row
  InRowStride,   // elements from one input row to the next
  OutRowStride,  // elements from one output row to the next
  Extent,        // extent of dimension KernelParam::dim (0..2: the lines' dimensions, slowest first; 3: the axis)
  InStride,      // input stride of that dimension, in elements
  OutStride,     // output stride of that dimension, in elements
  AxisLanes,     // lines a tile of the axis kernel covers (a power of two dividing the block)
  Scattered,     // P_Out*: n elements, fused output `dim` (Plan::fused_outputs) that scatter writes
};
const char* to_string(ParamRole r);

// A parameter of a kernel.
struct KernelParam {
  ParamRole role = ParamRole::Input;
  std::string type;  // in the dialect: "const P_In*", "P_T*", "u64"
  std::string name;
  std::string meaning;
  int dim = 0;    // Extent, InStride, OutStride: the dimension
  int array = 0;  // InputArray: which array (convert's parameter)
};

// What a kernel's grid covers (launch_blocks gives the count).
enum class Grid : uint8_t {
  Segments,  // warp and block level: ceil(n / (segment x groups per block)) blocks, none for n = 0
  Tiles,     // device level: max(1, ceil(n / tile)) blocks
  One,       // one block (reduce_then_scan's spine)
  Shaped,    // shape = rows / strided: from the call's shape (launch_blocks with a RunShape)
};

// A kernel of the plan, launched with launch_blocks(plan, kernel, n) blocks
// of Plan::block_threads.
struct Kernel {
  std::string name;
  std::string grid;  // the grid in words, for `scangen explain`
  Grid blocks = Grid::Tiles;
  std::vector<KernelParam> params;
  // Bytes of dynamic shared memory its launch gives (Plan::dynamic_shared_bytes; 0 for most).
  size_t dynamic_shared_bytes = 0;
};

// How a tile publishes its status in the decoupled look-back's workspace.
// The values are the templates' SG_STATUS_KIND (templates/*/lookback.*),
// written out by template_constants() alone.
enum class StatusLayout : uint8_t {
  None = 0,          // no look-back (warp, block, reduce_then_scan)
  Word64 = 1,        // CUDA, elements up to 4 bytes: value and tag in one 64-bit word
  Word128 = 2,       // CUDA, up to 8 bytes: value and tag in one 16-byte word
  TagThenWords = 3,  // CUDA, larger: a 32-bit tag, then the aggregate and the inclusive prefix apart
  TaggedWords = 4,   // OpenCL: each 32-bit word of both values with its own tag in a 64-bit atomic
};
const char* describe(StatusLayout s);

// OpenCL look-back: the reads of a predecessor's status that is not there yet
// before the waiting work-group reduces that tile from its input itself
// (OpenCL does not promise that the predecessor's work-group runs).
constexpr int kOpenCLStatusReads = 4096;

// What the kernels write.
struct Outputs {
  bool inclusive = false;
  bool exclusive = false;
  bool aggregate = false;      // the total (device), a total per segment (warp, block)
  bool running_total = false;  // a carry read and written back
};

// Warp and block scans with a running total: each group adds its total to a
// counter with an atomic of this scalar type and built-in operator.
struct CounterUpdate {
  dsl::ScalarKind kind = dsl::ScalarKind::I32;
  dsl::BuiltinOp op = dsl::BuiltinOp::Add;
  // Any other operator on an element of 4 or 8 bytes: a compare-and-swap
  // loop on a word of that many bytes (0: the native atomic of `op`).
  size_t cas_bytes = 0;
};

struct Plan {
  // The scan as written: its names, its types and the operator text of the
  // preamble. No stage after planning reads it to decide something: every
  // decision is a field below.
  dsl::Spec spec;
  Backend backend = Backend::Cuda;
  int arch = 0;  // the target's architecture (Target::arch): 90 for sm_90, 0 for any
  dsl::Level level = dsl::Level::Device;
  dsl::Algorithm algorithm = dsl::Algorithm::DecoupledLookback;  // the scan's
  PreambleNames names;                                           // P_T, P_In, P_combine, ... (the preamble's)

  // Group shape. A group is a logical warp (warp level) or a block.
  int group_threads = 0;  // W or threads
  int items = 0;          // per thread, blocked arrangement
  uint64_t segment = 0;   // elements one group scans: group_threads * items
  int block_threads = 0;  // threads per block of the entry kernel
  int groups_per_block = 0;

  // The lane scan: used for the whole group (warp level), the raking warp
  // (raking), each warp (warp_scans); not by hillis_steele / blelloch.
  bool uses_lanes = false;
  LaneExchange exchange = LaneExchange::Shuffle;
  int shuffle_words = 0;  // 32-bit words per element through a shuffle
  int lane_scratch = 0;   // elements of lane scratch per lane group

  // The block algorithm that scans a group (a device scan's tile included).
  dsl::Algorithm tile_algorithm = dsl::Algorithm::Raking;

  // Device level: a tile of block_threads x items elements per block.
  uint64_t tile = 0;
  StatusLayout status = StatusLayout::None;  // decoupled look-back only
  int status_words = 0;                      // 32-bit words of a status value
  size_t status_bytes = 0;                   // workspace bytes per tile (decoupled look-back)
  bool tile_prefix = false;                  // P_device_tile_ticket / _prefix (flat look-back scans)
  int status_reads = 0;                      // OpenCL look-back: kOpenCLStatusReads
  int min_blocks = 0;                        // CUDA look-back: __launch_bounds__ minimum blocks per SM (0: none)
  bool streaming = false;                    // CUDA device scans: full tiles' 16-byte loads and stores evict first
  bool staged_io = false;                    // coalesced loads and stores through shared memory
  uint64_t exchange_elements = 0;            // elements of that exchange (staged I/O)
  // CUDA flat and segmented look-back scans for a known architecture whose exchange does
  // not fit the 48 KiB of static shared memory a block may declare: the
  // exchange's bytes, in dynamic shared memory, which the scan kernel's
  // launch gives (Kernel::dynamic_shared_bytes) after allowing it with
  // cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES); 0:
  // the exchange is static, or does not fit (staged_io false).
  size_t dynamic_shared_bytes = 0;
  int input_words = 0;   // 16-byte words of a thread's inputs (CUDA; 0: elements one by one)
  int output_words = 0;  // 16-byte words of a thread's outputs (CUDA; 0: elements one by one)
  // CUDA flat forward look-back scans whose operator is the built-in addition
  // of 1- or 2-byte integers (wrapping) or of f16, input of the same type (op
  // = add on i8 / u8 / i16 / u16 / f16, no convert), with word I/O: a
  // thread's items stay packed in 32-bit words, this many to a word (4 or 2),
  // and its reduce and rescan work on the words (templates/cuda/packed.cuh;
  // f16 by f16x2 additions, in a grouping of its own); 0: element by element.
  int packed_lanes = 0;

  // Block algorithms.
  int rake_threads = 0;        // raking
  int rake_segment = 0;        // partials each raking thread reduces
  int rake_padding = 0;        // spare slots after each raking segment
  int blelloch_pad_shift = 0;  // one spare slot every 2^shift tree nodes

  bool seeded = false;  // init is not the identity (their values differ)
  // Seeded, and init seeds the exclusive results only (init_applies_to =
  // exclusive; warp and block level, mode = both).
  bool seed_exclusive_only = false;
  Outputs outputs;
  std::optional<CounterUpdate> counter;  // warp and block scans with a running total
  bool output_may_alias_input = false;   // one output, of the input's type: it may be `in`
  // Device level: the tuning the tile shape and the look-back follow (the
  // table's entry, with the spec's threads / items where it gives them).
  DeviceTuning tuning;

  size_t element_bytes = 0;
  size_t input_bytes = 0;
  bool converts_input = false;    // inputs go through P_convert (another type, or a written convert)
  size_t temp_bytes = 0;          // sizeof(P_temp): one group's scratch
  size_t block_shared_bytes = 0;  // static shared/local memory of the entry kernel

  // The templates, in order, after the dialect and the preamble: those the
  // algorithms need and their helpers, each once (plan_templates.cpp).
  std::vector<std::string> templates;

  std::string entry_kernel;  // P_scan_kernel
  std::vector<KernelParam> entry_params;
  std::vector<Kernel> kernels;  // in launch order; the last is P_scan_kernel
  // CUDA flat look-back scans whose tuning has pdl=1: P_zero_workspace(u64 words, unsigned long long*
  // workspace), which zeroes the first `words` 8-byte words of the workspace in place of a memset and
  // lets the scan kernel, launched after it as its programmatic dependent (sm_90 and later), start at
  // once; the scan kernel waits for its end before it reads anything. Empty: none (a memset).
  std::string zero_kernel;
  // CUDA flat look-back scans in any order (not segmented, not fixed-order): the scan kernel takes its
  // ticket and the call's epoch in one atomic and tags its tiles' statuses with that epoch
  // (templates/cuda/lookback.cuh), so a status of an earlier call is never taken for one of this call.
  // A workspace that only this plan's calls use, one at a time, is then zeroed once, not before each
  // call (workspace_epoch_zero). Every other look-back kernel tags with epoch 0: its workspace is zeroed
  // for each call.
  bool epoch_tags = false;
  std::vector<std::string> device_functions;  // the public ones, P_inclusive ...

  // Reverse (suffix) scans: the kernels' loads and stores go through the
  // mirror of common/io_mirror.h (tile t takes the t-th block of the array
  // counted from its end, read last element first); the scan is the forward one.
  bool reverse = false;

  // deterministic = true with floating-point values, by decoupled look-back:
  // the look-back combines the predecessors in an order fixed by the tile's
  // index (common/lookback_fixed.h), not in whatever order they publish.
  bool fixed_order = false;
  // Device look-back scans with a running total: the counter written back by
  // the last work-group to finish (lookback.cl's sg_count_done), not by the
  // last tile. OpenCL's fallback lets the last tile overtake a work-group not
  // yet run; CUDA's last tile (and the fixed-order look-back, which has no
  // fallback) ends only after every tile has read the counter.
  bool counter_by_last_group = false;

  // Segmented scans (`segments = ...;`): the tiles scan (segment count, value)
  // pairs with the segmented operator built from the scan's own
  // (templates/common/segmented_pair.h); everything sized by the scanned
  // element (scratch, exchange, statuses) is sized by the pair.
  struct Segmented {
    dsl::Segments form = dsl::Segments::None;
    std::string offset_type;  // segments = offsets: the offsets' C type (scangen_u32 ...)
    size_t offset_bytes = 0;
    std::string key_type;  // segments = keys: the keys' C type
    size_t key_bytes = 0;
    // key_equal(a, b) given: neighbour keys are compared by the preamble's
    // P_key_equal(before, own) (device_segmented.h's section key_equal), not ==.
    bool key_equal = false;
    size_t pair_bytes = 0;  // sizeof(P_seg): the value, then a 32-bit count of segment starts
    // segments = offsets, forward, without segment aggregates: the offsets become one bit per element
    // first (P_seg_heads_kernel, launched before the scan kernel), in the workspace after the tiles'
    // statuses (ceil(tile / 32) 32-bit words a tile); the scan kernel reads each thread's starts from
    // those words, with no search of the offsets and no marks in shared memory (device_segmented.h).
    bool head_bits = false;
    bool on() const { return form != dsl::Segments::None; }
  };
  Segmented segmented;
  // head_flags = true (warp and block level): the device functions' head-flag
  // variants (templates/common/api_segmented.h) scan (heads, value) pairs
  // with segmented_pair.h's operator, the group's algorithm instantiated a
  // second time for the pair under the names P_seg_* (its scratch
  // P_seg_temp), after the scan's own templates; the lane exchange and the
  // scratch are sized by the pair. The entry kernel is the scan's as without.
  struct HeadFlags {
    bool on = false;
    size_t pair_bytes = 0;  // sizeof(P_seg)
    LaneExchange exchange = LaneExchange::Shuffle;
    int shuffle_words = 0;               // 32-bit words per pair through a shuffle
    int lane_scratch = 0;                // pairs of lane scratch per lane group
    size_t temp_bytes = 0;               // sizeof(P_seg_temp): one group's scratch of pairs
    std::vector<std::string> templates;  // the pair, the lane exchange, the group's, api_segmented.h
  };
  HeadFlags head_flags;
  // shape = rows / strided (plan_shape.cpp): the kernels of the run-time
  // shape, each a Grid::Shaped kernel of `kernels` (rows: the rows kernel;
  // strided: the rows kernel, for a contiguous axis, then the axis kernel).
  dsl::Shape shape = dsl::Shape::Flat;
  size_t shape_shared_bytes = 0;  // the shape kernels' scan of thread totals (two buffers of P_T and flags)
  int shape_min_blocks = 0;       // CUDA: the shape kernels' __launch_bounds__ minimum blocks per SM (0: none)

  // Fused inputs: convert(v, i) takes the element's index in the array too
  // (flat device scans; the loads pass it, the template section `indexed`).
  bool convert_index = false;
  // Fused inputs (spec.input_arrays): several input arrays (a struct of
  // arrays) or none instead of `in`, each a kernel parameter of role
  // InputArray; each array is loaded on its own through the exchange (in
  // 16-byte words where a thread's items fill them) and convert builds the
  // element from one of each and the index (templates/common/io_inputs.h;
  // the sections one_input / input_bundle of the look-back templates).
  struct InputArray {
    std::string name;  // the kernel's and the wrappers' parameter: in_<convert's parameter>
    std::string type;  // the preamble's P_In_<convert's parameter>
    size_t bytes = 0;
    int words = 0;        // 16-byte words of a thread's items (CUDA, staged I/O; 0: element by element)
    bool staged = false;  // through the exchange (false: each thread reads its own items)
    uint64_t offset = 0;  // its bytes' place in the exchange (arrays_together)
  };
  bool input_arrays = false;
  // The staged arrays fit the exchange side by side (at their offsets): all
  // are stored, then one barrier, then all read back; else one after another.
  bool arrays_together = false;
  std::vector<InputArray> arrays;
  // convert reads prev(v) / next(v) (implies convert_index): the loads call
  // the preamble's P_convert_near(v, i), which reads in[i - 1] and in[i + 1].
  bool convert_neighbours = false;
  // Fused outputs: scatter / scatter_at / scatter_if write a value per
  // selected element into the Scattered parameter (flat decoupled look-back
  // device scans; the template section `scatter` of device_lookback.h).
  bool scatter = false;
  // The fused outputs, `scattered` (scatter(...)) first, then the named ones
  // (scatter.NAME(...)) in the spec's order: the kernel's Scattered
  // parameters (dim: the index here), the host wrappers' and the runtime's
  // arguments, and the preamble's functions of each.
  struct FusedOutput {
    std::string name;             // the argument: "scattered", or NAME
    std::string out_type;         // P_Out, P_Out_NAME: the element type's C name
    std::string value, at, when;  // P_scatter_value[_NAME], P_scatter_at[_NAME], P_scatter_if[_NAME]
    dsl::Type element;            // scatter_type[.NAME]
  };
  std::vector<FusedOutput> fused_outputs;
  // The fused outputs read the tile's input elements again through the
  // exchange, in the coalesced order (the exchange holds the tile's inputs,
  // padded as io.h pads); else each thread its own from global memory.
  bool scatter_staged = false;
  // The fused outputs element by element in the striped order (consecutive
  // threads, consecutive elements), from the tile's results in the exchange:
  // a warp's writes cover consecutive positions where the positions follow
  // the elements (select, partition, run-length encoding). Else each thread
  // its own items (scatter_staged: how it reads them again).
  bool scatter_striped = false;
  // With scatter_striped, where the tuning asks for it (raw_tile=1): the
  // tile's input elements kept in shared memory as the loads read them (once,
  // in the striped order), for convert's neighbours and for the fused
  // outputs, instead of read again from global memory (io.h's sg_load_raw).
  bool raw_tile = false;
  // prev(x) / next(x) in convert or a scatter function: the input is read
  // beside each element, so no output may be the input.
  bool reads_neighbours = false;
};

// The plan of a scan for a target. Throws std::invalid_argument when the
// spec cannot be generated for it (a target the spec does not list, coalesced
// on OpenCL, scratch beyond 48 KiB of shared memory).
Plan make_plan(const dsl::Spec& spec, const Target& target);
// The same for the backend's default target (any architecture).
Plan make_plan(const dsl::Spec& spec, Backend backend);
// The same with a given tuning instead of the table's (device level; the
// spec's threads / items still take precedence). For tuning experiments.
Plan make_plan(const dsl::Spec& spec, const Target& target, const DeviceTuning& tuning);
Plan make_plan(const dsl::Spec& spec, Backend backend, const DeviceTuning& tuning);

// The plan of a CUDA scan's fast tier (the runtime's first build of a cold
// scan, runtime/README.md "Tiers"). For a forward, flat, unsegmented device
// scan by look-back of one input array (in any or the fixed order) with no
// fused outputs, neighbours or packed words: direct I/O, each thread
// loading and storing its own items, with no exchange through shared memory
// and no 16-byte words. The tile, block scan, look-back, kernels,
// parameters, workspace and the order in which elements are combined are
// the plan's, so the results are the same bits; NVVM and ptxas have less
// code to compile (bench/RESULTS.md, "JIT: the fast tier's direct I/O").
// Any other plan comes back as it is.
Plan fast_tier_plan(const Plan& plan);

// The constants the templates are written against (SG_*), in order, from the
// plan's fields: the one place they are spelled.
std::vector<std::pair<std::string, std::string>> template_constants(const Plan& plan);
// The constants of a head_flags plan's second part (its head-flag functions):
// the scan's, with SG_T and its operator the pair's, SG_VALUE_* the scan's
// own, the lane constants sized by the pair.
std::vector<std::pair<std::string, std::string>> head_flag_constants(const Plan& plan);

// Every template a plan may list, and the dialects: the catalogue of
// plan_templates.cpp, each once.
std::vector<std::string> known_templates();

// Workspace bytes a device scan of n elements needs (0 for warp and block
// scans): decoupled look-back, 16 bytes + a status per tile; reduce_then_scan,
// one element per tile.
uint64_t workspace_bytes(const Plan& plan, uint64_t n);
// Plan::raw_tile's shared-memory slots of the input type: the tile, one
// element either side, padded by one slot in 32 (io.h's SG_RAW_AT).
uint64_t raw_tile_slots(const Plan& plan);
// Its layout: `header` bytes, then `per_tile` bytes for each tile, one tile
// at least (both 0 for warp and block scans). The host wrappers' workspace
// function is this formula.
struct WorkspaceLayout {
  uint64_t header = 0;
  uint64_t per_tile = 0;
};
WorkspaceLayout workspace_layout(const Plan& plan);

// Elements of the aggregate output for n elements: one (device level), one
// per segment (warp and block level).
uint64_t aggregate_elements(const Plan& plan, uint64_t n);

// The blocks of `kernel` for n elements: the one launch-geometry rule of the
// runtime and the host wrappers (rounded up without wrapping near 2^64).
uint64_t launch_blocks(const Plan& plan, const Kernel& kernel, uint64_t n);
// The bytes of that workspace to zero before a call with n elements: all of
// them for a decoupled look-back scan of more than one tile (the ticket and
// the statuses), else 0 (one tile takes no ticket and reads no status;
// reduce_then_scan writes its partials before it reads them).
uint64_t workspace_zero_bytes(const Plan& plan, uint64_t n);

// The tiles from which a call zeroes its workspace with Plan::zero_kernel and
// launches the scan as that kernel's programmatic dependent: on an H100 it
// saves 1 - 3 us from 128 tiles on (2^20 - 2^24 elements of 1, 4 and 8
// bytes) and costs 0.5 - 1.3 us below 32 (bench/RESULTS.md, "The workspace
// zeroed by a kernel the scan overlaps").
constexpr uint64_t kZeroKernelFromTiles = 128;
// Whether a call of n elements on a device of architecture `sm` (90 for
// sm_90) zeroes its workspace so: a plan with a zero_kernel, sm_90 or later,
// at least kZeroKernelFromTiles tiles. Otherwise a memset of
// workspace_zero_bytes(plan, n) bytes, where that is not 0.
bool zero_by_kernel(const Plan& plan, uint64_t n, int sm);
// Plan::zero_kernel's arguments for a call of n elements: the 8-byte words
// to zero (workspace_zero_bytes / 8) and its blocks of 256 threads.
uint64_t zero_kernel_words(const Plan& plan, uint64_t n);

// Plan::epoch_tags: a workspace kept for one plan's calls (one at a time) is
// zeroed whole before its first call of more than one tile, and again before
// this many such calls have run since: the kernel's epoch has 30 bits and
// comes round after 2^30 calls, when a status of the call 2^30 before could
// pass for this call's.
constexpr uint64_t kEpochCallsBeforeZero = 1ull << 29;
// For such a workspace, `calls` the calls of more than one tile since it
// was last zeroed (0: never): whether this call must zero it first (the
// whole of it). The caller then counts this call: calls = (zeroed ? 0 : calls) + 1.
bool workspace_epoch_zero(const Plan& plan, uint64_t n, uint64_t calls);
// The same for the caller that keeps the count: whether this call of n
// elements must zero the workspace whole first, and the call counted in
// `calls` (reset to it where it zeroes; calls of one tile are not counted).
bool workspace_epoch_call(const Plan& plan, uint64_t n, uint64_t& calls);
uint64_t zero_kernel_blocks(const Plan& plan, uint64_t n);

// ---- shape = rows / strided: the run-time shape of a call ----------------

// What the caller gives. Strides are in elements. rows: row r begins at
// element r * in_row_stride of the input (out_row_stride of the outputs; 0:
// as the input). strided: rank 1..4 dimensions, the axis scanned; the
// outputs' strides all 0: as the input's.
struct RunShape {
  uint64_t rows = 0;
  uint64_t length = 0;
  uint64_t in_row_stride = 0;   // 0: length (dense rows)
  uint64_t out_row_stride = 0;  // 0: in_row_stride
  int rank = 0;
  int axis = 0;
  uint64_t extents[4] = {0, 0, 0, 0};
  uint64_t in_strides[4] = {0, 0, 0, 0};
  uint64_t out_strides[4] = {0, 0, 0, 0};
};

// A checked call of a shaped plan: the kernel it launches and every value
// the kernel ABI's shape roles take. shape_call throws std::invalid_argument
// with a sentence for a bad shape (a stride below the length, a rank out of
// 1..4, an axis out of range, sizes that overflow 64 bits).
struct ShapeCall {
  const Kernel* kernel = nullptr;
  uint64_t blocks = 0;
  uint64_t workspace_bytes = 0;  // the look-back's header and statuses
  uint64_t zero_bytes = 0;       // zeroed before the call (0: one tile)
  uint64_t in_span = 0;          // input elements from the base the kernel may read (0: none)
  uint64_t out_span = 0;         // output elements from the base it may write
  uint64_t aggregates = 0;       // aggregate elements: one per row or line
  // The values of the shape roles (rows kernel; axis kernel: dims 0..2 the
  // lines' dimensions, slowest first, padded with extent 1; dim 3 the axis).
  uint64_t rows = 0, length = 0, in_row_stride = 0, out_row_stride = 0;
  uint64_t extent[4] = {0, 0, 0, 0}, in_stride[4] = {0, 0, 0, 0}, out_stride[4] = {0, 0, 0, 0};
  uint64_t lanes = 0;  // AxisLanes
  // The u64 a shape role takes (a std::logic_error for another role).
  uint64_t value(const KernelParam& p) const;
};
ShapeCall shape_call(const Plan& plan, const RunShape& shape);
uint64_t launch_blocks(const Plan& plan, const Kernel& kernel, const RunShape& shape);
uint64_t workspace_bytes(const Plan& plan, const RunShape& shape);
uint64_t workspace_zero_bytes(const Plan& plan, const RunShape& shape);

// Readable, one decision per line, for `scangen explain`.
std::string to_string(const Plan& plan);

}  // namespace scangen::generator
