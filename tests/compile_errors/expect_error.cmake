# Compiles SRC with COMPILER and FLAGS (a ;-list) and passes when the compile fails and its first
# error line carries the sentence of SRC's first line ("// expect: SENTENCE").
#   cmake -DCOMPILER=... -DFLAGS=... -DSRC=... -P expect_error.cmake
file(STRINGS ${SRC} first LIMIT_COUNT 1)
string(REGEX REPLACE "^// expect: " "" expect "${first}")
execute_process(COMMAND ${COMPILER} ${FLAGS} ${SRC} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SRC} compiled, but it breaks a rule and must stop with:\n  ${expect}")
endif()
string(REPLACE "\n" ";" lines "${out}\n${err}")
foreach(line IN LISTS lines)
  if(line MATCHES "error:")
    string(FIND "${line}" "${expect}" at)
    if(at LESS 0)
      message(FATAL_ERROR "${SRC}: the first error is not the rule's sentence.\n"
                          "expected: ${expect}\nfirst error: ${line}\n\n${err}")
    endif()
    message(STATUS "first error: ${line}")
    return()
  endif()
endforeach()
message(FATAL_ERROR "${SRC} failed without an error line:\n${out}\n${err}")
