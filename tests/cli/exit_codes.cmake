# The CLI's contract: 0 success, 1 a problem in the input, 2 an internal error.
function(expect_exit code)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL code)
    message(FATAL_ERROR "expected exit ${code}, got ${rc}: ${ARGN}\nstdout: ${out}\nstderr: ${err}")
  endif()
endfunction()

set(tmp "${CMAKE_CURRENT_BINARY_DIR}/exit_codes_tmp")
file(MAKE_DIRECTORY "${tmp}")
file(WRITE "${tmp}/nonassoc.scan" "scan minus { type = i32; combine(x, y) = x - y; identity = 0; }\n")
file(WRITE "${tmp}/badident.scan" "scan m { type = i32; combine(x, y) = x * y; identity = 0; }\n")
file(WRITE "${tmp}/syntax.scan" "scan s { type = i32 op = add; }\n")

expect_exit(0 ${SCANGEN} check ${SOURCE_DIR}/examples/prefix_sum.scan)
expect_exit(0 ${SCANGEN} explain ${SOURCE_DIR}/examples/affine.scan)
expect_exit(0 ${SCANGEN} explain --dump=ast ${SOURCE_DIR}/examples/affine.scan)
expect_exit(0 ${SCANGEN} --help)
expect_exit(1 ${SCANGEN} check ${tmp}/nonassoc.scan)
expect_exit(1 ${SCANGEN} check ${tmp}/badident.scan)
# assume_associative = true vouches for associativity alone: a wrong identity is still refused.
file(WRITE "${tmp}/minus_assumed.scan"
     "scan minus { type = i32; combine(x, y) = x - y; identity = 0; assume_associative = true; }\n")
expect_exit(1 ${SCANGEN} check ${tmp}/minus_assumed.scan)
expect_exit(1 ${SCANGEN} emit ${tmp}/minus_assumed.scan -o ${tmp}/minus_assumed.cu)
expect_exit(1 ${SCANGEN} check ${tmp}/syntax.scan)
expect_exit(1 ${SCANGEN} check ${tmp}/does-not-exist.scan)
expect_exit(1 ${SCANGEN} check)
expect_exit(1 ${SCANGEN} frobnicate)
expect_exit(0 ${SCANGEN} explain --dump=plan ${SOURCE_DIR}/examples/affine.scan)
expect_exit(1 ${SCANGEN} explain --dump=bogus ${SOURCE_DIR}/examples/affine.scan)
expect_exit(1 ${SCANGEN} explain --target metal ${SOURCE_DIR}/examples/affine.scan)

# emit: warp, block and device scans to a file or stdout.
file(WRITE "${tmp}/block.scan" "scan b { type = i32; op = add; level = block; }\n")
file(WRITE "${tmp}/cuda_only.scan" "scan w { type = u32; op = add; level = warp; algorithm = coalesced; targets = cuda; }\n")
expect_exit(0 ${SCANGEN} emit ${tmp}/block.scan -o ${tmp}/block.cu)
expect_exit(0 ${SCANGEN} emit --target opencl ${tmp}/block.scan -o ${tmp}/block.cl)
expect_exit(0 ${SCANGEN} emit ${SOURCE_DIR}/examples/matrix2x2.scan)
expect_exit(0 ${SCANGEN} emit --help)
expect_exit(1 ${SCANGEN} emit --target opencl ${tmp}/cuda_only.scan)
expect_exit(0 ${SCANGEN} emit ${SOURCE_DIR}/examples/affine.scan -o ${tmp}/affine.cu)
expect_exit(0 ${SCANGEN} emit --target opencl ${SOURCE_DIR}/examples/affine.scan -o ${tmp}/affine.cl)
expect_exit(1 ${SCANGEN} emit --target metal ${tmp}/block.scan)
expect_exit(1 ${SCANGEN} emit ${tmp}/syntax.scan)
expect_exit(1 ${SCANGEN} emit)
expect_exit(1 ${SCANGEN} emit --scan nope ${tmp}/block.scan)
expect_exit(1 ${SCANGEN} emit ${tmp}/block.scan -o ${tmp}/no-such-dir/x.cu)
# -o '' is no file name (only '-' is standard output).
execute_process(COMMAND ${SCANGEN} emit ${tmp}/block.scan -o "" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "-o needs a file name" OR NOT out STREQUAL "")
  message(FATAL_ERROR "emit -o '': exit ${rc}, stdout of ${out}, stderr: ${err}")
