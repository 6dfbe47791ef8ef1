// scangen::mpi: a scan of an array whose parts the ranks of an MPI
// communicator hold, in rank order, with the spec's own operator.
//
//   scangen::Runtime rt;
//   scangen::mpi::Scan offsets(rt, "scan offsets { type = u64; op = add; mode = exclusive; }", MPI_COMM_WORLD);
//   scangen::Scan::CudaArgs part;            // this rank's part: in, exclusive, n (and a stream)
//   ...
//   uint64_t total = 0;
//   offsets.run(part, &total);               // collective: every rank calls it
//
// Each rank's part, on its own device (CUDA or OpenCL), in three steps:
//   1. its aggregate: the reduce kernels of a reduce_then_scan build of the
//      spec (Scan::reduce), one read of the part;
//   2. the collective: every rank's aggregate (one element, its bytes) by
//      MPI_Allgather, then, on the host of every rank alike, the exclusive
//      scan of them from the spec's init with the operator (the CPU
//      reference evaluates it): this rank's carry and the array's total;
//   3. the part scanned from its carry: the spec built with outputs =
//      running_total, the carry its seed (Scan::run with host_running_total),
//      one read and one write of the part.
// Only one element per rank crosses MPI, through host memory: no CUDA-aware
// MPI is assumed. docs/distributed.md says more.
//
// Segmented scans (segments = flags or offsets): a segment may span ranks.
// Each rank passes its part's own segments, local to the part: flags, one
// byte per element, a nonzero one starting a segment; or offsets, 0, the
// places where segments start in the part, then n (segment_count + 1 of
// them, as one process takes them: offsets[0] = 0 and offsets[count] = n
// frame the part, a repeated 0 is a head at its first element, empty
// segments change nothing). A part whose first element is no head (flag 0;
// offsets[1] > 0) continues the last segment of the ranks before it; the
// first rank's first element always starts one. Each rank runs the segmented
// scan of its part, MPI_Allgather brings every rank one pair (what its part
// does to a segment running into it, and a value), and each rank scans
// again, from its carry, only the elements before its first head (reverse:
// from its last head on); docs/distributed.md, "Segmented scans across
// ranks".
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

#include "scangen/dsl/spec.h"
#include "scangen/runtime/runtime.h"

namespace scangen::mpi {

class Scan {
 public:
  // Compiles, on this rank, the two builds of the spec the scan needs (not a
  // collective; every rank of `comm` must make the Scan from the same spec).
  // The spec: a flat device scan (inclusive, exclusive or both; init,
  // reverse, input conversion included), segmented by flags or offsets or
  // not, without segments = keys, a shape, fused input arrays or outputs,
  // outputs = aggregate or running_total, or a convert that reads the
  // element's index or its neighbours (a rank does not know them across its
  // part's ends). Others get a scangen::Error that says which of these it
  // has.
  Scan(Runtime& rt, const dsl::Spec& spec, MPI_Comm comm);
  Scan(Runtime& rt, const std::string& scan_text, MPI_Comm comm, const std::string& name = "");
  ~Scan();
  Scan(Scan&&) noexcept;
  Scan& operator=(Scan&&) noexcept;

  const dsl::Spec& spec() const;
  MPI_Comm comm() const;

  // Collective over comm: this rank's part of the scan of the whole array.
  // `part`: as for scangen::Scan::run, for this rank's n elements (in or
  // inputs, the outputs of the spec's mode, n, and a workspace and stream
  // or queue where wanted; a segmented spec's segment_flags, or
  // segment_offsets and segment_count, local to the part: above);
  // aggregate, running_total, segment aggregates and shapes are refused.
  // `total`, where given: one element of the spec's type in host memory,
  // which receives the whole array's total (without init); a segmented scan
  // takes none.
  void run(const scangen::Scan::CudaArgs& part, void* total = nullptr) const;
  void run(const scangen::Scan::OpenCLArgs& part, void* total = nullptr) const;

  // The two builds (their plans: `explain`, the tests).
  const scangen::Scan& reduce_build() const;
  const scangen::Scan& scan_build() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace scangen::mpi
