// The memory side of the emulator: LDS as the device lays it out, the checks on every LDS access
// (bounds, reads before writes, races between waves), and the counters of a launch.
//
// How accesses are seen: an emulated translation unit is compiled with the compiler's
// kernel-address instrumentation in its out-of-line form (emulator/CMakeLists.txt), which calls
// __asan_{load,store}N_noabort(address) before every load and store the compiled code makes. This
// file defines those functions: outside a launch they return at once; inside one, an address in
// the LDS arena is checked and logged, one inside a tensor of the launch is counted as global
// traffic, anything else (a lane's registers, spilled to its stack) is ignored. Nothing else of
// AddressSanitizer is used: no shadow memory, no runtime.
#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "state.hpp"

namespace bv::emu::detail {

namespace {
constexpr std::size_t k_guard = 64 * 1024;  // before and after the buffers: caught, not corrupted
constexpr std::size_t k_max_reports = 64;   // distinct reports per launch

std::size_t align16(std::size_t x) { return (x + 15) / 16 * 16; }

// An existing report of `kind` at `instr`: merged (the lane joins it if it is from the same
// workgroup and wave), true. Otherwise false: the caller makes the report.
bool merge(launch_state& L, const workgroup& wg, int wave, const std::vector<int>& tids,
           const std::string& key) {
  auto it = L.diag_index.find(key);
  if (it == L.diag_index.end()) return false;
  pending_diag& p = L.diags[it->second];
  const bool same =
      p.wave == wave && p.wg[0] == wg.id[0] && p.wg[1] == wg.id[1] && p.wg[2] == wg.id[2];
  if (same) {
    for (int t : tids)
      if (std::find(p.d.lanes.begin(), p.d.lanes.end(), t) == p.d.lanes.end()) {
        p.d.lanes.push_back(t);
        p.d.waves.push_back(t / wave_size);
      }
  } else {
    ++p.count;
  }
  return true;
}

std::string key_of(const std::string& kind, uintptr_t instr) {
  return kind + "@" + std::to_string(instr);
}
}  // namespace

std::string lane_list(const std::vector<int>& ls) {
  std::string s;
  for (size_t i = 0; i < ls.size();) {
    size_t j = i;
    while (j + 1 < ls.size() && ls[j + 1] == ls[j] + 1) ++j;
    if (!s.empty()) s += ",";
    s += std::to_string(ls[i]);
    if (j > i) s += "-" + std::to_string(ls[j]);
    i = j + 1;
  }
  return s;
}

void report(launch_state& L, const workgroup& wg, int wave, std::vector<int> lanes,
            const std::string& kind, severity sev, uintptr_t instr, const std::string& headline,
            const source_where& at, const std::string& detail, const std::string& hint) {
  const std::string key = key_of(kind, instr);
  if (merge(L, wg, wave, lanes, key)) return;
  if (L.diags.size() >= k_max_reports) {
    ++L.dropped;
    return;
  }
  pending_diag p;
  p.wave = wave;
  std::copy(wg.id, wg.id + 3, p.wg);
  diagnostic& d = p.d;
  d.kind = kind;
  d.sev = sev;
  d.headline = headline;
  d.kernel = L.desc.kernel;
  d.file = at.file;
  d.line = at.line;
  d.function = at.function;
  d.pid = {static_cast<int>(wg.id[0]), static_cast<int>(wg.id[1]), static_cast<int>(wg.id[2])};
  d.lanes = std::move(lanes);
  for (int t : d.lanes) d.waves.push_back(t / wave_size);
  d.detail = detail;
  d.hint = hint;
  L.diag_index.emplace(key, static_cast<int>(L.diags.size()));
  L.diags.push_back(std::move(p));
}

// ---- LDS ----------------------------------------------------------------------------------------
void lds_launch_init(launch_state& L) {
  L.lds_capacity = static_cast<std::size_t>(lds_bytes_of(L.desc.tgt));
  // Room for buffers past the capacity (reported, and run while they fit) and their red zones.
  const std::size_t host = 4 * L.lds_capacity;
  L.arena_bytes = k_guard + host + k_guard;
  L.arena.reset(new unsigned char[L.arena_bytes]);
  // LDS starts as NaN bytes (0xff: NaN as f32, f16 and bf16, -1 as an integer).
  std::memset(L.arena.get(), 0xff, L.arena_bytes);
  L.lds_base = L.arena.get() + k_guard;
  L.written.assign(host, 0);
  L.words.assign(host / 2, {});
  L.globals = L.desc.globals;
  L.global_lo = UINTPTR_MAX;
  L.global_hi = 0;
  for (const auto& g : L.globals) {
    const auto p = reinterpret_cast<uintptr_t>(g.p);
    L.global_lo = std::min(L.global_lo, p);
    L.global_hi = std::max(L.global_hi, p + g.bytes);
  }
}

void lds_workgroup_reset(launch_state& L) {
  std::memset(L.lds_base, 0xff, L.lds_host_used);
  std::memset(L.written.data(), 0, L.lds_host_used);
  ++L.epoch;  // no word's state from the previous workgroup is in this one's epochs
}

void lds_barrier(launch_state& L) { ++L.epoch; }

void* lds_buffer_for(const void* key, std::size_t bytes) {
  workgroup& wg = *t_wg;
  launch_state& L = *wg.launch;
  std::lock_guard lk(L.mu);
  auto it = L.lds_index.find(key);
  if (it != L.lds_index.end()) return L.lds_base + L.buffers[it->second].host_offset;
  lds_buffer b;
  b.bytes = bytes;
  b.dev_offset = align16(L.lds_dev_used);
  b.host_offset = align16(L.lds_host_used);
  const std::size_t red = std::max<std::size_t>(256, align16(bytes));
  const bool fits_host = b.host_offset + bytes + red <= L.written.size();
  if (b.dev_offset + bytes > L.lds_capacity) {
    const int wave = static_cast<int>(t_lane->tid) / wave_size;
    report(L, wg, wave, {static_cast<int>(t_lane->tid)}, "lds-capacity", severity::error,
           reinterpret_cast<uintptr_t>(key),
           "Static LDS of " + std::to_string(b.dev_offset + bytes) + " bytes, more than the " +
               std::to_string(L.lds_capacity) + " a workgroup has on " + target_name(L.desc.tgt),
           where_here(),
           "This buffer: " + std::to_string(bytes) + " bytes at offset " +
               std::to_string(b.dev_offset) + " after " + std::to_string(L.buffers.size()) +
               " others." +
               (fits_host ? " The emulator runs on with it; the device would not launch."
                          : " The workgroup was ended."),
           "smaller tiles or blocks, or fewer buffers live at once");
  }
  if (!fits_host) throw end_workgroup{};
  L.lds_index.emplace(key, static_cast<int>(L.buffers.size()));
  L.buffers.push_back(b);
  L.lds_dev_used = b.dev_offset + bytes;
  L.lds_host_used = b.host_offset + bytes + red;
  return L.lds_base + b.host_offset;
}

namespace {

void report_access(launch_state& L, const workgroup& wg, const lane& l, const char* kind,
                   uintptr_t pc, const std::string& headline, const std::string& detail,
                   const char* hint) {
  const int tid = static_cast<int>(l.tid);
  const int wave = tid / wave_size;
  if (merge(L, wg, wave, {tid}, key_of(kind, pc))) return;
  report(L, wg, wave, {tid}, kind, severity::error, pc, headline, where_here(), detail, hint);
}

const char* rw(bool write) { return write ? "write" : "read"; }

void lds_out_of_bounds(launch_state& L, const workgroup& wg, const lane& l, intptr_t off,
                       std::size_t size, bool write, uintptr_t pc) {
  std::string where;
  bool beyond = false;
  for (std::size_t i = 0; i < L.buffers.size(); ++i) {
    const lds_buffer& b = L.buffers[i];
    const auto lo = static_cast<intptr_t>(b.host_offset);
    const auto end = lo + static_cast<intptr_t>(b.bytes);
    const intptr_t next = i + 1 < L.buffers.size()
                              ? static_cast<intptr_t>(L.buffers[i + 1].host_offset)
                              : static_cast<intptr_t>(L.written.size()) + k_guard;
    if (off + static_cast<intptr_t>(size) > lo && off < next) {
      const intptr_t dev = static_cast<intptr_t>(b.dev_offset) + (off - lo);
      where = off < end ? "straddles the end of LDS buffer " + std::to_string(i)
                        : std::to_string(off - end) + " bytes past the end of LDS buffer " +
                              std::to_string(i);
      where += " (" + std::to_string(b.bytes) + " bytes at offset " + std::to_string(b.dev_offset) +
               "), at offset " + std::to_string(dev);
      beyond = dev + static_cast<intptr_t>(size) > static_cast<intptr_t>(L.lds_capacity);
      break;
    }
  }
  if (where.empty())
    where = off < 0 ? std::to_string(-off) + " bytes before the first LDS buffer"
                    : "outside every LDS buffer";
  if (beyond)
    where += ", beyond the " + std::to_string(L.lds_capacity) + " bytes of LDS " +
             target_name(L.desc.tgt) + " has";
  report_access(L, wg, l, "lds-out-of-bounds", pc,
                std::string("LDS ") + rw(write) + " of size " + std::to_string(size) +
                    " outside the kernel's LDS buffers",
                "The access " + where + ".",
                "check the index against the buffer's length (prim::lds<T, N>: N elements)");
}

void report_race(launch_state& L, const workgroup& wg, int tid, int other, bool write,
                 bool after_write, uintptr_t pc, std::size_t dev, std::size_t size,
                 const source_where* at) {
  const int w = tid / wave_size;
  const std::string kind = "lds-race";
  if (merge(L, wg, w, {tid}, key_of(kind, pc))) return;
  const char* what = after_write ? "write" : "read";
  report(L, wg, w, {tid}, kind, severity::error, pc,
         std::string("LDS ") + rw(write) + " of size " + std::to_string(size) + " races with a " +
             what + " by wave " + std::to_string(other),
         at ? *at : where_here(),
         "At offset " + std::to_string(dev) + " of the LDS: wave " + std::to_string(w) + " " +
             (write ? "writes" : "reads") + " it and wave " + std::to_string(other) + " " +
             (after_write ? "wrote" : "read") +
             " it with no barrier between; their order on the device is not fixed.",
         "put a barrier (prim::barrier) between the write and the other wave's access");
}

void lds_access(launch_state& L, lane& l, uintptr_t a, std::size_t size, bool write, uintptr_t pc) {
  const workgroup& wg = *t_wg;
  const intptr_t off = static_cast<intptr_t>(a - reinterpret_cast<uintptr_t>(L.lds_base));
  const lds_buffer* b = nullptr;
  for (const auto& x : L.buffers)
    if (off >= static_cast<intptr_t>(x.host_offset) &&
        off + static_cast<intptr_t>(size) <= static_cast<intptr_t>(x.host_offset + x.bytes)) {
      b = &x;
      break;
    }
  if (!b) return lds_out_of_bounds(L, wg, l, off, size, write, pc);
  const auto uoff = static_cast<std::size_t>(off);
  const std::size_t dev = b->dev_offset + (uoff - b->host_offset);
  l.log.push_back({pc, dev, static_cast<uint32_t>(size), 1, static_cast<uint8_t>(write)});
  (write ? L.counts.lds_write_bytes : L.counts.lds_read_bytes) += static_cast<int64_t>(size);

  uint8_t* wr = L.written.data() + uoff;
  if (write) {
    std::memset(wr, 1, size);
  } else {
    std::size_t unwritten = 0;
    for (std::size_t i = 0; i < size; ++i) unwritten += !wr[i];
    if (unwritten)
      report_access(L, wg, l, "lds-uninit", pc,
                    "LDS read of size " + std::to_string(size) + " before any write (" +
                        std::to_string(unwritten) + " of its bytes never written)",
                    "At offset " + std::to_string(dev) + " of the LDS (buffer of " +
                        std::to_string(b->bytes) + " bytes at offset " +
                        std::to_string(b->dev_offset) +
                        "), in this workgroup. LDS holds garbage when a workgroup starts.",
                    "write the LDS before reading it, with a barrier between when another wave "
                    "writes it");
  }

  // Races between waves: per 2-byte half-word (16-bit elements of neighbouring waves share a
  // 4-byte word without racing), the last writer wave and its barrier epoch, and the waves that
  // read it in the current epoch.
  const int w = static_cast<int>(l.tid) / wave_size;
  const uint32_t e = L.epoch;
  bool reported = false;
  for (std::size_t wi = uoff / 2; wi <= (uoff + size - 1) / 2; ++wi) {
    auto& s = L.words[wi];
    int other = -1;
    const char* what = nullptr;
    if (write) {
      if (s.write_epoch == e && s.writer >= 0 && s.writer != w) {
        other = s.writer, what = "write";
      } else if (s.read_epoch == e && (s.readers & ~(1u << w))) {
        const unsigned rest = s.readers & ~(1u << w);
        other = __builtin_ctz(rest), what = "read";
      }
      s.writer = static_cast<int8_t>(w);
      s.write_epoch = e;
    } else {
      if (s.write_epoch == e && s.writer >= 0 && s.writer != w) other = s.writer, what = "write";
      if (s.read_epoch != e) s.read_epoch = e, s.readers = 0;
      s.readers = static_cast<uint16_t>(s.readers | (1u << w));
    }
    if (what && !reported) {
      reported = true;
      if (write) {
        // Decided when the lane stops (check_pending_writes): only if the value changed.
        if (!L.diag_index.count(key_of("lds-race", pc)) && !L.where_cache.count(pc))
          L.where_cache.emplace(pc, where_here());
        uint16_t old;
        std::memcpy(&old, L.lds_base + wi * 2, 2);
        L.pending.push_back({wi, old, pc, static_cast<int>(l.tid), other, what[0] == 'w',
                             wi * 2 - b->host_offset + b->dev_offset, size});
      } else {
        report_race(L, wg, static_cast<int>(l.tid), other, false, true, pc,
                    wi * 2 - b->host_offset + b->dev_offset, size, nullptr);
      }
    }
  }
}

void global_access(launch_state& L, lane& l, uintptr_t a, std::size_t size, bool write,
                   uintptr_t pc) {
  for (const auto& g : L.globals) {
    const auto p = reinterpret_cast<uintptr_t>(g.p);
    if (a - p < g.bytes) {
      l.log.push_back({pc, a, static_cast<uint32_t>(size), 0, static_cast<uint8_t>(write)});
      (write ? L.counts.global_write_bytes : L.counts.global_read_bytes) +=
          static_cast<int64_t>(size);
      return;
    }
  }
}

inline void on_access(uintptr_t a, std::size_t size, bool write, uintptr_t pc) {
  lane* l = t_lane;
  if (!l) return;
  launch_state& L = *t_wg->launch;
  if (a - reinterpret_cast<uintptr_t>(L.arena.get()) < L.arena_bytes)
    return lds_access(L, *l, a, size, write, pc);
  if (a >= L.global_lo && a < L.global_hi) global_access(L, *l, a, size, write, pc);
}

// ---- Counters per wave instruction
// ---------------------------------------------------------------
struct gkey {
  uintptr_t pc;
  uint32_t occ;
  bool operator==(const gkey& o) const { return pc == o.pc && occ == o.occ; }
};
struct ghash {
  std::size_t operator()(const gkey& k) const {
    return static_cast<std::size_t>(k.pc * 0x9E3779B97F4A7C15ull) ^ k.occ;
  }
};
struct one_access {
  int lane;
  uintptr_t addr;
  uint32_t size;
};
struct wave_instr {
  bool lds = false;
  uint32_t width = 0;
  std::vector<one_access> acc;
};

// Extra cycles of one LDS wave instruction: in each phase of 128 / max(4, width) lanes, the most
// distinct 4-byte words one of the 32 banks serves, minus 1.
int64_t bank_conflicts(wave_instr& g) {
  const int per_phase = std::max<int>(1, 128 / static_cast<int>(std::max<uint32_t>(4, g.width)));
  std::sort(g.acc.begin(), g.acc.end(),
            [](const one_access& a, const one_access& b) { return a.lane < b.lane; });
  int64_t extra = 0;
  std::vector<uint64_t> words;
  std::size_t i = 0;
  while (i < g.acc.size()) {
    const int phase = g.acc[i].lane / per_phase;
    words.clear();
    for (; i < g.acc.size() && g.acc[i].lane / per_phase == phase; ++i)
      for (uintptr_t w = g.acc[i].addr / 4; w <= (g.acc[i].addr + g.acc[i].size - 1) / 4; ++w)
        words.push_back(w);
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    int per_bank[32] = {};
    int most = 0;
    for (uint64_t w : words) most = std::max(most, ++per_bank[w % 32]);
    extra += most > 0 ? most - 1 : 0;
  }
  return extra;
}

}  // namespace

void check_pending_writes(workgroup& wg) {
  launch_state& L = *wg.launch;
  for (const auto& p : L.pending) {
    uint16_t now;
    std::memcpy(&now, L.lds_base + p.word * 2, 2);
    if (now == p.old) continue;  // the same value again: no race
    auto it = L.where_cache.find(p.pc);
    report_race(L, wg, p.tid, p.other, true, p.after_write, p.pc, p.dev, p.size,
                it == L.where_cache.end() ? nullptr : &it->second);
  }
  L.pending.clear();
}

void flush_logs(workgroup& wg) {
  check_pending_writes(wg);
  counters& n = wg.launch->counts;
  thread_local std::unordered_map<gkey, int, ghash> index;
  thread_local std::unordered_map<uintptr_t, uint32_t> occ;
  thread_local std::vector<wave_instr> groups;
  const int waves = static_cast<int>(wg.lanes.size()) / wave_size;
  for (int wi = 0; wi < waves; ++wi) {
    bool any = false;
    for (int l = 0; l < wave_size && !any; ++l) any = !wg.lanes[wi * wave_size + l].log.empty();
    if (!any) continue;
    index.clear();
    std::size_t used = 0;
    for (int l = 0; l < wave_size; ++l) {
      lane& ln = wg.lanes[wi * wave_size + l];
      if (ln.log.empty()) continue;
      occ.clear();
      for (const access_rec& r : ln.log) {
        const uint32_t o = occ[r.pc]++;
        auto [it, fresh] = index.try_emplace(gkey{r.pc, o}, static_cast<int>(used));
        if (fresh) {
          if (groups.size() <= used) groups.emplace_back();
          groups[used].acc.clear();
          groups[used].lds = r.lds;
          groups[used].width = 0;
          ++used;
        }
        wave_instr& g = groups[it->second];
        g.width = std::max(g.width, r.size);
        g.acc.push_back({l, r.addr, r.size});
      }
      ln.log.clear();
    }
    for (std::size_t i = 0; i < used; ++i) {
      wave_instr& g = groups[i];
      ++n.wave_instructions;
      n.active_lanes += static_cast<int64_t>(g.acc.size());
      if (g.lds) {
        ++n.lds_instructions;
        n.lds_bank_conflicts += bank_conflicts(g);
      }
    }
  }
}

}  // namespace bv::emu::detail