endif()
# A --seed past 2^64 - 1 is out of range, not "not a whole number".
execute_process(COMMAND ${SCANGEN} check --seed 99999999999999999999999 ${SOURCE_DIR}/examples/prefix_sum.scan
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "--seed takes a number up to 18446744073709551615")
  message(FATAL_ERROR "check --seed 99999999999999999999999: exit ${rc}, stderr: ${err}")
endif()
foreach(f block.cu block.cl)
  file(READ "${tmp}/${f}" text)
  if(NOT text MATCHES "b_scan_kernel" OR NOT text MATCHES "b_inclusive")
    message(FATAL_ERROR "scangen emit wrote no entry kernel or device function to ${f}")
  endif()
endforeach()
file(READ "${tmp}/affine.cu" text)
if(NOT text MATCHES "affine_recurrence_scan_kernel")
  message(FATAL_ERROR "scangen emit wrote no device scan kernel to affine.cu")
endif()
execute_process(COMMAND ${SCANGEN} explain ${SOURCE_DIR}/examples/matrix2x2.scan OUTPUT_VARIABLE out)
if(NOT out MATCHES "# plan of scan 'matrix_product' for opencl" OR NOT out MATCHES "lane exchange: shuffle")
  message(FATAL_ERROR "explain prints no plan:\n${out}")
endif()
expect_exit(1 ${SCANGEN} check --seed banana ${SOURCE_DIR}/examples/affine.scan)

# A file far larger than a scan file (sparse, 5 GiB) is refused before it is
# read, named or on standard input; text just over the bound too.
file(WRITE "${tmp}/huge.scan" "#")
execute_process(COMMAND truncate -s 5G "${tmp}/huge.scan" RESULT_VARIABLE rc)
if(rc EQUAL 0)
  foreach(input "${tmp}/huge.scan" "-")
    execute_process(COMMAND ${SCANGEN} check ${input} INPUT_FILE "${tmp}/huge.scan" RESULT_VARIABLE rc
                    ERROR_VARIABLE err TIMEOUT 60)
    if(NOT rc EQUAL 1 OR NOT err MATCHES "more than 4194304 bytes \\(4 MiB\\), the most a scan file holds")
      message(FATAL_ERROR "scangen check ${input} (5 GiB): expected exit 1 and the size bound, got ${rc}: ${err}")
    endif()
  endforeach()
  file(REMOVE "${tmp}/huge.scan")
endif()

# Standard output that cannot be written (a full disk): every command that
# prints fails, saying so, whether the write fails at once or at the flush.
if(EXISTS /dev/full)
  foreach(cmd "check;${SOURCE_DIR}/examples/prefix_sum.scan" "explain;${SOURCE_DIR}/examples/affine.scan"
              "list" "list;types" "emit;${SOURCE_DIR}/examples/affine.scan" "--version" "help")
    execute_process(COMMAND ${SCANGEN} ${cmd} OUTPUT_FILE /dev/full RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 1 OR NOT err MATCHES "cannot write to standard output")
      message(FATAL_ERROR "scangen ${cmd} > /dev/full: expected exit 1 and 'cannot write to standard output', "
                          "got ${rc}: ${err}")
    endif()
  endforeach()
endif()

# The counterexample names the seed, so a failure can be replayed.
execute_process(COMMAND ${SCANGEN} check --seed 42 ${tmp}/nonassoc.scan ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT err MATCHES "does not look associative" OR NOT err MATCHES "seed 42")
  message(FATAL_ERROR "the associativity failure does not name its values and seed:\n${err}")
endif()

# list: every group, or one.
expect_exit(0 ${SCANGEN} list)
expect_exit(0 ${SCANGEN} list algorithms)
expect_exit(0 ${SCANGEN} list --help)
expect_exit(1 ${SCANGEN} list bogus)
expect_exit(1 ${SCANGEN} list types levels)
execute_process(COMMAND ${SCANGEN} list algorithms OUTPUT_VARIABLE out)
if(NOT out MATCHES "decoupled_lookback \\* +device" OR NOT out MATCHES "kogge_stone_local +warp")
  message(FATAL_ERROR "list algorithms does not name every algorithm with its level:\n${out}")
endif()

