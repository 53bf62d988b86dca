# Writes version.h with the project version and git revision; rewrites the
# file only when the text changes, so an unchanged tree rebuilds nothing.
#
# git is asked only when SRC is the top of its own work tree. An exported
# tree (a release tarball, git archive) unpacked inside another repository
# would otherwise take that repository's commit for sweep's. Elsewhere the
# revision is "unknown", unless -DSWEEP_GIT_REV= (GIT_REV here) names it.
# SW_GIT_REV_FROM says where the revision came from, for --version.
if(GIT_REV)
  set(rev "${GIT_REV}")
  set(from "-DSWEEP_GIT_REV")
else()
  set(rev "unknown")
  set(from "none")
  execute_process(COMMAND git -C ${SRC} rev-parse --show-toplevel
    OUTPUT_VARIABLE top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND NOT top STREQUAL "")
    file(REAL_PATH "${top}" top)
    file(REAL_PATH "${SRC}" src_real)
    if(top STREQUAL src_real)
      execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
        OUTPUT_VARIABLE described OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
      if(rc EQUAL 0 AND NOT described STREQUAL "")
        set(rev "${described}")
        set(from "git")
      endif()
    endif()
  endif()
endif()
set(text "#define SW_VERSION \"${VERSION}\"\n#define SW_GIT_REV \"${rev}\"\n#define SW_GIT_REV_FROM \"${from}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
