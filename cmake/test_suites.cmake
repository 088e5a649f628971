# One ctest entry per GoogleTest suite (`Suite`, run as `<binary> --gtest_filter=Suite.*`), read from the test
# files' TEST/TEST_F lines at configure time, in place of one process per test: a suite's SetUpTestSuite (a model
# written, a folder made) then runs once, not once per test, and a LibTorch process starts once a suite (231
# starts of ~0.3 s of CPU became ~60). The check below fails when the binary holds a test with no entry, so a
# test written in a way the scan misses cannot go unrun.
# A suite named in FMWORK_SPLIT_SUITES gets one entry per test instead (`Suite.Test`): one whose tests are each
# minutes of work (AOTInductor packages built), which one process would run one after the other on one core.
#   fmwork_add_test_suites(TARGET LABEL FILES...)   adds the entries, and <TARGET>.EverySuiteIsRun
function(fmwork_add_test_suites target label)
  set(suites)
  set(split_tests)
  foreach(file ${ARGN})
    file(STRINGS ${file} lines REGEX "^(TEST|TEST_F)\\([A-Za-z0-9_]+, *[A-Za-z0-9_]+\\)")
    foreach(line ${lines})
      string(REGEX REPLACE "^(TEST|TEST_F)\\(([A-Za-z0-9_]+), *([A-Za-z0-9_]+)\\).*" "\\2;\\3" pair "${line}")
      list(GET pair 0 suite)
      list(GET pair 1 test)
      list(APPEND suites ${suite})
      if(suite IN_LIST FMWORK_SPLIT_SUITES)
        list(APPEND split_tests ${suite}.${test})
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES suites)
  list(SORT suites)
  foreach(suite ${suites})
    if(suite IN_LIST FMWORK_SPLIT_SUITES)
      continue()
    endif()
    add_test(NAME ${suite} COMMAND ${target} --gtest_filter=${suite}.* --gtest_brief=1)
    set_tests_properties(${suite} PROPERTIES LABELS ${label})
  endforeach()
  foreach(name ${split_tests})
    add_test(NAME ${name} COMMAND ${target} --gtest_filter=${name} --gtest_brief=1)
    set_tests_properties(${name} PROPERTIES LABELS ${label})
  endforeach()
  set(list_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.txt)
  set(entries ${suites} ${split_tests})
  list(REMOVE_ITEM entries ${FMWORK_SPLIT_SUITES})
  string(REPLACE ";" "\n" text "${entries}")
  file(WRITE ${list_file} "${text}\n")
  add_test(NAME ${target}.EverySuiteIsRun
           COMMAND ${CMAKE_COMMAND} -DBINARY=$<TARGET_FILE:${target}> -DSUITES=${list_file}
                   -P ${CMAKE_SOURCE_DIR}/cmake/check_test_suites.cmake)
  set(FMWORK_SUITES_${target} ${suites} PARENT_SCOPE)
endfunction()