# emit --header: the host wrappers, next to the source.
expect_exit(0 ${SCANGEN} emit ${SOURCE_DIR}/examples/affine.scan -o ${tmp}/affine_h.cu --header ${tmp}/affine_h.h)
expect_exit(0 ${SCANGEN} emit --target opencl ${tmp}/block.scan -o ${tmp}/block_h.cl --header ${tmp}/block_h.h)
expect_exit(1 ${SCANGEN} emit ${tmp}/block.scan -o ${tmp}/same.cu --header ${tmp}/same.cu)
expect_exit(1 ${SCANGEN} emit --opencl-builtins --header ${tmp}/builtins.h)
expect_exit(1 ${SCANGEN} emit ${tmp}/block.scan --header)
file(READ "${tmp}/affine_h.h" text)
if(NOT text MATCHES "cudaError_t affine_recurrence_inclusive\\(" OR NOT text MATCHES "affine_recurrence_workspace_bytes")
  message(FATAL_ERROR "emit --header wrote no wrapper to affine_h.h")
endif()
file(READ "${tmp}/block_h.h" text)
if(NOT text MATCHES "inline cl_int b_inclusive\\(cl_command_queue queue" OR NOT text MATCHES "b_scan_kernel")
  message(FATAL_ERROR "emit --target opencl --header wrote no wrapper or no source to block_h.h")
endif()

# compile: NVRTC where scangen was built with it, "unavailable" (exit 1) where not.
expect_exit(0 ${SCANGEN} compile --help)
expect_exit(1 ${SCANGEN} compile ${SOURCE_DIR}/examples/affine.scan)
expect_exit(1 ${SCANGEN} compile --arch banana ${SOURCE_DIR}/examples/affine.scan)
expect_exit(1 ${SCANGEN} compile --arch sm_90 ${tmp}/syntax.scan)
expect_exit(1 ${SCANGEN} compile --arch sm_90 --scan nope ${SOURCE_DIR}/examples/affine.scan)
execute_process(COMMAND ${SCANGEN} compile --arch compute_90 ${SOURCE_DIR}/examples/affine.scan -o ${tmp}/affine.ptx
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0)
  file(READ "${tmp}/affine.ptx" text)
  if(NOT text MATCHES "\\.entry affine_recurrence_scan_kernel")
    message(FATAL_ERROR "compile --arch compute_90 wrote no PTX of the scan kernel")
  endif()
  expect_exit(0 ${SCANGEN} compile --arch sm_90 ${SOURCE_DIR}/examples/own_kernel/block_sum.scan -o ${tmp}/block_sum.cubin)
  file(READ "${tmp}/block_sum.cubin" head LIMIT 4 HEX)
  if(NOT head STREQUAL "7f454c46")
    message(FATAL_ERROR "compile --arch sm_90 wrote no cubin (an ELF file): ${head}")
  endif()
  expect_exit(1 ${SCANGEN} compile --arch sm_1 ${SOURCE_DIR}/examples/affine.scan)
elseif(NOT rc EQUAL 1 OR NOT err MATCHES "unavailable")
  message(FATAL_ERROR "compile failed (exit ${rc}) otherwise than 'unavailable':\n${err}")
endif()

# Files: the OS's reason on a failure, no input overwritten, no planted name
# followed, devices written into and left as they are, directories refused.
function(expect_error code pattern)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL code OR NOT err MATCHES "${pattern}")
    message(FATAL_ERROR "expected exit ${code} and an error matching '${pattern}', got ${rc}: ${ARGN}\n"
                        "stdout: ${out}\nstderr: ${err}")
  endif()
endfunction()
set(io "${tmp}/io")
file(REMOVE_RECURSE "${io}")
file(MAKE_DIRECTORY "${io}")
file(COPY_FILE "${SOURCE_DIR}/examples/affine.scan" "${io}/affine.scan")
file(READ "${io}/affine.scan" spec_before)
expect_error(1 "cannot read '${io}/missing.scan': No such file or directory" ${SCANGEN} check ${io}/missing.scan)
expect_error(1 "cannot read '${io}': it is a directory" ${SCANGEN} check ${io})
expect_error(1 "cannot write '${io}/no-such-dir/x.cu': No such file or directory"
             ${SCANGEN} emit ${io}/affine.scan -o ${io}/no-such-dir/x.cu)
