# Configures tests/consumer/bad_call, which must fail, and checks that every
# wrong scangen_generate() call said what is wrong.
#   cmake -DSOURCE_DIR=... -DBINARY_DIR=... -Dscangen_DIR=... -DGENERATOR=... -P bad_calls.cmake
file(REMOVE_RECURSE "${BINARY_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}"
                        "-Dscangen_DIR=${scangen_DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}\n${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "the project with wrong scangen_generate() calls configured without an error:\n${all}")
endif()
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${all}")  # CMake wraps long messages
set(expected
  "scangen_generate needs TARGET <target>"
  "there is no target 'no_such_target'; create it with add_executable"
  "scangen_generate(TARGET app) needs SPECS with at least one .scan file."
  "unknown backend 'metal'; BACKENDS takes cuda and/or opencl."
  "BACKENDS cuda generates .cu files, which need the CUDA language"
  "the spec 'missing.scan' does not exist"
  "two specs are called 'sum'"
  "unexpected arguments 'app'")
set(missing 0)
foreach(sentence IN LISTS expected)
  string(FIND "${flat}" "${sentence}" at)
  if(at EQUAL -1)
    message(SEND_ERROR "no message '${sentence}'")
    set(missing 1)
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "scangen_generate() did not report every wrong call; the configuration said:\n${all}")
endif()
message(STATUS "every wrong scangen_generate() call was reported")
