// scangen::mpi's segmented scans across ranks (internal.h, Segmented): each
// rank's part scanned with its own segments, then the elements whose segment
// comes from other ranks scanned again from the carry the ranks' pairs make.
#include <dlfcn.h>

#include <cstring>
#include <limits>

#include "internal.h"
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "scangen/dsl/dsl.h"

namespace scangen::mpi::detail {

namespace {

// A part's first and last heads from its flags: one read of the flags (their index, with the min and max).
const char* const kHeadsText =
    "type ScangenMpiHeads { first: u64, last: u64 }\n"
    "scan scangen_mpi_heads {\n"
    "  type = ScangenMpiHeads; input = u8; level = device; algorithm = reduce_then_scan; outputs = aggregate;\n"
    "  convert(v, i) = v != 0 ? ScangenMpiHeads { first: i, last: i + 1 } : ScangenMpiHeads { first: u64.max, "
    "last: 0 };\n"
    "  combine(a, b) = ScangenMpiHeads { first: min(a.first, b.first), last: max(a.last, b.last) };\n"
    "  identity = ScangenMpiHeads { first: u64.max, last: 0 };\n"
    "}\n";

dsl::Spec heads_spec() {
  dsl::Document doc = dsl::load("<scangen::mpi heads>", kHeadsText);
  if (!doc.ok()) fail("the heads' reduce does not build:\n" + doc.diagnostics().render());
  return doc.specs().front();
}

// What a part does to a segment that runs into it (its pair's kind): nothing
// (empty), combines its aggregate into it (no head), ends it and starts
// another, whose value at the part's far end it gives (a head), or, reverse,
// ends it at its first element (a head there: the rank before starts afresh).
enum Kind : uint8_t { Empty = 0, Pass = 1, Reset = 2, Fresh = 3 };

// CUDA device memory read back through the driver the runtime has loaded.
struct CudaCopy {
  using Sync = int (*)(void*);
  using Copy = int (*)(void*, unsigned long long, size_t);
  Sync sync = nullptr;
  Copy copy = nullptr;
  CudaCopy() {
    if (void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
      sync = reinterpret_cast<Sync>(dlsym(lib, "cuStreamSynchronize"));
      copy = reinterpret_cast<Copy>(dlsym(lib, "cuMemcpyDtoH_v2"));
    }
  }
};

struct Mem {  // an OpenCL buffer this file made, released at the end of its scope
  cl_mem m = nullptr;
  Mem() = default;
  Mem(const Mem&) = delete;
  Mem& operator=(const Mem&) = delete;
  ~Mem() {
    if (m) clReleaseMemObject(m);
  }
};

void check_cl(cl_int err, const char* call) {
  if (err != CL_SUCCESS) fail(std::string(call) + " failed with OpenCL error " + std::to_string(err));
}

template <class Args>
Args flat_args(const Args& part) {  // the part without its segments, for the flat builds
  Args a = part;
  a.segment_flags = a.segment_offsets = a.keys = a.segment_aggregates = {};
  a.segment_count = 0;
  a.check_segments = false;
  a.workspace = {};
  a.workspace_size = 0;
  return a;
}

}  // namespace

struct Segmented::State {
  dsl::Spec spec;
  MPI_Comm comm;
  scangen::Scan local, scan, reduce, heads;  // heads: segments = flags only
  ref::Evaluator host;
  cl_context ctx = nullptr;
  cl_command_queue queue = nullptr;

  State(Runtime& rt, const dsl::Spec& s, MPI_Comm c)
      : spec(s),
        comm(c),
        local(rt.compile(s)),
        scan(rt.compile(scan_spec(flat(s)))),
        reduce(rt.compile(reduce_spec(flat(s)))),
        host(flat(s)) {
    if (s.segments == dsl::Segments::Flags) heads = rt.compile(heads_spec());
    if (local.backend() == Backend::OpenCL) {
      ctx = rt.opencl_context();
      queue = rt.opencl_queue();
    }
  }

  // `bytes` bytes at byte `offset` of a part's buffer, into host memory (after the work queued before).
  void read(const scangen::Scan::OpenCLArgs& a, cl_mem m, uint64_t offset, size_t bytes, void* out) const {
    check_cl(clEnqueueReadBuffer(a.queue ? a.queue : queue, m, CL_TRUE, offset, bytes, out, 0, nullptr, nullptr),
             "clEnqueueReadBuffer");
  }
  void read(const scangen::Scan::CudaArgs& a, const void* p, uint64_t offset, size_t bytes, void* out) const {
    static const CudaCopy cuda;
    if (!cuda.sync || !cuda.copy) fail("the CUDA driver (cuStreamSynchronize, cuMemcpyDtoH_v2) is not there");
    if (const int r = cuda.sync(a.stream)) fail("cuStreamSynchronize failed with CUDA error " + std::to_string(r));
    if (const int r = cuda.copy(out, reinterpret_cast<uintptr_t>(p) + offset, bytes))
      fail("cuMemcpyDtoH failed with CUDA error " + std::to_string(r));
  }

