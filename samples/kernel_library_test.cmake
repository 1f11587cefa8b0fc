# Installs the main build into a fresh prefix, builds samples/kernel_library against it and runs
# its tests, then the installed blockvec on the library it built: list and run find its kernel,
# a size it refuses and a path that is no library exit 2 with their messages.
# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... [-DGENERATOR=...] -P kernel_library_test.cmake
foreach(v BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT ${v})
    message(FATAL_ERROR "kernel_library_test.cmake: pass -D${v}=...")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kernel-library sample: ${what} failed (${rc}): ${ARGN}")
  endif()
endfunction()

# blockvec ARGS...: its exit status must be `status` and its output (stdout and stderr) match
# every regular expression in EXPECT.
function(blockvec_expect status)
  cmake_parse_arguments(arg "" "" "ARGS;EXPECT" ${ARGN})
  execute_process(COMMAND ${prefix}/bin/blockvec ${arg_ARGS} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}${err}")
  if(NOT rc EQUAL status)
    message(FATAL_ERROR "blockvec ${arg_ARGS}: exit ${rc}, expected ${status}:\n${all}")
  endif()
  foreach(re IN LISTS arg_EXPECT)
    if(NOT all MATCHES "${re}")
      message(FATAL_ERROR "blockvec ${arg_ARGS}: output lacks /${re}/:\n${all}")
    endif()
  endforeach()
  message(STATUS "blockvec ${arg_ARGS}: exit ${rc} as expected")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

set(configure_args -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix}
                   -DCMAKE_BUILD_TYPE=Release)
if(GENERATOR)
  list(APPEND configure_args -G ${GENERATOR})
endif()
if(CXX_COMPILER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(COMPILER_LAUNCHER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${COMPILER_LAUNCHER})
endif()
run("configure" ${CMAKE_COMMAND} ${configure_args})
run("build" ${CMAKE_COMMAND} --build ${WORK_DIR}/build -j2)
run("test" ${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/build --output-on-failure)

set(lib ${WORK_DIR}/build/row_center.so)
blockvec_expect(0 ARGS list --lib ${lib}
                EXPECT "(^|\n)add +vector add" "\nrow_center +each row minus its mean.*--size ROWS,COLS, default 100x1000")
blockvec_expect(0 ARGS run row_center --lib ${lib} --size 37,1001 --seed 3
                EXPECT "kernel +row_center" "size +37x1001 +seed 3" "programs +37 in 1 launch"
                       "matches the reference" "diagnostics none")
blockvec_expect(0 ARGS run row_center --lib ${lib} --json --seed 3
                EXPECT "\"match\": true" "\"ok\": true" "\"programs\": 100")
blockvec_expect(2 ARGS run row_center --lib ${lib} --size 3,5000
                EXPECT "does not take --size 3x5000: COLS above 4096 does not fit one block")
blockvec_expect(2 ARGS run row_center --lib ${WORK_DIR}/no-such.so
                EXPECT "--lib .*no-such.so: no such file")
blockvec_expect(2 ARGS list --lib ${lib} --lib ${lib}
                EXPECT "kernel 'row_center' has the name of a kernel already loaded")
message(STATUS "kernel-library sample: built, tested and run by blockvec against ${prefix}")