expect_error(1 "the output '${io}/affine.scan' is the input" ${SCANGEN} emit ${io}/affine.scan -o ${io}/affine.scan)
expect_error(1 "is the input" ${SCANGEN} emit ${io}/affine.scan --header ${io}/affine.scan -o ${io}/x.cu)
file(READ "${io}/affine.scan" spec_after)
if(NOT spec_after STREQUAL spec_before)
  message(FATAL_ERROR "scangen emit -o INPUT changed the input")
endif()
expect_error(1 "cannot write '${io}': it is a directory" ${SCANGEN} emit ${io}/affine.scan -o ${io})
# A link planted where the output's temporary file used to go (OUT.tmp).
file(WRITE "${io}/victim" "victim\n")
file(CREATE_LINK "${io}/victim" "${io}/out.cu.tmp" SYMBOLIC)
expect_exit(0 ${SCANGEN} emit ${io}/affine.scan -o ${io}/out.cu)
file(READ "${io}/victim" victim)
if(NOT victim STREQUAL "victim\n")
  message(FATAL_ERROR "scangen emit -o wrote through a link planted at OUT.tmp")
endif()
file(GLOB leftovers "${io}/.out.cu.scangen-*")
if(leftovers)
  message(FATAL_ERROR "scangen emit -o left temporary files: ${leftovers}")
endif()
# A device is written into, not replaced by a regular file.
expect_exit(0 ${SCANGEN} emit ${io}/affine.scan -o /dev/null)
execute_process(COMMAND test -c /dev/null RESULT_VARIABLE still_device)
if(NOT still_device EQUAL 0)
  message(FATAL_ERROR "scangen emit -o /dev/null replaced the device")
endif()

# No kernel from an operator that fails the check (emit, compile, and so
# scangen_generate), unless the spec says assume_associative = true and its
# identity holds.
expect_error(1 "no kernel is made from it" ${SCANGEN} emit ${tmp}/nonassoc.scan -o ${tmp}/nonassoc.cu)
expect_error(1 "no kernel is made from it" ${SCANGEN} compile --arch sm_90 ${tmp}/nonassoc.scan -o ${tmp}/nonassoc.cubin)
# (A true identity, 0, of a guarded subtraction that is not associative.)
file(WRITE "${tmp}/assumed.scan"
     "scan guarded { type = i32; combine(x, y) = x == 0 ? y : y == 0 ? x : x - y; identity = 0; "
     "assume_associative = true; }\n")
expect_exit(0 ${SCANGEN} emit ${tmp}/assumed.scan -o ${tmp}/assumed.cu)
expect_exit(1 ${SCANGEN} check ${tmp}/assumed.scan)  # check still reports

# --device: a name, and only with --arch (the tuning table's rows for a device are
# rows of its architecture); with both, the plan says whose entry it took.
expect_error(1 "--device needs --arch" ${SCANGEN} explain --device "NVIDIA H200" ${SOURCE_DIR}/examples/max.scan)
expect_error(1 "--device needs --arch" ${SCANGEN} emit --device "NVIDIA H200" ${SOURCE_DIR}/examples/max.scan)
expect_error(1 "--device takes the device's name" ${SCANGEN} emit --arch sm_90 --device= ${SOURCE_DIR}/examples/max.scan)
file(WRITE "${tmp}/f16_sum.scan" "scan f16_sum { type = f16; op = add; }\n")
execute_process(COMMAND ${SCANGEN} explain --dump=plan --arch sm_90 --device "NVIDIA H200" ${tmp}/f16_sum.scan
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "the tuning table's sm_90 entry for H200 devices" OR NOT out MATCHES "at least 10 blocks per SM")
  message(FATAL_ERROR "explain --arch sm_90 --device 'NVIDIA H200' (exit ${rc}) did not take the H200's entry:\n${out}${err}")
endif()

# --tuning: knobs over the table's entry, checked by name and range; explain shows the plan they make.
expect_error(1 "--tuning: unknown knob 'speed'" ${SCANGEN} emit --tuning speed=1 ${SOURCE_DIR}/examples/max.scan)
expect_error(1 "raw_tile must be 0 or 1" ${SCANGEN} explain --tuning raw_tile=2 ${SOURCE_DIR}/examples/max.scan)
execute_process(COMMAND ${SCANGEN} explain --dump=plan --target cuda --tuning "items=8"
                        ${SOURCE_DIR}/examples/max.scan
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "x 8 items")
  message(FATAL_ERROR "explain --tuning items=8 (exit ${rc}) did not plan 8 items a thread:\n${out}${err}")
endif()
