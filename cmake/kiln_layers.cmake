# kiln's library is built in layers, lowest first. Each layer is an object library
# over its folders and may include headers of the layers it names (directly; the
# layering test checks every #include), so the dependency graph is the list below
# and has no cycles: a layer can only name layers listed before it. The installed
# `kiln` library is all of them together.
#
#   kiln_layer(NAME FOLDERS f... USES layer...)
set(KILN_LAYERS "")
function(kiln_layer name)
  cmake_parse_arguments(L "" "" "FOLDERS;USES;GENERATED" ${ARGN})
  foreach(use ${L_USES})
    if(NOT use IN_LIST KILN_LAYERS)
      message(FATAL_ERROR "layer ${name} uses ${use}, which is not a layer listed before it")
    endif()
  endforeach()
  set(sources "")
  foreach(folder ${L_FOLDERS})
    file(GLOB found CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${folder}/*.cpp)
    list(APPEND sources ${found})
  endforeach()
  add_library(kiln_${name} OBJECT ${sources} ${L_GENERATED})
  target_include_directories(kiln_${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_BINARY_DIR}/generated
                                                  ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/lib
                                                  ${PROJECT_SOURCE_DIR}/third_party/dlpack/include)
  target_compile_features(kiln_${name} PRIVATE cxx_std_20)
  target_compile_options(kiln_${name} PRIVATE -Wall -Wextra -Werror=switch)
  target_compile_definitions(kiln_${name} PRIVATE KILN_VERSION="${PROJECT_VERSION}")
  set_target_properties(kiln_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  foreach(use ${L_USES})
    target_link_libraries(kiln_${name} PRIVATE kiln_${use})
  endforeach()
  add_dependencies(kiln_${name} kiln_embedded_text)  # a generated header some layers include
  list(APPEND KILN_LAYERS ${name})
  set(KILN_LAYERS ${KILN_LAYERS} PARENT_SCOPE)
  set(KILN_LAYER_${name}_FOLDERS ${L_FOLDERS} PARENT_SCOPE)
  set(KILN_LAYER_${name}_USES ${L_USES} PARENT_SCOPE)
endfunction()
