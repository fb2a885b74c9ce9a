# `kiln fuzz --compile-only` compiles a campaign's kernels into the disk cache and
# runs nothing; the campaign run later with --disk-cache finds every kernel there
# and files no new entry. Where NVRTC is installed the cuda target does the same
# with no device (compiled offline for sm_90a). Run as
#   cmake -DKILN=<kiln> -DOUT=<dir> -P check_fuzz_compile_only.cmake
set(cache ${OUT}/fuzz-compile-only-cache)
file(REMOVE_RECURSE ${cache})
set(ENV{KILN_CACHE_DIR} ${cache})
set(args fuzz --count 8 --seed 31 --batch 4 --jobs 2)

execute_process(COMMAND ${KILN} ${args} --targets interp,cpu --compile-only RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0 OR NOT out MATCHES "8 programs: 8 compiled \\(0 compiles rejected with an error, as their launches would be\\), 0 failed")
  message(FATAL_ERROR "--compile-only failed (${status}):\n${out}${err}")
endif()
file(GLOB compiled ${cache}/entries/*)
list(LENGTH compiled n_compiled)

execute_process(COMMAND ${KILN} ${args} --targets interp,cpu --disk-cache RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0 OR NOT out MATCHES "8 programs: 8 identical")
  message(FATAL_ERROR "the campaign after --compile-only failed (${status}):\n${out}${err}")
endif()
file(GLOB after ${cache}/entries/*)
list(LENGTH after n_after)
if(n_compiled EQUAL 0 OR NOT n_after EQUAL n_compiled)
  message(FATAL_ERROR "--compile-only filed ${n_compiled} entries, the campaign after it left ${n_after}")
endif()

# It runs nothing, so it shows nothing.
execute_process(COMMAND ${KILN} fuzz --count 1 --seed 31 --targets interp,cpu --compile-only --show RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT "${out}${err}" MATCHES "--compile-only runs nothing: it takes neither --show, --shrink nor --minimize")
  message(FATAL_ERROR "--compile-only --show (${status}):\n${out}${err}")
endif()

execute_process(COMMAND ${KILN} fuzz --count 4 --seed 6240001 --batch 4 --targets interp,cuda --compile-only RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if("${out}${err}" MATCHES "NVRTC")
  set(cuda "cuda: skipped (${err})")
elseif(NOT status EQUAL 0 OR NOT out MATCHES "4 programs: 4 compiled")
  message(FATAL_ERROR "--compile-only on cuda (${status}):\n${out}${err}")
else()
  set(cuda "cuda: 4 compiled")
endif()
message(STATUS "compile-only ok: ${n_compiled} entries, none added by the campaign; ${cuda}")
