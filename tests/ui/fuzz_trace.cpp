// libFuzzer target: any bytes as a trace. The reader must answer with a trace_error, never crash,
// hang or read out of bounds (built with -fsanitize=fuzzer,address by tests/ui/fuzz.sh).
#include <cstdint>
#include <vector>

#include "trace/trace_db.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<unsigned char> bytes(data, data + size);  // SQLite wants a mutable buffer
  try {
    auto db = bvt::trace_db::open_memory(bytes.data(), bytes.size());
    db->sites();
    db->sources();
    for (auto& l : db->launches()) {
      db->tensors(l.id);
      db->diagnostics(l.id, 1000);
      db->site_stats(l.id);
      int n = 0;
      for (auto& p : db->programs(l.id)) {
        if (++n > 64) break;
        db->events(l.id, p.program);
        for (auto& o : db->ops_of_program(l.id, p.program, 0, 64)) {
          try {
            o.addresses();
          } catch (const bvt::trace_error&) {
          }
          for (int i = 0; i < o.lanes; ++i) o.lane_active(i);
        }
      }
    }
  } catch (const bvt::trace_error&) {
  }
  return 0;
}
