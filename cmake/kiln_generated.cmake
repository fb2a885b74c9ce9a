# Sources generated at build time, for the layers that own them.

# The text kiln pastes into generated code (targets/common/embedded_text.h): kiln's
# runtime math for every target, the cpu target's ABI and prelude, the cuda
# target's Hopper GEMM main loop and its operand staging kernels, the metal target's MSL prelude and its shim.
set(kiln_embedded_files
  ${PROJECT_SOURCE_DIR}/include/kiln/detail/kround.h
  ${PROJECT_SOURCE_DIR}/include/kiln/detail/kmath.h
  ${PROJECT_SOURCE_DIR}/src/targets/cpu/cpu_abi.h
  ${PROJECT_SOURCE_DIR}/src/targets/cpu/cpu_prelude.h
  ${PROJECT_SOURCE_DIR}/src/targets/cpu/cpu_lines.h
  ${PROJECT_SOURCE_DIR}/src/targets/cuda/emit_gemm_sm90.cuh
  ${PROJECT_SOURCE_DIR}/src/targets/cuda/operand_staging.cuh
  ${PROJECT_SOURCE_DIR}/src/targets/cuda/attention_sm90.cuh
  ${PROJECT_SOURCE_DIR}/src/targets/metal/msl/kiln_kf64.h
  ${PROJECT_SOURCE_DIR}/src/targets/metal/msl/kiln_metal.h
  ${PROJECT_SOURCE_DIR}/src/targets/metal/shim/metal_stdlib
  ${PROJECT_SOURCE_DIR}/src/targets/metal/harness/run.py)
set(kiln_embedded_h ${PROJECT_BINARY_DIR}/generated/targets/common/embedded_text.h)
set(kiln_embedded_cpp ${PROJECT_BINARY_DIR}/generated/targets/common/embedded_text.cpp)
string(REPLACE ";" "|" kiln_embedded_arg "${kiln_embedded_files}")
add_custom_command(
  OUTPUT ${kiln_embedded_h} ${kiln_embedded_cpp}
  COMMAND ${CMAKE_COMMAND} -DOUT_H=${kiln_embedded_h} -DOUT_CPP=${kiln_embedded_cpp} -DFILES=${kiln_embedded_arg}
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake
  DEPENDS ${kiln_embedded_files} ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake ${PROJECT_SOURCE_DIR}/cmake/write_if_changed.cmake
  COMMENT "Embedding the text kiln pastes into generated code"
  VERBATIM)
add_custom_target(kiln_embedded_text DEPENDS ${kiln_embedded_h} ${kiln_embedded_cpp})

# kiln's source identity (src/cache/source_id.h): a SHA-256 over every source and
# header of the library.
file(GLOB_RECURSE kiln_source_id_files CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/src/*.cpp ${PROJECT_SOURCE_DIR}/src/*.h ${PROJECT_SOURCE_DIR}/src/*.cuh
  ${PROJECT_SOURCE_DIR}/include/kiln/*)
list(SORT kiln_source_id_files)
set(kiln_source_id_out ${PROJECT_BINARY_DIR}/generated/cache/source_id.cpp)
string(REPLACE ";" "|" kiln_source_id_arg "${kiln_source_id_files}")
add_custom_command(
  OUTPUT ${kiln_source_id_out}
  COMMAND ${CMAKE_COMMAND} -DOUT=${kiln_source_id_out} -DFILES=${kiln_source_id_arg} -DROOT=${PROJECT_SOURCE_DIR}
          -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/source_id.cmake
  DEPENDS ${kiln_source_id_files} ${PROJECT_SOURCE_DIR}/cmake/source_id.cmake ${PROJECT_SOURCE_DIR}/cmake/write_if_changed.cmake
  COMMENT "Hashing kiln's sources (the cache's source identity)"
  VERBATIM)
