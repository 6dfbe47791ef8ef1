# scangen_generate() tracks the C++ headers a spec imports: the project in
# generate_deps/ is built, then a header that the imported header includes
# is edited, and the next build must generate the kernels again (scangen
# emit --depfile, CMake's DEPFILE); a build with nothing changed must not.
# Run for Ninja and, where there is make, Unix Makefiles.
#   cmake -DSCANGEN=... -DSOURCE_DIR=... -DWORK_DIR=... -P generate_deps.cmake
function(write_headers scale)
  file(WRITE "${project}/ops.h" "#pragma once\n#include \"inc/scale.h\"\nstruct Op {\n"
             "  static constexpr int identity = -SCALE;\n"
             "  int operator()(int x, int y) const { return x + y + SCALE; }\n};\n")
  file(WRITE "${project}/inc/scale.h" "#pragma once\n#define SCALE ${scale}\n")
endfunction()

function(build expect_emit)
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${build_dir}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${generator}: the build failed:\n${out}")
  endif()
  string(FIND "${out}" "scangen emit ops.scan" at)
  if(expect_emit AND at EQUAL -1)
    message(FATAL_ERROR "${generator}: the kernels were not generated again:\n${out}")
  elseif(NOT expect_emit AND NOT at EQUAL -1)
    message(FATAL_ERROR "${generator}: the kernels were generated again with nothing changed:\n${out}")
  endif()
endfunction()

function(expect_scale scale)
  file(READ "${build_dir}/scangen/ops/ops.cl" cl)
  string(FIND "${cl}" "${scale}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${generator}: ops.cl does not use SCALE = ${scale}")
  endif()
endfunction()

set(generators Ninja)
find_program(MAKE_PROGRAM make)
if(MAKE_PROGRAM)
  list(APPEND generators "Unix Makefiles")
endif()
foreach(generator IN LISTS generators)
  string(REPLACE " " "_" dir "${generator}")
  set(project "${WORK_DIR}/${dir}/project")
  set(build_dir "${WORK_DIR}/${dir}/build")
  file(REMOVE_RECURSE "${WORK_DIR}/${dir}")
  file(MAKE_DIRECTORY "${project}/inc")
  file(COPY "${SOURCE_DIR}/tests/cxx/generate_deps/CMakeLists.txt" "${SOURCE_DIR}/tests/cxx/generate_deps/ops.cpp"
       DESTINATION "${project}")
  file(WRITE "${project}/ops.scan" "import \"ops.h\";\nscan ops { combine = Op; level = block; }\n")
  write_headers(12345)
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${project}" -B "${build_dir}" -G "${generator}"
                          "-DSCANGEN=${SCANGEN}" "-DSCANGEN_CMAKE_DIR=${SOURCE_DIR}/cmake"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${generator}: configuring failed:\n${out}")
  endif()
  build(TRUE)
  expect_scale(12345)
  build(FALSE)
  # The file system's clock may be coarse: the edit must be newer than the output.
  execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 1.1)
  write_headers(54321)
  build(TRUE)
  expect_scale(54321)
  build(FALSE)
endforeach()
