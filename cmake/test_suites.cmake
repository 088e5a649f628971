# One ctest entry per GoogleTest suite (`Suite`, run as `<binary> --gtest_filter=Suite.*`), read from the test
# files' TEST/TEST_F lines at configure time, in place of one process per test: a suite's SetUpTestSuite (a model
# written, a folder made) then runs once, not once per test, and a LibTorch process starts once a suite (231
# starts of ~0.3 s of CPU became ~60). The check below fails when the binary holds a suite with no entry, so a
# suite written in a way the scan misses cannot go unrun.
#   fmwork_add_test_suites(TARGET LABEL FILES...)   adds the entries, and <TARGET>.EverySuiteIsRun
function(fmwork_add_test_suites target label)
  set(suites)
  foreach(file ${ARGN})
    file(STRINGS ${file} lines REGEX "^(TEST|TEST_F)\\([A-Za-z0-9_]+,")
    foreach(line ${lines})
      string(REGEX REPLACE "^(TEST|TEST_F)\\(([A-Za-z0-9_]+),.*" "\\2" suite "${line}")
      list(APPEND suites ${suite})
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES suites)
  list(SORT suites)
  foreach(suite ${suites})
    add_test(NAME ${suite} COMMAND ${target} --gtest_filter=${suite}.* --gtest_brief=1)
    set_tests_properties(${suite} PROPERTIES LABELS ${label})
  endforeach()
  set(list_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.txt)
  string(REPLACE ";" "\n" text "${suites}")
  file(WRITE ${list_file} "${text}\n")
  add_test(NAME ${target}.EverySuiteIsRun
           COMMAND ${CMAKE_COMMAND} -DBINARY=$<TARGET_FILE:${target}> -DSUITES=${list_file}
                   -P ${CMAKE_SOURCE_DIR}/cmake/check_test_suites.cmake)
  set(FMWORK_SUITES_${target} ${suites} PARENT_SCOPE)
endfunction()
