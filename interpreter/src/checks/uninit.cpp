// uninit: reads of memory never written. The precise rule (docs/diagnostics.md):
//  - a float value read from never-written memory carries the "uninit" NaN tag; it is reported
//    where it is used: stored (the store's line), reduced (sum/max/min) or passed to a math
//    function; values it does not reach (masked-off store lanes, where() dropping it) are never
//    reported;
//  - integer and bool reads, and atomics of any type, are reported at the access itself, since
//    integers cannot carry a tag: a lane is uninitialised when the shadow `written` bit of its
//    element is clear and the element still holds the fill pattern of tensor::empty (memory the
//    host filled by hand without mark_initialised() is therefore not reported).
// Stores and atomics set the `written` bits, which the check keeps per buffer (written_shadow).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "bv/cpu/values.hpp"
#include "checks/common.hpp"

namespace bv::detail {
namespace {

// The bytes tensor::empty filled an element of this dtype with.
bool fill_pattern(const alloc_info& a, uint64_t& out) {
  const std::string d = a.dtype;
  out = 0;
  if (d == "f32") {
    const float v = uninit_value<float>();
    std::memcpy(&out, &v, 4);
  } else if (d == "f16") {
    const half v = uninit_value<half>();
    std::memcpy(&out, &v, 2);
  } else if (d == "bf16") {
    const bfloat16 v = uninit_value<bfloat16>();
    std::memcpy(&out, &v, 2);
  } else if (d == "i32") {
    const int32_t v = uninit_value<int32_t>();
    std::memcpy(&out, &v, 4);
  } else if (d == "i64") {
    const int64_t v = uninit_value<int64_t>();
    std::memcpy(&out, &v, 8);
  } else if (d == "bool") {
    const bool v = uninit_value<bool>();
    std::memcpy(&out, &v, 1);
  } else {
    return false;
  }
  return true;
}

// Which elements of one buffer were written, made at the check's first access to a buffer the
// host has not written whole.
struct written_shadow {
  std::mutex mu;                      // guards `written` under the parallel schedule
  std::vector<uint8_t> written;       // 1 once an element was written
  std::atomic<int64_t> unwritten{0};  // elements still 0 in `written`: 0 lets the check skip
  explicit written_shadow(const shadow_state& sh) {
    const bool all = sh.host_written.load(std::memory_order_acquire);
    written.assign(static_cast<size_t>(sh.numel), all ? 1 : 0);
    unwritten = all ? 0 : sh.numel;
  }
  void host_wrote() {
    std::lock_guard lk(mu);
    std::fill(written.begin(), written.end(), 1);
    unwritten.store(0);
  }
  // Made with the buffer when the check is on and the host has not written it (an output made
  // by tensor::empty): the first store of every launch would make it otherwise.
  static written_shadow* made(shadow_state& sh) {
    if (sh.host_written.load(std::memory_order_relaxed) || !(config().enabled & checks::uninit))
      return nullptr;
    return new written_shadow(sh);
  }
};
// Reserved at start-up, so that buffers made before the check's first access get their state.
[[maybe_unused]] const int k_written_slot = shadow_slot_of<written_shadow>();

struct uninit_check final : observer {
  uint32_t bit() const override { return checks::uninit; }

