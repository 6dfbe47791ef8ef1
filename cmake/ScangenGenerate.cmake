# scangen_generate(TARGET <target> SPECS <file.scan>... [BACKENDS cuda opencl] [OUTPUT_DIR <dir>])
#
# Generates scan kernels and their host wrappers at build time with the
# scangen program (scangen::scangen) and adds them to <target>. For each spec
# S.scan and backend:
#
#   cuda     S.cu        the kernels and the wrappers' definitions, compiled with <target>
#            S_cuda.h    the wrappers' declarations, for any C++ compiler
#   opencl   S.cl        the OpenCL C source
#            S_opencl.h  the wrappers, with S.cl embedded (header-only)
#
# written to OUTPUT_DIR (default: ${CMAKE_CURRENT_BINARY_DIR}/scangen/<target>),
# which becomes a PUBLIC include directory of <target>. One custom command
# per spec and backend runs `scangen emit S.scan --target B -o S.cu --header
# S_cuda.h --depfile S_cuda.d` again whenever the spec, a C++ header it
# imports (`import "ops.h";`, listed in the depfile) or the scangen program
# changes.
#
# BACKENDS: cuda and opencl when the CUDA language is enabled, opencl alone
# otherwise. A wrong call stops the configuration (SEND_ERROR) with a sentence
# saying what is wrong. docs/cli.md describes the generated functions.

function(scangen_generate)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET;OUTPUT_DIR" "SPECS;BACKENDS")
  if(arg_UNPARSED_ARGUMENTS)
    list(JOIN arg_UNPARSED_ARGUMENTS " " unknown)
    message(SEND_ERROR "scangen_generate: unexpected arguments '${unknown}'; it takes TARGET <target>, "
                       "SPECS <file.scan>..., and optionally BACKENDS cuda|opencl... and OUTPUT_DIR <dir>.")
    return()
  endif()
  if(arg_KEYWORDS_MISSING_VALUES)
    list(JOIN arg_KEYWORDS_MISSING_VALUES ", " missing)
    message(SEND_ERROR "scangen_generate: ${missing} given without a value.")
    return()
  endif()
  if(NOT arg_TARGET)
    message(SEND_ERROR "scangen_generate needs TARGET <target>: the target to add the generated files to.")
    return()
  endif()
  set(target "${arg_TARGET}")
  if(NOT TARGET "${target}")
    message(SEND_ERROR "scangen_generate: there is no target '${target}'; create it with add_executable() or "
                       "add_library() before calling scangen_generate(TARGET ${target} ...).")
    return()
  endif()
  get_target_property(aliased "${target}" ALIASED_TARGET)
  if(aliased)
    set(target "${aliased}")
  endif()
  get_target_property(imported "${target}" IMPORTED)
  get_target_property(type "${target}" TYPE)
  if(imported OR type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
    message(SEND_ERROR "scangen_generate: target '${arg_TARGET}' cannot take sources (it is imported, an interface "
                       "library or a custom target); pass an executable or a library built here.")
    return()
  endif()
  if(NOT arg_SPECS)
    message(SEND_ERROR "scangen_generate(TARGET ${arg_TARGET}) needs SPECS with at least one .scan file.")
    return()
  endif()

  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(arg_BACKENDS)
    set(backends ${arg_BACKENDS})
    list(REMOVE_DUPLICATES backends)
  elseif("CUDA" IN_LIST languages)
    set(backends cuda opencl)
  else()
    set(backends opencl)
  endif()
  foreach(backend IN LISTS backends)
    if(NOT backend MATCHES "^(cuda|opencl)$")
      message(SEND_ERROR "scangen_generate(TARGET ${arg_TARGET}): unknown backend '${backend}'; BACKENDS takes "
                         "cuda and/or opencl.")
      return()
    endif()
  endforeach()
  if("cuda" IN_LIST backends AND NOT "CUDA" IN_LIST languages)
    message(SEND_ERROR "scangen_generate(TARGET ${arg_TARGET}): BACKENDS cuda generates .cu files, which need the "
                       "CUDA language; call enable_language(CUDA) first, or generate only BACKENDS opencl.")
    return()
  endif()
  if(NOT TARGET scangen::scangen)
    message(SEND_ERROR "scangen_generate: the scangen program (target scangen::scangen) is unknown; call "
                       "find_package(scangen CONFIG REQUIRED) first.")
    return()
  endif()

  if(arg_OUTPUT_DIR)
    cmake_path(ABSOLUTE_PATH arg_OUTPUT_DIR BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE
               OUTPUT_VARIABLE out_dir)
  else()
    set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/scangen/${target}")
  endif()

  set(stems)
  set(specs)
  foreach(spec IN LISTS arg_SPECS)
    cmake_path(ABSOLUTE_PATH spec BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE spec_path)
    if(NOT EXISTS "${spec_path}" OR IS_DIRECTORY "${spec_path}")
      message(SEND_ERROR "scangen_generate(TARGET ${arg_TARGET}): the spec '${spec}' does not exist "
                         "(looked for ${spec_path}).")
      return()
    endif()
    cmake_path(GET spec_path STEM LAST_ONLY stem)
    if(stem IN_LIST stems)
      message(SEND_ERROR "scangen_generate(TARGET ${arg_TARGET}): two specs are called '${stem}', and their "
                         "outputs would collide; rename one, or generate it with another OUTPUT_DIR.")
      return()
    endif()
    list(APPEND stems "${stem}")
    list(APPEND specs "${spec_path}")
  endforeach()

  file(MAKE_DIRECTORY "${out_dir}")
  set(outputs)
  foreach(spec_path stem IN ZIP_LISTS specs stems)
    foreach(backend IN LISTS backends)
      if(backend STREQUAL "cuda")
        set(source "${out_dir}/${stem}.cu")
      else()
        set(source "${out_dir}/${stem}.cl")
      endif()
      set(header "${out_dir}/${stem}_${backend}.h")
      # The depfile lists the C++ headers the spec imports (and what they
      # include): editing the operator regenerates the kernels.
      set(depfile "${out_dir}/${stem}_${backend}.d")
      add_custom_command(
        OUTPUT "${source}" "${header}"
        COMMAND scangen::scangen emit "${spec_path}" --target ${backend} -o "${source}" --header "${header}"
                --depfile "${depfile}"
        DEPENDS "${spec_path}" "$<TARGET_FILE:scangen::scangen>"
        DEPFILE "${depfile}"
        COMMENT "scangen emit ${stem}.scan --target ${backend}"
        VERBATIM)
      list(APPEND outputs "${source}" "${header}")
    endforeach()
  endforeach()
  target_sources("${target}" PRIVATE ${outputs})
  target_include_directories("${target}" PUBLIC "$<BUILD_INTERFACE:${out_dir}>")
endfunction()
