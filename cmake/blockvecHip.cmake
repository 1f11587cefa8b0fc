# HIP builds of GPU translation units for AMD GPUs, host and device code, without CMake's HIP
# language: a kernel's device code for each architecture may need a different compiler.
#
#   blockvec_add_hip_executable(NAME SOURCES a.cu [b.cpp ...] [INCLUDES dir...] [OPTIONS flag...]
#                               [LINK target...])
#       An executable from GPU translation units (*.cu, *.hip: compiled here for every
#       architecture) and ordinary C++ sources (compiled by the host compiler), linked with the
#       HIP runtime.
#   blockvec_hip_object(OUT_VAR SOURCE [INCLUDES dir...] [OPTIONS flag...])
#       One GPU translation unit as a host object file that carries its device code for every
#       architecture (OUT_VAR gets the object's path, for add_library/add_executable).
#
# Settings (cache variables):
#   BLOCKVEC_HIP_ARCHS  the architectures (default gfx90a;gfx942: MI200, and MI300A, MI300X and
#                       MI325X; gfx940, an early MI300 that LLVM no longer supports, on request)
#   BV_HIPCC            hipcc: the host pass and every architecture it knows
#   BV_CLANG19          clang++-19: the architectures hipcc does not know (Debian 12's hipcc is HIP
#                       5.2 with clang 15, which predates gfx942; ROCm 6's hipcc knows it)
#
# How one translation unit is built (what `hipcc --offload-arch=A --offload-arch=B` does inside,
# done by hand so that two compilers can share it):
#   1. a device pass per architecture, `-x hip --cuda-device-only`, each a linked code object;
#   2. clang-offload-bundler puts them into one fat binary (targets hipv4-amdgcn-amd-amdhsa--ARCH);
#   3. hipcc's host pass (`--cuda-host-only -Xclang -fcuda-include-gpubinary FATBIN`) embeds it and
#      registers every kernel under its mangled name; the HIP runtime picks the code object of the
#      GPU it finds.
# Every pass gets the same -cuid=, which names the translation unit's static device symbols: with
# the driver's default (a hash of each invocation's options) the passes would disagree. Device
# code from clang-19 is built as code object version 4 for a HIP 5 runtime (clang-19's default,
# version 5, is not loaded by it).
#
# clang-19 links the ROCm device libraries (ocml, ockl: exp, sqrt, ...) that the HIP headers call.
# Debian's (rocm-device-libs 5.2) have every file gfx942 needs but its ISA-version constant,
# oclc_isa_version_942.bc, which holds one integer (9402); it is generated into the build tree,
# next to links to the installed files, and clang-19 reads that directory.
include_guard(GLOBAL)

set(BLOCKVEC_HIP_ARCHS "gfx90a;gfx942" CACHE STRING
    "AMD GPU architectures of a HIP build (gfx90a: MI200; gfx942: MI300A, MI300X, MI325X)")
find_program(BV_HIPCC hipcc HINTS /opt/rocm/bin)
find_program(BV_CLANG19 clang++-19)

