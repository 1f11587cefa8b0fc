# bv_gpu_compile_test(NAME SOURCE [INCLUDE_DIR...]): ctest tests that compile SOURCE, a GPU
# translation unit, for every target whose compiler this machine has (no GPU needed):
#   NAME/sm_90   nvcc -arch=sm_90a, host and device code
#   NAME/gfx90a  hipcc (HIP 5.2), host and device code
#   NAME/gfx942  clang-19, device code (-nogpulib: Debian's HIP device library is HIP 5.2's)
# The compilers are the ones gpu_backend/CMakeLists.txt finds (BV_NVCC, BV_HIPCC, BV_CLANG19).
# Labelled gpu-compile: `ctest -L gpu-compile` runs just these.
function(bv_gpu_compile_test name src)
  set(inc -I${PROJECT_SOURCE_DIR}/gpu_backend -I${PROJECT_SOURCE_DIR}/lang
          -I${PROJECT_SOURCE_DIR}/kernels)
  foreach(d ${ARGN})
    list(APPEND inc -I${d})
  endforeach()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/gpu_compile)
  file(MAKE_DIRECTORY ${out})
  string(REPLACE "/" "_" file ${name})
  set(tests)
  if(BV_NVCC)
    add_test(NAME ${name}/sm_90
             COMMAND ${BV_NVCC} -std=c++20 -arch=sm_90a -O3 --expt-relaxed-constexpr
                     -diag-suppress 20012,554 ${inc} -c ${src} -o ${out}/${file}.sm_90.o)
    list(APPEND tests ${name}/sm_90)
  endif()
  if(BV_HIPCC)
    add_test(NAME ${name}/gfx90a
             COMMAND ${BV_HIPCC} -std=c++20 -x hip --offload-arch=gfx90a -O3
                     -Wno-unused-command-line-argument ${inc} -c ${src} -o ${out}/${file}.gfx90a.o)
    list(APPEND tests ${name}/gfx90a)
  endif()
  if(BV_CLANG19)
    add_test(NAME ${name}/gfx942
             COMMAND ${BV_CLANG19} -std=c++20 -x hip --cuda-device-only --offload-arch=gfx942
                     -nogpulib -O3 -Wno-unused-command-line-argument ${inc} -S ${src}
                     -o ${out}/${file}.gfx942.s)
    list(APPEND tests ${name}/gfx942)
  endif()
  if(tests)
    file(MAKE_DIRECTORY ${out}/tmp)
    set_tests_properties(${tests} PROPERTIES LABELS gpu-compile TIMEOUT 900
                                             ENVIRONMENT TMPDIR=${out}/tmp)
  endif()
endfunction()
