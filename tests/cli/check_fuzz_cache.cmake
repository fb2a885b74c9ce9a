# `kiln fuzz` keeps the programs' kernels in the process: the disk cache gets no
# entry from a campaign, unless --disk-cache asks for it. Run as
#   cmake -DKILN=<kiln> -DOUT=<dir> -P check_fuzz_cache.cmake
set(cache ${OUT}/fuzz-cache)
file(REMOVE_RECURSE ${cache})
set(ENV{KILN_CACHE_DIR} ${cache})
set(args fuzz --count 4 --seed 31 --targets interp,cpu)

execute_process(COMMAND ${KILN} ${args} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0 OR NOT out MATCHES "4 programs: 4 identical")
  message(FATAL_ERROR "the campaign failed (${status}):\n${out}${err}")
endif()
file(GLOB entries ${cache}/entries/*)
list(LENGTH entries n)
if(NOT n EQUAL 0)
  message(FATAL_ERROR "a campaign filed ${n} entries in the disk cache: ${entries}")
endif()

execute_process(COMMAND ${KILN} ${args} --disk-cache RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(GLOB entries ${cache}/entries/*)
list(LENGTH entries n)
if(NOT status EQUAL 0 OR n EQUAL 0)
  message(FATAL_ERROR "with --disk-cache (${status}): ${n} entries:\n${out}${err}")
endif()
message(STATUS "no entries from a campaign, ${n} with --disk-cache")
