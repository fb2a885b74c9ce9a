# kiln's source identity (src/cache/source_id.h): a SHA-256 over every source and
# header of the library, computed at build time. Included from the top-level
# CMakeLists.txt after the kiln target exists.
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
target_sources(kiln PRIVATE ${kiln_source_id_out})
