# `kiln tune NAME` tunes each case, checks the choice against the reference, and keeps
# the choices: a second run in a new process times nothing. Run as
#   cmake -DKILN=<kiln> -DOUT=<dir> -P check_tune.cmake
set(cache ${OUT}/tune-cache)
file(REMOVE_RECURSE ${cache})
set(ENV{KILN_CACHE_DIR} ${cache})
set(args tune gemm_bf16 --target cpu --size small --reps 2 --warmup 1 --seed 7)

function(count_matches text pattern out)
  string(REGEX MATCHALL "${pattern}" found "${text}")
  list(LENGTH found n)
  set(${out} ${n} PARENT_SCOPE)
endfunction()

execute_process(COMMAND ${KILN} ${args} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "first run failed (${status}):\n${out}${err}")
endif()
count_matches("${err}" "\\[[0-9]/6\\] bm=" progress)     # a line per candidate per case
count_matches("${out}" "against the reference: err/bound [0-9.e+-]+ ok" checked)
count_matches("${out}" "kept choice" kept)
if(NOT progress EQUAL 18 OR NOT checked EQUAL 3 OR NOT kept EQUAL 0)
  message(FATAL_ERROR "first run: ${progress} progress lines (want 18), ${checked} checked cases (3), ${kept} kept (0):\n${out}${err}")
endif()

execute_process(COMMAND ${KILN} ${args} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
count_matches("${err}" "\\[[0-9]/6\\] bm=" progress)
# (A match must hold no ';': CMake would split it into two list elements.)
count_matches("${out}" "\\(kept choice, nothing timed\\)" kept)
count_matches("${out}" "against the reference: err/bound [0-9.e+-]+ ok" checked)
if(NOT status EQUAL 0 OR NOT progress EQUAL 0 OR NOT kept EQUAL 3 OR NOT checked EQUAL 3)
  message(FATAL_ERROR "second run: status ${status}, ${progress} progress lines (want 0), ${kept} kept choices (3):\n${out}${err}")
endif()

# --retune times again.
execute_process(COMMAND ${KILN} ${args} --retune RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
count_matches("${err}" "\\[[0-9]/6\\] bm=" progress)
if(NOT status EQUAL 0 OR NOT progress EQUAL 18)
  message(FATAL_ERROR "--retune: status ${status}, ${progress} progress lines (want 18):\n${out}${err}")
endif()
file(REMOVE_RECURSE ${cache})
message("tune ok")
