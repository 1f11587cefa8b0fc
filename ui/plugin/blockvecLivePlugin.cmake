# bv_add_live_plugin(NAME SOURCES...): builds a live-mode plugin for blockvec-viewer
# (docs/viewer.md, "Plugins"). With the installed package:
#   find_package(blockvec REQUIRED)
#   include(${blockvec_DIR}/blockvecLivePlugin.cmake)
#   bv_add_live_plugin(my_kernels my_kernels.cpp)
# then `blockvec-viewer --live-plugin ./my_kernels.so`.
#
# The plugin gets blockvec's headers (and Eigen's and Boost's) but does NOT link the interpreter
# library: the viewer exports its own interpreter, and the plugin's launches must run on that one
# (one stop handler, one config(), one trace), not on a private copy.
set(_BV_LIVE_PLUGIN_DIR ${CMAKE_CURRENT_LIST_DIR})

function(bv_add_live_plugin name)
  if(NOT ARGN)
    message(FATAL_ERROR "bv_add_live_plugin(${name}): no source files")
  endif()
  add_library(${name} MODULE ${ARGN})
  set_target_properties(${name} PROPERTIES PREFIX "" CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON)
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
  # In blockvec's tree the header lives next to this file; installed, it is in include/bv/.
  if(EXISTS ${_BV_LIVE_PLUGIN_DIR}/bv/live_plugin.hpp)
    target_include_directories(${name} PRIVATE ${_BV_LIVE_PLUGIN_DIR})
  endif()
endfunction()
