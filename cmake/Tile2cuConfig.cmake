# Tile2cuConfig.cmake: find_package(Tile2cu) support for tile2cu.
#
#   find_package(Tile2cu REQUIRED)
#   add_executable(app main.cu)
#   tile2cu_add_kernels(app FILES kernels/a.tl kernels/b.tl [TARGET_ARCH sm_90] [HOST]
#                       [OPTIONS --line ...])
#
# Each .tl becomes ${CMAKE_CURRENT_BINARY_DIR}/tile2cu/NAME.cu through a custom
# command that reruns tile2cu when the .tl, the tile2cu executable or the target
# config (through tile2cu's depfile) changes. The .cu is added to the target's
# sources and the runtime header's directory to its include path. HOST also
# emits the tile2cu_launch_NAME() launchers (--host) and their declarations in
# tile2cu/include/NAME.h (--header), and puts that directory on the include path.
#
# Installed, this file lives in PREFIX/lib/cmake/Tile2cu and finds PREFIX/bin/tile2cu.
# From a source tree, point Tile2cu_DIR at its cmake/ directory: it then finds
# ../build/tile2cu. Either way, -DTILE2CU_EXECUTABLE=/path/to/tile2cu overrides.
#
# Sets: Tile2cu_FOUND, TILE2CU_EXECUTABLE (cache), Tile2cu_INCLUDE_DIR (the
# directory holding tile2cu/rt.cuh), Tile2cu_VERSION (from the version file),
# and the imported executable Tile2cu::tile2cu.
include_guard(GLOBAL)

if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../translator/main.c")
  get_filename_component(_tile2cu_bindir "${CMAKE_CURRENT_LIST_DIR}/../build" ABSOLUTE) # source tree
else()
  get_filename_component(_tile2cu_bindir "${CMAKE_CURRENT_LIST_DIR}/../../../bin" ABSOLUTE) # PREFIX/lib/cmake/Tile2cu
endif()
find_program(TILE2CU_EXECUTABLE tile2cu HINTS "${_tile2cu_bindir}" DOC "the tile2cu translator")

if(NOT TILE2CU_EXECUTABLE)
  set(Tile2cu_FOUND FALSE)
  set(Tile2cu_NOT_FOUND_MESSAGE
      "tile2cu was not found in ${_tile2cu_bindir} or on PATH; set TILE2CU_EXECUTABLE")
  return()
endif()

# tile2cu --includes prints -IDIR: the installed include dir, or the source tree's rt/.
execute_process(COMMAND "${TILE2CU_EXECUTABLE}" --includes
  OUTPUT_VARIABLE _tile2cu_inc RESULT_VARIABLE _tile2cu_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _tile2cu_rc EQUAL 0 OR NOT _tile2cu_inc MATCHES "^-I")
  set(Tile2cu_FOUND FALSE)
  set(Tile2cu_NOT_FOUND_MESSAGE "${TILE2CU_EXECUTABLE} --includes failed (${_tile2cu_rc})")
  return()
endif()
string(REGEX REPLACE "^-I" "" Tile2cu_INCLUDE_DIR "${_tile2cu_inc}")

if(NOT TARGET Tile2cu::tile2cu)
  add_executable(Tile2cu::tile2cu IMPORTED GLOBAL)
  set_target_properties(Tile2cu::tile2cu PROPERTIES IMPORTED_LOCATION "${TILE2CU_EXECUTABLE}")
endif()

# The target's sm_XX from its CUDA_ARCHITECTURES when that names one architecture
# (90a, 90a-real: sm_90a).
function(_tile2cu_arch_of target out)
  get_target_property(archs ${target} CUDA_ARCHITECTURES)
  set(${out} "" PARENT_SCOPE)
  list(LENGTH archs n)
  if(n EQUAL 1 AND archs MATCHES "^([0-9]+a?)")
    set(${out} "sm_${CMAKE_MATCH_1}" PARENT_SCOPE)
  endif()
endfunction()

function(tile2cu_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 T2C "HOST" "TARGET_ARCH" "FILES;OPTIONS")
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tile2cu_add_kernels: '${target}' is not a target")
  endif()
  if(NOT T2C_FILES)
    message(FATAL_ERROR "tile2cu_add_kernels(${target}): FILES a.tl ... is required")
  endif()
  if(T2C_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tile2cu_add_kernels(${target}): unexpected arguments: ${T2C_UNPARSED_ARGUMENTS}")
  endif()
  set(arch "${T2C_TARGET_ARCH}")
  if(NOT arch)
    _tile2cu_arch_of(${target} arch)
  endif()
  set(flags ${T2C_OPTIONS})
  if(arch)
    list(APPEND flags --target ${arch})
  endif()
  set(outdir "${CMAKE_CURRENT_BINARY_DIR}/tile2cu")
  set(hdir "${outdir}/include")
  file(MAKE_DIRECTORY "${hdir}")
  # DEPFILE: Ninja always; Makefile generators from CMake 3.20.
  set(use_depfile FALSE)
  if(CMAKE_GENERATOR MATCHES "Ninja" OR
     (CMAKE_GENERATOR MATCHES "Makefiles" AND NOT CMAKE_VERSION VERSION_LESS 3.20))
    set(use_depfile TRUE)
  endif()
  foreach(tl IN LISTS T2C_FILES)
    get_filename_component(tl "${tl}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(name "${tl}" NAME_WE)
    set(cu "${outdir}/${name}.cu")
    set(outputs "${cu}")
    set(args ${flags})
    if(T2C_HOST)
      list(APPEND args --host --header "${hdir}/${name}.h")
      list(APPEND outputs "${hdir}/${name}.h")
    endif()
    set(dep_args)
    if(use_depfile)
      list(APPEND args --deps "${cu}.d")
      set(dep_args DEPFILE "${cu}.d")
    endif()
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND "${TILE2CU_EXECUTABLE}" ${args} "${tl}" -o "${cu}"
      DEPENDS "${tl}" "${TILE2CU_EXECUTABLE}"
      ${dep_args}
      COMMENT "tile2cu ${name}.tl -> ${name}.cu"
      VERBATIM)
    target_sources(${target} PRIVATE ${outputs})
  endforeach()
  target_include_directories(${target} PRIVATE "${Tile2cu_INCLUDE_DIR}")
  if(T2C_HOST)
    target_include_directories(${target} PUBLIC "${hdir}")
  endif()
endfunction()

set(Tile2cu_FOUND TRUE)
