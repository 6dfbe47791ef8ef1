// OpenCL 2.0 work-group functions for OpenCL C 1.2 devices (PoCL 3.1 and
// others): `scangen emit --opencl-builtins` writes emit_opencl_builtins()'s
// text, an OpenCL C 1.2 file (no #include) that defines
//
//   work_group_reduce_{add,min,max}(x)
//   work_group_scan_inclusive_{add,min,max}(x)
//   work_group_scan_exclusive_{add,min,max}(x)
//
// for x of type int, uint, long, ulong, float, double (where cl_khr_fp64 is
// defined; the file enables it) and half (where cl_khr_fp16 is defined; the
// file enables it), with OpenCL 2.0's meaning (section 6.13.15): scan order is
// work-item order (the linear local id, get_local_id(0) +
// get_local_id(1) * get_local_size(0) + ... in 2-D and 3-D work-groups), the
// exclusive scan of work-item 0 is the identity (add: 0; min: the type's
// largest value, +INFINITY for floating point; max: the type's smallest,
// -INFINITY), every work-item of the work-group gets its result, and every
// work-item must make the call (uniform control flow). Integer add wraps
// (computed unsigned, so there is no signed-overflow undefined behaviour);
// floating-point min and max are fmin and fmax. Floating-point add is
// summed segment by segment, not strictly left to right, as OpenCL 2.0
// allows.
//
// Use: prepend the file to a kernel written for OpenCL 2.0 and add one line,
// `SCANGEN_WORK_GROUP_SCRATCH;`, at the outermost scope of each kernel that
// (directly or through helper functions) calls a work-group function.
//
// Why that line: the functions exchange values through local memory, and
// OpenCL C 1.2 lets only a kernel declare it: clang (PoCL 3.1's compiler,
// clang 15) rejects a __local variable in a non-kernel function ("non-kernel
// function variable cannot be declared in local address space"), at program
// scope ("program scope variable must reside in constant address space"), as
// a static local ("static local variable must reside in constant address
// space") and in an inner block of a kernel ("variables in the local address
// space can only be declared in the outermost scope of a kernel function"),
// whatever -cl-std is given, so neither a function nor a macro can bring its
// own. The line declares the scratch array (`scangen_wg_scratch`) in the
// kernel; the work-group functions are function-like macros with the
// built-ins' names that pass it to overloaded (__attribute__((overloadable)))
// implementations named scangen_wg_*. A kernel that lacks the line fails to
// compile with
//
//   error: 'scangen_wg_scratch' is unavailable: the OpenCL 2.0 work-group
//   functions need the line SCANGEN_WORK_GROUP_SCRATCH; at the outermost scope
//   of the kernel ...
//
// A helper function that calls them takes SCANGEN_WORK_GROUP_SCRATCH_PARAM as
// a parameter and is passed SCANGEN_WORK_GROUP_SCRATCH_ARG.
//
// No name clashes: PoCL 3.1's kernel library defines no work_group_scan_* /
// work_group_reduce_* (under -cl-std=CL2.0 its header declares them, but a
// call fails to link; the file's macros take precedence over those
// declarations, so such a program builds too), and the file's own
// functions, types and macros are named scangen_wg_* / SCANGEN_WG_*.
//
// Algorithm: raking. Each work-item stores its value in the scratch array,
// 32 work-items (SCANGEN_WG_RAKERS) each scan a segment of consecutive
// values, work-item 0 scans the segments' totals, and each work-item
// combines its segment's prefix with its value: four barriers per call (per
// chunk).
// Work-groups larger than the scratch array (SCANGEN_WG_SCRATCH_ITEMS, 1024
// unless defined before the file) are taken in chunks of that many
// work-items, in order, with a carry, so any work-group size and shape
// works; the array takes (SCANGEN_WG_SCRATCH_ITEMS + SCANGEN_WG_RAKERS + 1)
// * 8 bytes of local memory. Each call ends with a barrier after its last
// read of the array, so calls may follow each other without a barrier
// between them.
//
// Two things PoCL 3.1 needs, both explained in the file: the loops that
// contain barriers are do-while loops, so that no path skips a barrier (PoCL
// replicates the code after a conditional barrier, so that a kernel with a
// handful of calls could take minutes to compile), and the functions are
// always_inline (a kernel calling a static function with barriers twice
// crashes its compiler otherwise).
#pragma once

#include <string>

namespace scangen::generator {

// The OpenCL C source described above; the same text on every call.
std::string emit_opencl_builtins();

}  // namespace scangen::generator
