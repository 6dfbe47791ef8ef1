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
  // reverse, input conversion and input arrays included) without segments,
  // a shape, fused outputs, outputs = aggregate or running_total, or a
  // convert that reads the element's index or its neighbours (a rank does
  // not know them across its part's ends). Others get a scangen::Error that
  // says which of these it has.
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
  // or queue where wanted); aggregate, running_total, segments and shapes
  // are refused. `total`, where given: one element of the spec's type in
  // host memory, which receives the whole array's total (without init).
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
