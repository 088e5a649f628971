# ctest <binary>.EverySuiteIsRun (cmake/test_suites.cmake): every test the GoogleTest binary lists has a ctest
# entry (its suite's, or its own). Run as cmake -DBINARY=<binary> -DSUITES=<the configured list> -P check_test_suites.cmake.
execute_process(COMMAND ${BINARY} --gtest_list_tests OUTPUT_VARIABLE listed RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${BINARY} --gtest_list_tests failed (${failed})")
endif()
file(STRINGS ${SUITES} configured)
string(REPLACE "\n" ";" lines "${listed}")
set(missing)
set(suite "")
foreach(line ${lines})
  if(line MATCHES "^([A-Za-z0-9_]+)\\.$")
    set(suite ${CMAKE_MATCH_1})
  elseif(line MATCHES "^  ([A-Za-z0-9_]+)")
    # A test runs under its suite's entry, or under an entry of its own (a split suite).
    if(NOT suite IN_LIST configured AND NOT "${suite}.${CMAKE_MATCH_1}" IN_LIST configured)
      list(APPEND missing ${suite}.${CMAKE_MATCH_1})
    endif()
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "tests with no ctest entry (cmake/test_suites.cmake reads TEST(Suite, Name) and "
                      "TEST_F(Suite, Name) on one line at the start of a line): ${missing}; reconfigure, or write "
                      "them that way")
endif()
list(LENGTH configured n)
message(STATUS "every test of ${BINARY} has its ctest entry (${n} entries)")
