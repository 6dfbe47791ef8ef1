# scangen_find_cuda_toolkit([find_package arguments...])
#
# find_package(CUDAToolkit ...) that also works with Debian 12's CMake 3.25.1.
# That release's FindCUDAToolkit marks CUDA::nvToolsExt deprecated, without
# checking that the target exists, whenever the calling project requires CMake
# 3.25 or newer; CUDA 13 has no nvToolsExt, so configuring fails with
# "set_property could not find TARGET CUDA::nvToolsExt". CMake reads the
# required version from CMAKE_MINIMUM_REQUIRED_VERSION, so it is lowered to
# 3.24 for the duration of the call (which only skips that deprecation notice)
# and put back afterwards. Later CMake releases check the target themselves.
#
# A macro, not a function: the imported targets and CUDAToolkit_* variables
# must land in the caller's scope, as find_package's would.
macro(scangen_find_cuda_toolkit)
  set(_scangen_cuda_min_required "${CMAKE_MINIMUM_REQUIRED_VERSION}")
  if(CMAKE_VERSION VERSION_LESS 3.26 AND CMAKE_MINIMUM_REQUIRED_VERSION VERSION_GREATER_EQUAL 3.25)
    set(CMAKE_MINIMUM_REQUIRED_VERSION 3.24)
  endif()
  find_package(CUDAToolkit ${ARGN})
  set(CMAKE_MINIMUM_REQUIRED_VERSION "${_scangen_cuda_min_required}")
  unset(_scangen_cuda_min_required)
endmacro()
