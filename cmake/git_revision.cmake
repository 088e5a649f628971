# Writes OUT = a header defining FMWORK_GIT_REVISION (short hash, "-dirty" when tracked files changed),
# rewriting it only when the revision changed, so that a rebuild after a commit records the new one without
# recompiling anything else. Run at every build: cmake -DSOURCE_DIR=... -DOUT=... -P git_revision.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR NOT revision)
  set(revision unknown)
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    set(revision "${revision}-dirty")
  endif()
endif()
set(content "// Generated at build time by cmake/git_revision.cmake.\n#define FMWORK_GIT_REVISION \"${revision}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUT} "${content}")
endif()
