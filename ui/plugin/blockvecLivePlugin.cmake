# bv_add_live_plugin(NAME SOURCES...): the viewer's first plugins (bv/live_plugin.hpp, kernel-
# library ABI 1), built as kernel libraries are. New code declares its kernels with
# bv/kernel_library.hpp and builds them with blockvec_add_kernel_library(), which find_package(
# blockvec) provides; `include(${blockvec_DIR}/blockvecLivePlugin.cmake)` keeps working.
include(${CMAKE_CURRENT_LIST_DIR}/blockvecKernelLibrary.cmake OPTIONAL RESULT_VARIABLE _bv_kl)
if(NOT _bv_kl)  # in blockvec's tree the function lives in cmake/
  include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/blockvecKernelLibrary.cmake)
endif()
set(_BV_LIVE_PLUGIN_DIR ${CMAKE_CURRENT_LIST_DIR})

function(bv_add_live_plugin name)
  blockvec_add_kernel_library(${name} ${ARGN})
  # In blockvec's tree the header lives next to this file; installed, it is in include/bv/.
  if(EXISTS ${_BV_LIVE_PLUGIN_DIR}/bv/live_plugin.hpp)
    target_include_directories(${name} PRIVATE ${_BV_LIVE_PLUGIN_DIR})
  endif()
endfunction()