  void on_access(const access& a, const bool* perform, program_state&) override {
    if (!a.alloc || !a.alloc->shadow) return;
    shadow_state& buf = *a.alloc->shadow;
    const bool is_float_t =
        a.alloc->dtype[0] == 'f' || (a.alloc->dtype[0] == 'b' && a.alloc->dtype[1] == 'f');
    if (a.kind == access_kind::store && a.value_class) {
      std::vector<int> bad;
      for (int i = 0; i < a.lanes; ++i)
        if (performed(a, perform, i) && a.value_class[i] == vc_uninit) bad.push_back(i);
      if (!bad.empty()) {
        diagnostic d = access_diag("uninit", a, bad);
        d.headline = "Uninitialised value stored: " + plural(static_cast<int>(bad.size()), "lane") +
                     " of " + std::to_string(active_lanes(a)) +
                     " active write values derived from memory never written (" + a.op + ")";
        d.hint =
            "the value was loaded from memory no kernel or host code wrote (tensor::empty); "
            "check that the producer covers every element, or create it with zeros/full";
        report(std::move(d));
      }
    }
    written_shadow* found = find_buffer_shadow<written_shadow>(buf);
    if (!found && buf.host_written.load(std::memory_order_acquire)) return;
    written_shadow& sh = found ? *found : buffer_shadow<written_shadow>(buf);
    if (sh.unwritten.load(std::memory_order_relaxed) == 0) return;
    uint64_t pattern = 0;
    const int eb = a.alloc->elem_bytes;
    const bool check_read =
        (a.kind == access_kind::atomic || (a.kind == access_kind::load && !is_float_t)) &&
        fill_pattern(*a.alloc, pattern);
    // A float load neither reports here (its values carry the tag) nor marks anything written:
    // nothing to do, and no lock to take, for every float read of a partly written tensor.
    if (a.kind == access_kind::load && !check_read) return;
    std::vector<int> bad;
    // A store of one contiguous run with every lane performed: mark the run written in one
    // step (the common case of every kernel writing a fresh output).
    if (a.kind == access_kind::store && a.contiguous() && !perform && a.all_active) {
      const int64_t e0 = a.base + a.off.first();
      std::lock_guard lk(sh.mu);
      uint8_t* w = sh.written.data() + e0;
      int64_t fresh = 0;
      for (int i = 0; i < a.lanes; ++i) fresh += w[i] == 0;
      if (fresh) {
        std::memset(w, 1, static_cast<size_t>(a.lanes));
        sh.unwritten.fetch_sub(fresh, std::memory_order_relaxed);
      }
      return;
    }
    {
      std::lock_guard lk(sh.mu);
      const auto* bytes = static_cast<const unsigned char*>(a.alloc->buffer);
      const int64_t* off = a.off;
      for (int i = 0; i < a.lanes; ++i) {
        if (!performed(a, perform, i)) continue;
        const int64_t e = a.base + off[i];
        uint8_t& w = sh.written[static_cast<size_t>(e)];
        if (w) continue;
        if (check_read) {
          uint64_t v = 0;
          std::memcpy(&v, bytes + e * eb, static_cast<size_t>(eb));
          if (v == pattern) bad.push_back(i);
        }
        if (a.kind != access_kind::load) {
          w = 1;
          sh.unwritten.fetch_sub(1, std::memory_order_relaxed);
        }
      }
    }
    if (!bad.empty()) {
      diagnostic d = access_diag("uninit", a, bad);
      d.headline = std::string("Read of uninitialised memory") +
                   (a.kind == access_kind::atomic ? " by an atomic" : "") + " of size " +
                   std::to_string(eb) + " by " + plural(static_cast<int>(bad.size()), "lane") +
                   " of " + std::to_string(active_lanes(a)) + " active (" + a.op + ")";
      d.hint = "tensor '" + a.alloc->name +
               "' was made with tensor::empty and these elements were never written before this "
               "read; write them first (or create it with zeros/full, or mark_initialised())";
      report(std::move(d));
    }
  }

  void on_value(const value_event& e, program_state&) override {
    std::vector<int> bad;
    for (int i = 0; i < e.lanes; ++i)
      if (e.value_class[i] == vc_uninit) bad.push_back(i);
    if (bad.empty()) return;
    diagnostic d;
    d.kind = "uninit";
    d.headline = std::string("Uninitialised value used by ") + e.op + ": " +
                 plural(static_cast<int>(bad.size()), "result element") +
                 " derive from memory never written";
    d.lanes = bad;
    d.hint = "a value loaded from never-written memory (tensor::empty) reaches this " +
             std::string(e.op) + "; write the memory first or mask the load with an `other`";
    complete(d, e.loc);
    report(std::move(d));
  }
};

}  // namespace

std::unique_ptr<observer> make_uninit_check() { return std::make_unique<uninit_check>(); }

}  // namespace bv::detail