  // The part's first and last heads (first = n: it has none).
  template <class Args>
  Heads find_heads(const Args& part) const {
    const uint64_t n = part.n;
    if (spec.segments == dsl::Segments::Flags) {
      Args r = flat_args(part);
      r.in = part.segment_flags;
      r.inputs.clear();
      r.inclusive = r.exclusive = {};
      uint64_t found[2] = {0, 0};
      r.host_aggregate = found;
      heads.reduce(r);
      return found[1] == 0 ? Heads{n, n} : Heads{found[0], found[1] - 1};
    }
    // Offsets: the heads are offsets[1 .. count) below n, which do not decrease.
    const uint64_t count = part.segment_count;
    if (count == 0) fail("scan '" + spec.name + "': a part of " + std::to_string(n) +
                         " elements takes segment_count + 1 >= 2 offsets, from 0 to n");
    const size_t size = dsl::scalar_size(spec.offset);
    auto at = [&](uint64_t k) {
      uint64_t v = 0;
      read(part, part.segment_offsets, k * size, size, &v);
      return v;
    };
    if (count < 2 || at(1) >= n) return Heads{n, n};
    uint64_t lo = 1, hi = count - 1;  // the last offset below n: at(lo) < n
    if (at(hi) < n) lo = hi;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo + 1) / 2;
      if (at(mid) < n)
        lo = mid;
      else
        hi = mid - 1;
    }
    return Heads{at(1), at(lo)};
  }

  // The inclusive result at element i of a part the segmented scan has written (exclusive only: its
  // exclusive result combined with the element, converted here).
  template <class Args>
  void result_at(const Args& part, uint64_t i, uint8_t* out) const {
    const size_t bytes = spec.type.size();
    if (part.inclusive) return read(part, part.inclusive, i * bytes, bytes, out);
    std::vector<uint8_t> before(bytes), in(spec.input.size()), x(bytes);
    read(part, part.exclusive, i * bytes, bytes, before.data());
    read(part, part.in, i * in.size(), in.size(), in.data());
    host.convert(in.data(), x.data());
    host.combine(before.data(), x.data(), out);
  }

  // Elements [begin, n) of the part scanned, flat, from `carry`.
  void scan_from(const scangen::Scan::CudaArgs& part, uint64_t begin, uint8_t* carry) const {
    scangen::Scan::CudaArgs s = flat_args(part);
    s.host_running_total = carry;
    s.n = part.n - begin;
    s.in = static_cast<const uint8_t*>(part.in) + begin * spec.input.size();
    if (s.inclusive) s.inclusive = static_cast<uint8_t*>(part.inclusive) + begin * spec.type.size();
    if (s.exclusive) s.exclusive = static_cast<uint8_t*>(part.exclusive) + begin * spec.type.size();
    scan.run(s);
  }
  void scan_from(const scangen::Scan::OpenCLArgs& part, uint64_t begin, uint8_t* carry) const;

  template <class Args>
  void run(const Args& part) const;
  void fold(const std::vector<uint8_t>& pairs, int ranks, int rank, uint8_t* carry, bool* fresh) const;
};

// OpenCL: sub-buffers where the device takes their origin, else copies of the range, scanned, copied back.
void Segmented::State::scan_from(const scangen::Scan::OpenCLArgs& part, uint64_t begin, uint8_t* carry) const {
  scangen::Scan::OpenCLArgs s = flat_args(part);
  s.host_running_total = carry;
  s.n = part.n - begin;
  if (begin == 0) return scan.run(s);
  const size_t in_bytes = spec.input.size(), bytes = spec.type.size();
  Mem in, inc, exc;
  cl_int err = CL_SUCCESS;
  auto view = [&](cl_mem parent, size_t each, Mem& mem) {
    if (!parent || err != CL_SUCCESS) return;
    cl_buffer_region region{begin * each, s.n * each};
    mem.m = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  };
  view(part.in, in_bytes, in);
  view(part.inclusive, bytes, inc);
  view(part.exclusive, bytes, exc);
  if (err == CL_SUCCESS) {
    s.in = in.m;
    s.inclusive = inc.m;
    s.exclusive = exc.m;
    return scan.run(s);
  }
  if (err != CL_MISALIGNED_SUB_BUFFER_OFFSET) check_cl(err, "clCreateSubBuffer");
  cl_command_queue q = part.queue ? part.queue : queue;
  auto copy = [&](cl_mem from, uint64_t from_at, cl_mem to, uint64_t to_at, size_t size) {
    check_cl(clEnqueueCopyBuffer(q, from, to, from_at, to_at, size, 0, nullptr, nullptr), "clEnqueueCopyBuffer");
  };
  auto make = [&](cl_mem parent, size_t each, Mem& mem) {
    if (mem.m) clReleaseMemObject(mem.m);
    mem.m = nullptr;
    if (!parent) return;
    cl_int e = CL_SUCCESS;
    mem.m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, s.n * each, nullptr, &e);
    check_cl(e, "clCreateBuffer");
  };
  make(part.in, in_bytes, in);
  make(part.inclusive, bytes, inc);
  make(part.exclusive, bytes, exc);
  copy(part.in, begin * in_bytes, in.m, 0, s.n * in_bytes);
  s.in = in.m;
  s.inclusive = inc.m;
  s.exclusive = exc.m;
  scan.run(s);
  if (inc.m) copy(inc.m, 0, part.inclusive, begin * bytes, s.n * bytes);
  if (exc.m) copy(exc.m, 0, part.exclusive, begin * bytes, s.n * bytes);
  check_cl(clFinish(q), "clFinish");
}

