# The cpu target pastes kiln_rt (kround.h, kmath.h) and its own ABI and prelude
# headers into every generated source. Their text is embedded into the library at
# build time (an installed kiln needs no source tree); the build id also hashes
# the cpu target's sources. Included from the top-level CMakeLists.txt.
set(kiln_embed_files
  ${PROJECT_SOURCE_DIR}/src/targets/cpu/cpu_abi.h
  ${PROJECT_SOURCE_DIR}/include/kiln/detail/kround.h
  ${PROJECT_SOURCE_DIR}/include/kiln/detail/kmath.h
  ${PROJECT_SOURCE_DIR}/src/targets/cpu/cpu_prelude.h)
file(GLOB kiln_cpu_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/targets/cpu/*.cpp ${PROJECT_SOURCE_DIR}/src/targets/cpu/*.h)
set(kiln_embed_out ${PROJECT_BINARY_DIR}/generated/targets/cpu/embedded_text.cpp)
string(REPLACE ";" "|" kiln_embed_files_arg "${kiln_embed_files}")
string(REPLACE ";" "|" kiln_cpu_sources_arg "${kiln_cpu_sources}")
add_custom_command(
  OUTPUT ${kiln_embed_out}
  COMMAND ${CMAKE_COMMAND} -DOUT=${kiln_embed_out} -DFILES=${kiln_embed_files_arg} -DID_FILES=${kiln_cpu_sources_arg}
          -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake ${PROJECT_SOURCE_DIR}/cmake/write_if_changed.cmake
  DEPENDS ${kiln_embed_files} ${kiln_cpu_sources} ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake ${PROJECT_SOURCE_DIR}/cmake/write_if_changed.cmake
  COMMENT "Embedding the generated-code headers of the cpu target"
  VERBATIM)
target_sources(kiln PRIVATE ${kiln_embed_out})
