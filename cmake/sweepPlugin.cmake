# sweep_add_plugin(<target> SOURCES <files...>)
#
# Builds a sweep plug-in: a MODULE library <target>.so from .cu and .c files
# that include <sweep/family.h> and end in SW_PLUGIN(...). Load it with
# `sweep --plugin <target>.so` or the job key `plugins: [<target>.so]`.
# The library is position independent, links sweep::family (the header and
# the shared cudart, as sweep itself does), hides every symbol but
# `sweep_plugin`, and leaves sw_fill_uniform and the other functions the
# header declares to be resolved from the sweep executable at load time.
# CUDA code is built for the architectures sweep was built for
# (SWEEP_CUDA_ARCHITECTURES); set the target's CUDA_ARCHITECTURES after the
# call to choose others. A project with .cu sources must enable CUDA
# (project(... LANGUAGES C CXX CUDA)).
function(sweep_add_plugin target)
  cmake_parse_arguments(PARSE_ARGV 1 SWP "" "" "SOURCES")
  if(NOT SWP_SOURCES)
    message(FATAL_ERROR "sweep_add_plugin(${target}): no SOURCES given")
  endif()
  if(SWP_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "sweep_add_plugin(${target}): unknown arguments ${SWP_UNPARSED_ARGUMENTS}")
  endif()
  get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
  foreach(src IN LISTS SWP_SOURCES)
    if(src MATCHES "\\.cu$" AND NOT "CUDA" IN_LIST langs)
      message(FATAL_ERROR "sweep_add_plugin(${target}): ${src} needs CUDA: "
        "project(... LANGUAGES C CXX CUDA)")
    endif()
  endforeach()
  add_library(${target} MODULE ${SWP_SOURCES})
  target_link_libraries(${target} PRIVATE sweep::family)
  # C++20 for the designated initialisers of descriptor tables in .cu files.
  set_target_properties(${target} PROPERTIES
    C_STANDARD 11
    CUDA_STANDARD 20
    CXX_STANDARD 20
    PREFIX ""
    POSITION_INDEPENDENT_CODE ON
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    CUDA_RUNTIME_LIBRARY Shared)
  if(SWEEP_CUDA_ARCHITECTURES)
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${SWEEP_CUDA_ARCHITECTURES}")
  endif()
endfunction()
