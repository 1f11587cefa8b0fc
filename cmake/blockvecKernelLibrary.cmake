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
function(blockvec_add_kernel_library name)
  if(NOT ARGN)
    message(FATAL_ERROR "blockvec_add_kernel_library(${name}): no source files")
  endif()
  add_library(${name} MODULE ${ARGN})
  set_target_properties(${name} PROPERTIES PREFIX "" CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON)
  target_compile_definitions(${name} PRIVATE BV_KERNEL_LIBRARY_BUILD=1)
  foreach(t blockvec::kernels blockvec::interp blockvec::lang Eigen3::Eigen Boost::headers
            Boost::context)
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
