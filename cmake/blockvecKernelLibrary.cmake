# blockvec_add_kernel_library(NAME SOURCES...): builds a kernel library, a shared object of your
# own kernels that `blockvec list|run|bench|demo --lib NAME.so` and blockvec-viewer's Live tab
# load (docs/viewer.md, "Kernel libraries"). With the installed package:
#   find_package(blockvec REQUIRED)
#   blockvec_add_kernel_library(my_kernels my_kernels.cpp)
# then `blockvec list --lib ./my_kernels.so`.
#
# The library gets blockvec's headers (and Eigen's and Boost's) but does NOT link the interpreter
# library: the program that loads it exports its own interpreter, and the library's launches must
# run on that one (one set of options and checks, one stop handler, one trace), not on a private
# copy. BV_KERNEL_LIBRARY_BUILD makes bv/kernel_library.hpp export the library's entries.
#
# Where the AMD emulator is part of the build (blockvec's own tree), the same sources are also
# built as NAME.amd-emu.so beside NAME.so (target NAME_amd_emu): emulated translation units
# (BV_AMD_EMU, the emulator's access instrumentation), whose bv/bv.hpp is the GPU language and
# whose launches run in the AMD emulator. `blockvec run K --lib NAME.so --backend amd-emu` finds it
# there. Like the interpreter, the emulator is not linked in: the blockvec command exports its
# own, so that the library's launches, the instrumentation's calls and the command's counters all
# meet in one emulator.
function(_blockvec_kernel_library_headers name)
  foreach(t ${ARGN})
    if(NOT TARGET ${t})
      continue()
    endif()
    get_target_property(real ${t} ALIASED_TARGET)  # in blockvec's own tree these are aliases
    if(NOT real)
      set(real ${t})
    endif()
    target_include_directories(${name} SYSTEM PRIVATE
                               $<TARGET_PROPERTY:${real},INTERFACE_INCLUDE_DIRECTORIES>)
    target_compile_definitions(${name} PRIVATE
                               $<TARGET_PROPERTY:${real},INTERFACE_COMPILE_DEFINITIONS>)
  endforeach()
endfunction()

function(blockvec_add_kernel_library name)
  if(NOT ARGN)
    message(FATAL_ERROR "blockvec_add_kernel_library(${name}): no source files")
  endif()
  set(deps blockvec::kernels blockvec::interp blockvec::lang Eigen3::Eigen Boost::headers
           Boost::context)
  add_library(${name} MODULE ${ARGN})
  set_target_properties(${name} PROPERTIES PREFIX "" CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON)
  target_compile_definitions(${name} PRIVATE BV_KERNEL_LIBRARY_BUILD=1)
  _blockvec_kernel_library_headers(${name} ${deps})

  if(TARGET blockvec::emu)
    get_target_property(emu blockvec::emu ALIASED_TARGET)
    if(NOT emu)
      set(emu blockvec::emu)
    endif()
    add_library(${name}_amd_emu MODULE ${ARGN})
    set_target_properties(${name}_amd_emu PROPERTIES
      PREFIX "" CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON
      OUTPUT_NAME "$<TARGET_FILE_BASE_NAME:${name}>.amd-emu"
      LIBRARY_OUTPUT_DIRECTORY "$<TARGET_FILE_DIR:${name}>")
    _blockvec_kernel_library_headers(${name}_amd_emu ${emu} ${deps})
    # What the caller gives NAME afterwards (its own include directories and definitions) holds
    # for the emulated build too.
    target_include_directories(${name}_amd_emu PRIVATE
                               $<TARGET_PROPERTY:${name},INCLUDE_DIRECTORIES>)
    target_compile_definitions(${name}_amd_emu PRIVATE
                               $<TARGET_PROPERTY:${name},COMPILE_DEFINITIONS>)
    target_compile_options(${name}_amd_emu PRIVATE
                           $<TARGET_PROPERTY:${emu},INTERFACE_COMPILE_OPTIONS>)
    # Built with NAME, so that the two stay of one source.
    add_dependencies(${name} ${name}_amd_emu)
  endif()
endfunction()
