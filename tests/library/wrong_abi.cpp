// A shared object that exports the kernel-library entry points with an ABI number no blockvec
// loads: the host must refuse it by that number before reading any entry.
#include <cstdint>

extern "C" __attribute__((visibility("default"))) int bv_kernel_library_abi(void) { return 99; }
extern "C" __attribute__((visibility("default"))) const void* bv_kernel_library_entries(int* n) {
  *n = 0;
  return nullptr;
}
