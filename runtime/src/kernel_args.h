// Where a call's arguments meet the kernel ABI (generator::ParamRole), for
// both backends: the buffers a call passes with the bytes its kernels touch
// in them (what the backends check), and each kernel parameter's value by
// its role (what they launch with). Args is Scan::CudaArgs or
// Scan::OpenCLArgs: their fields have the same names, and their buffers
// (device pointers, cl_mem) go to the kernels as they lie.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime_impl.h"

namespace scangen::runtime::detail {

// check(buffer, what, count, element_bytes, element_type) for every buffer
// argument of the call that a kernel reads or writes (null ones included:
// check skips them), with the elements the call touches in it. The
// workspace is not here: each backend sizes its own or checks the caller's.
template <class Args, class Check>
void for_each_buffer(const generator::Plan& p, const Args& a, const Call& call, Check&& check) {
  const std::string t = p.spec.type.name(), in_t = p.spec.input.name();
  check(a.in, std::string("input"), call.in_count, p.input_bytes, in_t);
  for (size_t k = 0; k < p.arrays.size(); ++k)
    check(a.inputs[k], "input array '" + p.spec.convert->params[k] + "'", call.in_count, p.arrays[k].bytes,
          (*p.spec.input_arrays)[k].name());
  check(a.inclusive, std::string("inclusive"), call.out_count, p.element_bytes, t);
  check(a.exclusive, std::string("exclusive"), call.out_count, p.element_bytes, t);
  check(a.aggregate, std::string("aggregate"), call.aggregate_count, p.element_bytes, t);
  check(a.running_total, std::string("running_total"), static_cast<uint64_t>(1), p.element_bytes, t);
  for (size_t k = 0; k < p.fused_outputs.size(); ++k) {
    const generator::Plan::FusedOutput& o = p.fused_outputs[k];
    check(k == 0 ? a.scattered : a.named_scattered[k - 1], o.name, call.out_count,
          static_cast<uint64_t>(o.element.size()), o.element.name());
  }
  // Segmented scans (the aggregates of flags and keys count segments the host does not know).
  const generator::Plan::Segmented& g = p.segmented;
  check(a.segment_flags, std::string("segment_flags"), a.n, static_cast<uint64_t>(1), std::string("u8"));
  check(a.keys, std::string("keys"), a.n, static_cast<uint64_t>(g.key_bytes), std::string(dsl::to_string(p.spec.key)));
  if (g.form == dsl::Segments::Offsets)
    check(a.segment_offsets, std::string("segment_offsets"), a.segment_count + 1, static_cast<uint64_t>(g.offset_bytes),
          std::string(dsl::to_string(p.spec.offset)));
  check(a.segment_aggregates, std::string("segment_aggregates"), segment_aggregates_capacity(p, a.segment_count, a.n),
        p.element_bytes, t);
}

// Each kernel parameter's argument by its role: its size and where its
// value lies, for cuLaunchKernel's parameter array or clSetKernelArg.
// Workspace is the backend's handle of the call's workspace. The values
// stay where they are (in the Args, in this object) while it lives.
template <class Args, class Workspace>
class KernelArgs {
 public:
  using Arg = std::pair<size_t, const void*>;

  KernelArgs(const generator::Plan& p, const Args& a, const Call& call, Workspace workspace)
      : p_(p), a_(a), call_(call), ws_(workspace), n_(a.n), segment_count_(a.segment_count) {
    shape_values_.reserve(16);  // the shape roles' values, one per parameter: never moved
  }

  Workspace* workspace() { return &ws_; }

  Arg operator()(const generator::KernelParam& param) {
    using generator::ParamRole;
    switch (param.role) {
      case ParamRole::Input:
        return of(a_.in);
      case ParamRole::InputArray:
        return of(a_.inputs.at(static_cast<size_t>(param.array)));
      case ParamRole::Inclusive:
        return of(a_.inclusive);
      case ParamRole::Exclusive:
        return of(a_.exclusive);
      case ParamRole::Aggregate:
      case ParamRole::Aggregates:
        return of(a_.aggregate);
      case ParamRole::RunningTotal:
        return of(a_.running_total);
      case ParamRole::Count:
        return of(n_);
      case ParamRole::Workspace:
      case ParamRole::Partials:
        return of(ws_);
      case ParamRole::SegmentAggregates:
        return of(a_.segment_aggregates);
      case ParamRole::SegmentFlags:
        return of(a_.segment_flags);
      case ParamRole::SegmentOffsets:
        return of(a_.segment_offsets);
      case ParamRole::SegmentCount:
        return of(segment_count_);
      case ParamRole::SegmentKeys:
        return of(a_.keys);
      case ParamRole::Scattered:
        return param.dim == 0 ? of(a_.scattered) : of(a_.named_scattered.at(static_cast<size_t>(param.dim) - 1));
      case ParamRole::Rows:
      case ParamRole::Length:
      case ParamRole::InRowStride:
      case ParamRole::OutRowStride:
      case ParamRole::Extent:
      case ParamRole::InStride:
      case ParamRole::OutStride:
      case ParamRole::AxisLanes:
        if (shape_values_.size() == shape_values_.capacity()) break;
        shape_values_.push_back(call_.shape.value(param));
        return of(shape_values_.back());
    }
    fail("scan '" + p_.spec.name + "': a kernel parameter of no known role (" + generator::to_string(param.role) + ")");
  }

 private:
  template <class T>
  static Arg of(const T& value) {
    return {sizeof value, &value};
  }

  const generator::Plan& p_;
  const Args& a_;
  const Call& call_;
  Workspace ws_;
  uint64_t n_, segment_count_;
  std::vector<uint64_t> shape_values_;
};

}  // namespace scangen::runtime::detail