// ---- The instrumentation's entry points
// ----------------------------------------------------------
#if !BV_EMU_NO_HOOKS
// Called by the compiled kernel before each load or store (the return address is the accessing
// instruction). Lanes of one workgroup run on one thread; nothing here locks.
#define BV_EMU_RET reinterpret_cast<uintptr_t>(__builtin_return_address(0))
#define BV_EMU_HOOKS(n)                                    \
  extern "C" void __asan_load##n##_noabort(uintptr_t a) {  \
    bv::emu::detail::on_access(a, n, false, BV_EMU_RET);   \
  }                                                        \
  extern "C" void __asan_store##n##_noabort(uintptr_t a) { \
    bv::emu::detail::on_access(a, n, true, BV_EMU_RET);    \
  }
BV_EMU_HOOKS(1)
BV_EMU_HOOKS(2)
BV_EMU_HOOKS(4)
BV_EMU_HOOKS(8)
BV_EMU_HOOKS(16)
#undef BV_EMU_HOOKS
extern "C" void __asan_loadN_noabort(uintptr_t a, std::size_t n) {
  bv::emu::detail::on_access(a, n, false, BV_EMU_RET);
}
extern "C" void __asan_storeN_noabort(uintptr_t a, std::size_t n) {
  bv::emu::detail::on_access(a, n, true, BV_EMU_RET);
}
// Before a call that does not return (a throw): nothing to unpoison, there is no shadow memory.
extern "C" void __asan_handle_no_return() {}
// Around a translation unit's dynamic initializers (initialization-order checking): unused.
extern "C" void __asan_before_dynamic_init(const char*) {}
extern "C" void __asan_after_dynamic_init() {}
#undef BV_EMU_RET
#endif
