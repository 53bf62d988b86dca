# Writes version.h with the project version and git revision; rewrites the
# file only when the text changes, so an unchanged tree rebuilds nothing.
# A build from an export without .git names its revision with -DSWEEP_GIT_REV=.
if(GIT_REV)
  set(rev "${GIT_REV}")
else()
  execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
    OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR rev STREQUAL "")
    set(rev "unknown")
  endif()
endif()
set(text "#define SW_VERSION \"${VERSION}\"\n#define SW_GIT_REV \"${rev}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
