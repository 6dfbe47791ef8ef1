// scangen::mpi's pieces shared by mpi.cpp (the scan) and segmented.cpp (the
// segmented scan): errors, and the segmented scan's own state.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scangen/dsl/spec.h"
#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

namespace scangen::mpi::detail {

[[noreturn]] void fail(const std::string& message);
// An MPI call that did not return MPI_SUCCESS: its name, its code and MPI's words for it.
void check_mpi(int code, const char* call);

// The spec with segments = none: what the flat builds of a segmented spec start from.
dsl::Spec flat(dsl::Spec s);
// The reduce build's spec (Scan::reduce: the part's aggregate) and the scan seeded by a carry's.
dsl::Spec reduce_spec(dsl::Spec s);
dsl::Spec scan_spec(dsl::Spec s);

// A segmented scan (segments = flags or offsets) across the ranks (segmented.cpp):
//   1. each rank finds its part's first and last heads (flags: a reduce of
//      the flags; offsets: a few of them read back) and, where it has a
//      head, runs the segmented scan of its part, right but for the
//      elements before its first head (reverse: from its last head on),
//      whose segment goes on from (to) other ranks; a part with no head
//      takes its aggregate (the flat reduce) instead;
//   2. every rank's (kind, value) pair by MPI_Allgather: what its part does
//      to a segment running through it (resets it to its last result, or
//      combines its aggregate into it); each rank folds those of the ranks
//      before it (after it, reverse) on the host: its carry;
//   3. the elements before its first head (from its last head, reverse)
//      scanned again, flat, from the carry; a part with no head, all of it.
class Segmented {
 public:
  Segmented(Runtime& rt, const dsl::Spec& spec, MPI_Comm comm);
  void run(const scangen::Scan::CudaArgs& part) const;
  void run(const scangen::Scan::OpenCLArgs& part) const;
  // The flat builds (segments = none): the reduce of a part without a head, the scan from a carry.
  const scangen::Scan& reduce_build() const;
  const scangen::Scan& scan_build() const;

  struct Heads {
    uint64_t first = 0, last = 0;  // the first and last heads' places; first = n: none
  };
  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace scangen::mpi::detail
