# The layer rule of docs/architecture.md, enforced by the compiler: each layer is an OBJECT library
# whose sources see only
#   - the public headers (include/pkm/) of its own layer and of the layers it links, through a
#     view of symbolic links <build>/layers/<layer>/public/pkm/*.h (PUBLIC include directory, so it
#     reaches exactly the layers above through their links);
#   - its own private headers <layer>/*_impl.h, through <build>/layers/<layer>/private/<layer>/
#     (PRIVATE: no other layer sees them);
#   - core/core_impl.h (PKM_FAIL and the small helpers every layer uses), in core's public view;
#   - a private header of a lower layer named as that layer's internal interface to it (FRIENDS).
# A source that includes a higher layer's header or another layer's *_impl.h fails to compile
# ("No such file or directory"). The source tree itself is on no layer's include path; the
# umbrella library pkmflex (its consumers: cli/, tests/, bench/) sees all of include/.
#
# Which layer a public header belongs to is listed once, in PKM_LAYER_HEADERS_<layer> (the top
# CMakeLists.txt); a header of include/pkm/ listed nowhere stops the configure step, naming it.

# pkm_add_layer(NAME SOURCES src... [LINKS lower-layer...] [FRIENDS dir/header_impl.h...]
#               [DEPS external-target...])
# Defines the OBJECT library pkm_<NAME>. LINKS: the layers directly below that it uses; DEPS:
# external libraries its sources (not its public headers) use.
function(pkm_add_layer name)
  cmake_parse_arguments(L "" "" "SOURCES;LINKS;FRIENDS;DEPS" ${ARGN})
  set(view ${PROJECT_BINARY_DIR}/layers/${name})
  file(REMOVE_RECURSE ${view})
  file(MAKE_DIRECTORY ${view}/public/pkm ${view}/private/${name})
  foreach(h IN LISTS PKM_LAYER_HEADERS_${name})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/include/pkm/${h} ${view}/public/pkm/${h} SYMBOLIC)
  endforeach()
  file(GLOB impl RELATIVE ${PROJECT_SOURCE_DIR}/${name} ${PROJECT_SOURCE_DIR}/${name}/*_impl.h)
  foreach(h IN LISTS impl)
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${name}/${h} ${view}/private/${name}/${h} SYMBOLIC)
  endforeach()
  foreach(f IN LISTS L_FRIENDS)
    get_filename_component(dir ${f} DIRECTORY)
    file(MAKE_DIRECTORY ${view}/private/${dir})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${f} ${view}/private/${f} SYMBOLIC)
  endforeach()
  if(name STREQUAL "core")
    file(MAKE_DIRECTORY ${view}/public/core)
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/core/core_impl.h ${view}/public/core/core_impl.h
      SYMBOLIC)
  endif()

  add_library(pkm_${name} OBJECT ${L_SOURCES})
  # The same objects make the static and the shared library (CMakeLists.txt).
  set_target_properties(pkm_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(pkm_${name} PUBLIC ${view}/public PRIVATE ${view}/private)
  target_compile_options(pkm_${name} PRIVATE ${PKM_WARNINGS})
  foreach(lower IN LISTS L_LINKS)
    target_link_libraries(pkm_${name} PUBLIC pkm_${lower})
  endforeach()
  foreach(dep IN LISTS L_DEPS)
    target_link_libraries(pkm_${name} PRIVATE ${dep})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY PKM_LAYERS pkm_${name})
endfunction()

# Every header of include/pkm/ must belong to exactly one layer.
function(pkm_check_layer_headers)
  file(GLOB all RELATIVE ${PROJECT_SOURCE_DIR}/include/pkm ${PROJECT_SOURCE_DIR}/include/pkm/*.h)
  set(listed "")
  foreach(layer IN LISTS ARGN)
    list(APPEND listed ${PKM_LAYER_HEADERS_${layer}})
  endforeach()
  foreach(h IN LISTS all)
    set(times 0)
    foreach(x IN LISTS listed)
      if(x STREQUAL h)
        math(EXPR times "${times} + 1")
      endif()
    endforeach()
    if(NOT times EQUAL 1)
      message(FATAL_ERROR "include/pkm/${h} is listed in ${times} layers: put it in exactly one "
        "PKM_LAYER_HEADERS_<layer> (CMakeLists.txt, docs/architecture.md)")
    endif()
  endforeach()
  list(REMOVE_ITEM listed ${all})
  if(listed)
    message(FATAL_ERROR "PKM_LAYER_HEADERS_* name headers that include/pkm/ lacks: ${listed}")
  endif()
endfunction()