// This rank's carry: the pairs of the ranks before it (after it, reverse) applied, in order, to init; `fresh`:
// it is init because a segment starts at this part's first element (ends at its last, reverse).
void Segmented::State::fold(const std::vector<uint8_t>& pairs, int ranks, int rank, uint8_t* carry,
                            bool* fresh) const {
  const size_t bytes = spec.type.size();
  std::vector<uint8_t> next(bytes);
  host.init(carry);
  *fresh = true;
  const int steps = spec.reverse ? ranks - 1 - rank : rank;
  for (int step = 0; step < steps; ++step) {
    const int r = spec.reverse ? ranks - 1 - step : step;
    const uint8_t* pair = pairs.data() + static_cast<size_t>(r) * (bytes + 1);
    if (pair[0] == Pass) {
      host.combine(carry, pair + 1, next.data());
      std::memcpy(carry, next.data(), bytes);
    } else if (pair[0] == Reset) {
      std::memcpy(carry, pair + 1, bytes);
    } else if (pair[0] == Fresh) {
      host.init(carry);
    }
    if (pair[0] != Empty) *fresh = pair[0] == Fresh;
  }
}

template <class Args>
void Segmented::State::run(const Args& part) const {
  const std::string who = "scan '" + spec.name + "': ";
  if (part.segment_aggregates) fail(who + "a part takes no segment aggregates (outputs = aggregate is refused)");
  if (spec.segments == dsl::Segments::Flags && part.segment_count)
    fail(who + "segments = flags: leave segment_count 0 (there are no segment aggregates to size)");
  const size_t bytes = spec.type.size();
  const uint64_t n = part.n;
  if (n && !(spec.segments == dsl::Segments::Flags ? !!part.segment_flags : !!part.segment_offsets))
    fail(who + "the part has no " + (spec.segments == dsl::Segments::Flags ? "segment_flags" : "segment_offsets"));
  const Heads h = n ? find_heads(part) : Heads{0, 0};
  const bool has_head = h.first < n;
  std::vector<uint8_t> pair(bytes + 1, 0);  // 1. this part, and its pair
  if (n && has_head) {
    local.run(part);
    pair[0] = spec.reverse && h.first == 0 ? Fresh : Reset;
    if (pair[0] == Reset) result_at(part, spec.reverse ? 0 : n - 1, pair.data() + 1);
  } else if (n) {
    Args r = flat_args(part);
    r.inclusive = r.exclusive = {};
    r.host_aggregate = pair.data() + 1;
    reduce.reduce(r);
    pair[0] = Pass;
  }
  int ranks = 0, rank = 0;  // 2. every rank's pair; this rank's carry
  check_mpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  if (bytes + 1 > static_cast<size_t>(std::numeric_limits<int>::max())) fail("the element type is too large for MPI");
  std::vector<uint8_t> pairs((bytes + 1) * static_cast<size_t>(ranks));
  check_mpi(MPI_Allgather(pair.data(), static_cast<int>(bytes + 1), MPI_BYTE, pairs.data(),
                          static_cast<int>(bytes + 1), MPI_BYTE, comm),
            "MPI_Allgather (the ranks' segment pairs)");
  std::vector<uint8_t> carry(bytes);
  bool fresh = true;
  fold(pairs, ranks, rank, carry.data(), &fresh);
  if (n == 0 || (has_head && (fresh || (!spec.reverse && h.first == 0)))) return;
  if (!spec.reverse) {  // 3. the elements before the first head, from the carry
    Args s = flat_args(part);
    s.host_running_total = carry.data();
    s.n = has_head ? h.first : n;
    scan.run(s);
  } else {  // from the last head on
    scan_from(part, has_head ? h.last : 0, carry.data());
  }
}

Segmented::Segmented(Runtime& rt, const dsl::Spec& spec, MPI_Comm comm)
    : state_(std::make_shared<State>(rt, spec, comm)) {}
void Segmented::run(const scangen::Scan::CudaArgs& part) const { state_->run(part); }
void Segmented::run(const scangen::Scan::OpenCLArgs& part) const { state_->run(part); }
const scangen::Scan& Segmented::reduce_build() const { return state_->reduce; }
const scangen::Scan& Segmented::scan_build() const { return state_->scan; }

}  // namespace scangen::mpi::detail
