// scangen::mpi::Scan (mpi.h): reduce, gather the aggregates, scan from the carry.
#include "scangen/mpi/mpi.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "internal.h"
#include "scangen/dsl/dsl.h"
#include "scangen/reference/reference.h"

namespace scangen::mpi {

namespace detail {

void fail(const std::string& message) { throw Error("scangen::mpi: " + message); }

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) std::strcpy(text, "no text for this code");
  fail(std::string(call) + " failed with MPI error " + std::to_string(code) + ": " + text);
}

dsl::Spec flat(dsl::Spec s) {
  s.segments = dsl::Segments::None;
  return s;
}

// The reduce: the spec by reduce_then_scan with outputs = aggregate (its
// mode and init do not matter: Scan::reduce launches the reduce and spine
// kernels alone, and the aggregate excludes init).
dsl::Spec reduce_spec(dsl::Spec s) {
  s.algorithm = dsl::Algorithm::ReduceThenScan;
  s.aggregate = true;
  s.running_total = false;
  s.mode = dsl::Mode::Inclusive;
  s.init = nullptr;
  s.threads = s.items = 0;  // the tile of the reduce's own tuning
  return s;
}

// The scan of the part: seeded by the running total (the carry), which replaces init.
dsl::Spec scan_spec(dsl::Spec s) {
  s.running_total = true;
  s.init = nullptr;
  return s;
}

}  // namespace detail

namespace {

using detail::check_mpi;
using detail::fail;

// What a rank cannot do with its part alone, or "".
std::string refusal(const dsl::Spec& s) {
  if (s.level != dsl::Level::Device) return "a scan across ranks is a device-level scan (this one is at " +
                                            std::string(dsl::to_string(s.level)) + " level)";
  if (s.segments == dsl::Segments::Keys)
    return "segments = keys are not carried across ranks yet (a key compared with the previous rank's last key): "
           "pass segments = flags, a head where the key changes";
  if (s.shape != dsl::Shape::Flat) return "each rank's part is a flat 1-D array (the spec has shape = " +
                                          std::string(dsl::to_string(s.shape)) + ")";
  if (s.has_input_arrays()) return "fused input arrays (input = T1, T2, ...) are not carried across ranks yet";
  if (s.has_scatter()) return "fused outputs (scatter) are not carried across ranks yet";
  if (s.aggregate || s.running_total)
    return "the spec lists outputs = " + std::string(s.aggregate ? "aggregate" : "running_total") +
           "; run(part, total) gives the whole array's total";
  if (s.convert_takes_index()) return "its convert reads the element's index, which a rank knows only within its part";
  if (s.convert && s.convert->neighbours >= 0)
    return "its convert reads prev(...) / next(...), the input beside each element, across the parts' ends";
  return "";
}

dsl::Spec checked(const dsl::Spec& s) {
  const std::string why = refusal(s);
  if (!why.empty()) fail("scan '" + s.name + "': " + why);
  return s;
}

dsl::Spec from_text(const std::string& text, const std::string& name) {
  dsl::Document doc = dsl::load("<scan text>", text);
  if (!doc.ok()) fail("the scan text has errors:\n" + doc.diagnostics().render());
  if (!name.empty()) {
    const dsl::Spec* s = doc.find(name);
    if (!s) fail("no scan named '" + name + "' in the text");
    return *s;
  }
  if (doc.specs().size() != 1)
    fail("the text holds " + std::to_string(doc.specs().size()) + " scans; name the one to use");
  return doc.specs().front();
}

}  // namespace

struct Scan::Impl {
  dsl::Spec spec;
  MPI_Comm comm;
  std::optional<detail::Segmented> segmented;  // segments = flags or offsets: its own builds
  scangen::Scan reduce, scan;
  ref::Evaluator host;  // the operator on the host: the carries
  Impl(Runtime& rt, const dsl::Spec& s, MPI_Comm c) : spec(checked(s)), comm(c), host(detail::flat(s)) {
    if (s.segments != dsl::Segments::None) {
      segmented.emplace(rt, s, c);
      reduce = segmented->reduce_build();
      scan = segmented->scan_build();
    } else {
      reduce = rt.compile(detail::reduce_spec(s));
      scan = rt.compile(detail::scan_spec(s));
    }
  }

  // Steps 2 and 3's host part: every rank's aggregate in, this rank's carry and the total out.
  void carry(const std::vector<uint8_t>& mine, bool empty, uint8_t* carry_out, void* total) const {
    const size_t bytes = spec.type.size();
    if (bytes > static_cast<size_t>(std::numeric_limits<int>::max())) fail("the element type is too large for MPI");
    int ranks = 0, rank = 0;
    check_mpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    std::vector<uint8_t> all(bytes * static_cast<size_t>(ranks));
    std::vector<uint8_t> sent = mine;
    if (empty) host.identity(sent.data());
    check_mpi(MPI_Allgather(sent.data(), static_cast<int>(bytes), MPI_BYTE, all.data(), static_cast<int>(bytes),
                            MPI_BYTE, comm),
              "MPI_Allgather (the ranks' aggregates)");
    // Forward: init . a(0) . ... . a(rank - 1); reverse: init . a(P - 1) . ... . a(rank + 1).
    host.carry(all.data(), static_cast<uint64_t>(ranks), static_cast<uint64_t>(rank), nullptr, carry_out, total);
  }

  template <class Args>
  void run(const Args& part, void* total) const {
    const std::string who = "scan '" + spec.name + "': ";
    if (part.aggregate || part.running_total || part.host_aggregate || part.host_running_total)
      fail(who + "a part takes no aggregate or running total (run's `total` gives the whole array's)");
    if (part.rows || part.length || part.strided.rank) fail(who + "a part is a flat array: no rows or strided shape");
    if (segmented) {
      if (total) fail(who + "a segmented scan has no one total: pass total = nullptr");
      return segmented->run(part);
    }
    const size_t bytes = spec.type.size();
    std::vector<uint8_t> aggregate(bytes), carry_bytes(bytes);
    if (part.n > 0) {  // 1. the part's aggregate
      Args r = part;
      r.inclusive = r.exclusive = {};
      r.host_aggregate = aggregate.data();
      reduce.reduce(r);
    }
    carry(aggregate, part.n == 0, carry_bytes.data(), total);  // 2.
    if (part.n == 0) return;
    Args s = part;  // 3. the part from its carry
    s.host_running_total = carry_bytes.data();
    scan.run(s);
  }
};

Scan::Scan(Runtime& rt, const dsl::Spec& spec, MPI_Comm comm) : impl_(std::make_unique<Impl>(rt, spec, comm)) {}
Scan::Scan(Runtime& rt, const std::string& scan_text, MPI_Comm comm, const std::string& name)
    : Scan(rt, from_text(scan_text, name), comm) {}
Scan::~Scan() = default;
Scan::Scan(Scan&&) noexcept = default;
Scan& Scan::operator=(Scan&&) noexcept = default;

const dsl::Spec& Scan::spec() const { return impl_->spec; }
MPI_Comm Scan::comm() const { return impl_->comm; }
const scangen::Scan& Scan::reduce_build() const { return impl_->reduce; }
const scangen::Scan& Scan::scan_build() const { return impl_->scan; }

void Scan::run(const scangen::Scan::CudaArgs& part, void* total) const { impl_->run(part, total); }
void Scan::run(const scangen::Scan::OpenCLArgs& part, void* total) const { impl_->run(part, total); }

}  // namespace scangen::mpi