# Finds what the HIP build needs, once; an architecture no compiler here can build is an error
# that names it.
function(_blockvec_hip_setup)
  get_property(done GLOBAL PROPERTY _blockvec_hip_ready)
  if(done)
    return()
  endif()
  if(NOT BV_HIPCC)
    message(FATAL_ERROR "A HIP build needs hipcc (Debian: apt-get install hipcc; ROCm: "
                        "/opt/rocm/bin/hipcc); set BV_HIPCC to its path")
  endif()
  execute_process(COMMAND ${BV_HIPCC} --version OUTPUT_VARIABLE ver ERROR_QUIET)
  string(REGEX MATCH "HIP version: ([0-9]+)\\.([0-9]+)" _ "${ver}")
  set(hip_major ${CMAKE_MATCH_1})
  string(REGEX MATCH "clang version ([0-9]+)" _ "${ver}")
  set(hipcc_clang_major ${CMAKE_MATCH_1})
  execute_process(COMMAND ${BV_HIPCC} -print-prog-name=clang-offload-bundler
                  OUTPUT_VARIABLE bundler OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT EXISTS "${bundler}")
    message(FATAL_ERROR "hipcc's clang-offload-bundler was not found ('${bundler}'; Debian: "
                        "apt-get install clang-tools-15)")
  endif()
  find_library(BV_AMDHIP64 amdhip64 HINTS /opt/rocm/lib)
  if(NOT BV_AMDHIP64)
    message(FATAL_ERROR "A HIP build needs the HIP runtime, libamdhip64 (Debian: apt-get install "
                        "libamdhip64-dev)")
  endif()
  # Which compiler builds each architecture's device code: hipcc where it knows the architecture.
  set(probe ${CMAKE_BINARY_DIR}/CMakeFiles/blockvec_hip_probe.hip)
  file(WRITE ${probe} "__global__ void probe() {}\n")
  set(archs_hipcc)
  set(archs_clang19)
  foreach(arch ${BLOCKVEC_HIP_ARCHS})
    execute_process(COMMAND ${BV_HIPCC} -x hip --cuda-device-only --offload-arch=${arch} -E ${probe}
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      list(APPEND archs_hipcc ${arch})
    elseif(BV_CLANG19)
      list(APPEND archs_clang19 ${arch})
    else()
      message(FATAL_ERROR "hipcc (${BV_HIPCC}) cannot build ${arch} and clang++-19 was not found: "
                          "install clang-19 (Debian), use a ROCm hipcc that knows ${arch}, or "
                          "leave it out of BLOCKVEC_HIP_ARCHS")
    endif()
  endforeach()
  set(clang19_flags)
  if(archs_clang19)
    # The device libraries hipcc links, with any ISA-version file clang-19's architectures lack.
    find_path(libs ocml.bc NO_CACHE
              PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/amdgcn/bitcode /opt/rocm/amdgcn/bitcode)
    if(NOT libs)
      message(FATAL_ERROR "The ROCm device libraries (ocml.bc) were not found (Debian: apt-get "
                          "install rocm-device-libs)")
    endif()
    set(dir ${CMAKE_BINARY_DIR}/hip_device_libs)
    file(MAKE_DIRECTORY ${dir})
    file(GLOB bcs ${libs}/*.bc)
    foreach(bc ${bcs})
      get_filename_component(n ${bc} NAME)
      file(CREATE_LINK ${bc} ${dir}/${n} SYMBOLIC)
    endforeach()
    foreach(arch ${archs_clang19})
      # gfxMNS: ISA version M*1000 + N*100 + S (gfx942: 9.4.2, 9402).
      string(REGEX MATCH "^gfx([0-9]+)([0-9a-f])([0-9a-f])$" _ ${arch})
      set(file ${dir}/oclc_isa_version_${CMAKE_MATCH_1}${CMAKE_MATCH_2}${CMAKE_MATCH_3}.bc)
      if(NOT CMAKE_MATCH_1 OR EXISTS ${file})
        continue()
      endif()
      math(EXPR v "${CMAKE_MATCH_1} * 1000 + 0x${CMAKE_MATCH_2} * 100 + 0x${CMAKE_MATCH_3}")
      file(WRITE ${dir}/isa_${arch}.ll
           "target triple = \"amdgcn-amd-amdhsa\"\n"
           "@__oclc_ISA_version = linkonce_odr protected local_unnamed_addr addrspace(4) "
           "constant i32 ${v}, align 4\n")
      execute_process(COMMAND ${BV_CLANG19} --target=amdgcn-amd-amdhsa -nogpulib -c -emit-llvm
                              ${dir}/isa_${arch}.ll -o ${file}
                      RESULT_VARIABLE rc ERROR_VARIABLE err)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "clang++-19 could not build ${file}: ${err}")
      endif()
    endforeach()
    set(clang19_flags --rocm-device-lib-path=${dir})
    # Kernels are registered by their mangled names, and clang 18 changed the mangling of a
    # template argument for an `auto` parameter (bv::launch's trampolines are template <auto K>):
    # clang-19 mangles as hipcc's clang does, or the runtime would not find those kernels.
    if(hipcc_clang_major AND hipcc_clang_major LESS 19)
      list(APPEND clang19_flags -fclang-abi-compat=${hipcc_clang_major})
    endif()
    if(hip_major AND hip_major LESS 6)
      list(APPEND clang19_flags -mcode-object-version=4)
    endif()
  endif()
  set_property(GLOBAL PROPERTY _blockvec_hip_archs_hipcc ${archs_hipcc})
  set_property(GLOBAL PROPERTY _blockvec_hip_archs_clang19 ${archs_clang19})
  set_property(GLOBAL PROPERTY _blockvec_hip_clang19_flags ${clang19_flags})
  set_property(GLOBAL PROPERTY _blockvec_hip_bundler ${bundler})
  set_property(GLOBAL PROPERTY _blockvec_hip_ready TRUE)
  message(STATUS "blockvec HIP build: ${archs_hipcc} by hipcc (HIP ${hip_major}.x)")
  if(archs_clang19)
    message(STATUS "blockvec HIP build: ${archs_clang19} by clang++-19 (${clang19_flags})")
  endif()
endfunction()

function(blockvec_hip_object out_var src)
  cmake_parse_arguments(A "" "" "INCLUDES;OPTIONS" ${ARGN})
  _blockvec_hip_setup()
  get_property(archs_hipcc GLOBAL PROPERTY _blockvec_hip_archs_hipcc)
  get_property(archs_clang19 GLOBAL PROPERTY _blockvec_hip_archs_clang19)
  get_property(clang19_flags GLOBAL PROPERTY _blockvec_hip_clang19_flags)
  get_property(bundler GLOBAL PROPERTY _blockvec_hip_bundler)
  get_filename_component(src ${src} ABSOLUTE)
  get_filename_component(stem ${src} NAME_WE)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/hip/${stem})
  file(MAKE_DIRECTORY ${dir})
  string(MD5 cuid ${dir})
  string(SUBSTRING ${cuid} 0 16 cuid)
  set(flags -std=c++20 -x hip -O3 -cuid=${cuid} -Wno-unused-command-line-argument ${A_OPTIONS})
  foreach(d ${A_INCLUDES})
    list(APPEND flags -I${d})
  endforeach()
  set(targets host-x86_64-unknown-linux)
  set(inputs -input=/dev/null)
  set(objects)
  foreach(arch ${archs_hipcc} ${archs_clang19})
    if(arch IN_LIST archs_hipcc)
      set(cc ${BV_HIPCC})
      set(extra)
      set(by hipcc)
    else()
      set(cc ${BV_CLANG19})
      set(extra ${clang19_flags})
      set(by clang++-19)
    endif()
    set(co ${dir}/${stem}.${arch}.co)
    add_custom_command(OUTPUT ${co}
      COMMAND ${cc} ${flags} ${extra} --cuda-device-only --no-gpu-bundle-output
              --offload-arch=${arch} -MD -MT ${co} -MF ${co}.d -c ${src} -o ${co}
      DEPENDS ${src} DEPFILE ${co}.d
      COMMENT "${by} ${arch}: ${stem} device code" VERBATIM)
    list(APPEND targets hipv4-amdgcn-amd-amdhsa--${arch})
    list(APPEND inputs -input=${co})
    list(APPEND objects ${co})
  endforeach()
  list(JOIN targets "," targets)
  set(fatbin ${dir}/${stem}.hipfb)
  add_custom_command(OUTPUT ${fatbin}
    COMMAND ${bundler} -type=o -bundle-align=4096 -targets=${targets} ${inputs} -output=${fatbin}
    DEPENDS ${objects}
    COMMENT "clang-offload-bundler: ${stem} fat binary (${BLOCKVEC_HIP_ARCHS})" VERBATIM)
  set(obj ${dir}/${stem}.o)
  # The host pass builds no device code, but hipcc without an architecture asks
  # rocm_agent_enumerator for the machine's GPUs (a traceback on a machine without one).
  set(host_arch)
  if(archs_hipcc)
    list(GET archs_hipcc 0 host_arch)
    set(host_arch --offload-arch=${host_arch})
  endif()
  add_custom_command(OUTPUT ${obj}
    COMMAND ${BV_HIPCC} ${flags} --cuda-host-only ${host_arch} -Xclang -fcuda-include-gpubinary -Xclang
            ${fatbin} -MD -MT ${obj} -MF ${obj}.d -c ${src} -o ${obj}
    DEPENDS ${src} ${fatbin} DEPFILE ${obj}.d
    COMMENT "hipcc: ${stem} host code" VERBATIM)
  set(${out_var} ${obj} PARENT_SCOPE)
endfunction()

function(blockvec_add_hip_executable name)
  cmake_parse_arguments(A "" "" "SOURCES;INCLUDES;OPTIONS;LINK" ${ARGN})
  if(NOT A_SOURCES)
    message(FATAL_ERROR "blockvec_add_hip_executable(${name}): no SOURCES")
  endif()
  if(NOT A_INCLUDES AND BLOCKVEC_HIP_INCLUDE_DIRS)
    set(A_INCLUDES ${BLOCKVEC_HIP_INCLUDE_DIRS})  # the installed package's headers
  endif()
  _blockvec_hip_setup()
  set(srcs)
  foreach(s ${A_SOURCES})
    if(s MATCHES "\\.(cu|hip)$")
      blockvec_hip_object(o ${s} INCLUDES ${A_INCLUDES} OPTIONS ${A_OPTIONS})
      list(APPEND srcs ${o})
    else()
      list(APPEND srcs ${s})
    endif()
  endforeach()
  add_executable(${name} ${srcs})
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE CXX)
  target_link_libraries(${name} PRIVATE ${A_LINK} ${BV_AMDHIP64})
endfunction()
