# `scangen emit --header`: the host wrappers of every example and of
# host_wrappers.scan (every shape of wrapper), for both targets, compile
# cleanly: every header in one C++ translation unit (-Wall -Wextra -Wpedantic
# -Wshadow -Wconversion -Werror), and, where nvcc is, every generated .cu in
# one CUDA translation unit (-Werror all-warnings).
#
#   cmake -DSCANGEN=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX=... [-DNVCC=...] [-DCUDA_INCLUDE=...]
#         [-DOPENCL_INCLUDE=...] -P host_wrappers.cmake
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (exit ${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(GLOB specs "${SOURCE_DIR}/examples/*.scan" "${SOURCE_DIR}/examples/own_kernel/*.scan"
     "${SOURCE_DIR}/examples/select/*.scan" "${SOURCE_DIR}/examples/inputs/*.scan")
list(APPEND specs "${SOURCE_DIR}/tests/cli/host_wrappers.scan")

set(cuda_sources "")
set(cuda_headers "")
set(opencl_headers "")
foreach(spec IN LISTS specs)
  get_filename_component(stem "${spec}" NAME_WE)
  run(${SCANGEN} emit "${spec}" --target cuda -o "${WORK_DIR}/${stem}.cu" --header "${WORK_DIR}/${stem}_cuda.h")
  run(${SCANGEN} emit "${spec}" --target opencl -o "${WORK_DIR}/${stem}.cl" --header "${WORK_DIR}/${stem}_opencl.h")
  string(APPEND cuda_sources "#include \"${stem}.cu\"\n")
  string(APPEND cuda_headers "#include \"${stem}_cuda.h\"\n")
  string(APPEND opencl_headers "#include \"${stem}_opencl.h\"\n")
endforeach()

# What the text must hold: the CUDA definitions after the kernels, skipped by NVRTC.
file(READ "${WORK_DIR}/host_wrappers.cu" cu)
file(READ "${WORK_DIR}/host_wrappers_cuda.h" cuh)
file(READ "${WORK_DIR}/host_wrappers_opencl.h" clh)
# (From 128 tiles on sm_90 and later a look-back call zeroes its workspace with the scan's zero
# kernel and launches the scan as its programmatic dependent.)
foreach(want "#ifndef __CUDACC_RTC__" "cudaError_t dev_all_inclusive_exclusive(const dev_all_In* in"
             "dev_rts_reduce_kernel<<<" "dev_rts_spine_kernel<<<1, " "dev_all_scan_kernel<<<"
             "if (blocks >= 128) {" "dev_all_zero_workspace<<<zero_blocks, 256, 0, stream>>>"
             "cudaLaunchAttributeProgrammaticStreamSerialization" "cudaLaunchKernelEx(&config, dev_all_scan_kernel, ")
  string(FIND "${cu}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "host_wrappers.cu holds no '${want}'")
  endif()
endforeach()
# reduce_then_scan has no statuses to zero.
string(FIND "${cu}" "dev_rts_zero_workspace" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "host_wrappers.cu holds a zero kernel for the reduce_then_scan scan")
endif()
foreach(want "size_t dev_all_workspace_bytes(int64_t n);"
             "cudaError_t blk_inclusive_exclusive(const blk_In* in, blk_T* inclusive, blk_T* exclusive, blk_T* aggregates, blk_T* running_total, int64_t n, cudaStream_t stream = 0);"
             "cudaError_t wrp_exclusive(const wrp_In* in, wrp_T* out, wrp_T* aggregates, int64_t n, cudaStream_t stream = 0);")
  string(FIND "${cuh}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "host_wrappers_cuda.h holds no '${want}'")
  endif()
endforeach()
foreach(want "inline cl_int dev_bytes_inclusive(cl_command_queue queue, cl_mem in, cl_mem out, cl_mem running_total, int64_t n, cl_mem workspace)"
             "inline cl_int dev_all_build(cl_context context, std::string* log = nullptr)"
             "-cl-fp32-correctly-rounded-divide-sqrt")
  string(FIND "${clh}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "host_wrappers_opencl.h holds no '${want}'")
  endif()
endforeach()

set(warnings -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror)
set(includes "-I${WORK_DIR}")
if(CUDA_INCLUDE)
  file(WRITE "${WORK_DIR}/cuda_headers.cpp" "${cuda_headers}int main() { return 0; }\n")
  run(${CXX} -std=c++17 ${warnings} ${includes} "-I${CUDA_INCLUDE}" -fsyntax-only "${WORK_DIR}/cuda_headers.cpp")
endif()
if(OPENCL_INCLUDE)
  file(WRITE "${WORK_DIR}/opencl_headers.cpp" "${opencl_headers}int main() { return 0; }\n")
  set(opencl_flag "-I${OPENCL_INCLUDE}")
  if(OPENCL_INCLUDE STREQUAL "/usr/include")
    set(opencl_flag "")  # a system directory: -I would reorder the C++ library's headers
  endif()
  run(${CXX} -std=c++11 ${warnings} ${includes} ${opencl_flag} -fsyntax-only "${WORK_DIR}/opencl_headers.cpp")
endif()
if(NVCC)
  # Every generated source in one translation unit, then every header again (no-ops).
  file(WRITE "${WORK_DIR}/all.cu" "${cuda_sources}${cuda_headers}")
  run(${NVCC} -arch=sm_90 -std=c++17 --Werror all-warnings "-Xcompiler=-Wall,-Wextra,-Wshadow,-Wconversion"
      ${includes} -c "${WORK_DIR}/all.cu" -o "${WORK_DIR}/all.o")
endif()
