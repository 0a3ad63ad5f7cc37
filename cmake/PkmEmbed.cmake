# pkm_embed_text(TARGET SYMBOL FILE HEADER): compiles the bytes of FILE into TARGET as
#   const unsigned char SYMBOL[] = {..., 0x00};   (NUL-terminated text)
# in a generated source that includes HEADER (which must declare SYMBOL). A byte array rather
# than a string literal: C11 only guarantees 4095-character literals (-Woverlength-strings) and
# bytes need no escaping. Editing FILE re-runs the configure step (CMAKE_CONFIGURE_DEPENDS), so
# the binary always carries the file of its source tree.
function(pkm_embed_text target symbol file header)
  get_filename_component(src ${file} ABSOLUTE)
  file(READ ${src} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n    " bytes "${bytes}")
  file(RELATIVE_PATH PKM_EMBED_SOURCE ${PROJECT_SOURCE_DIR} ${src})
  set(PKM_EMBED_SYMBOL ${symbol})
  set(PKM_EMBED_HEADER ${header})
  set(PKM_EMBED_BYTES "${bytes}")
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${symbol}.c)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/embed.c.in ${out} @ONLY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${src})
  target_sources(${target} PRIVATE ${out})
endfunction()
