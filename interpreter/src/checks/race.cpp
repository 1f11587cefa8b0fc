// race: two programs of one launch on one element, with at least one writing. Programs of a
// launch may run in any order and at the same time on a GPU, so the check does not depend on the
// order this run happened to use: per element it keeps the program that last wrote it and the
// program(s) that read it during this launch (shadow_state::race_cell), and reports
//   write-write: a program writes an element another program wrote;
//   read-after-write: a program reads an element another program wrote;
//   write-after-read: a program writes an element another program read;
// in whatever order the schedule ran them, so every schedule finds the same races. Atomics are
// exempt and leave no record. Accesses made while holding a lock (taken by an atomic_cas that
// swapped, released by atomic_xchg on the same address) are guarded by it: an element whose every
// access held the same lock is not racy (Eraser's lockset rule with one lock per element).
// The report is placed where it does not depend on the order: a read-write race at the read
// (its line and program), a write-write race at the lower of the two lines. One report per
// (placement, other side) per launch; both sides are named.
#include <map>
#include <set>
#include <tuple>

#include "checks/common.hpp"

namespace bv::detail {
namespace {

constexpr int k_chunk_bits = 10;
constexpr uint32_t k_unguarded = ~0u;

struct race_check final : observer {
  launch_state* launch = nullptr;
  std::mutex mu;  // guards locs, reported
  // Source locations by index; copied, since an access points at its op's source_location
  // parameter on the program's stack.
  std::vector<std::source_location> locs{std::source_location{}};
  std::map<std::tuple<const char*, uint32_t, uint32_t>, uint16_t> loc_index;
  std::set<std::tuple<int, int, int>> reported;

  uint32_t bit() const override { return checks::race; }
  void begin(launch_state& L) override { launch = &L; }

  uint16_t index_of(const std::source_location* loc) {
    if (!loc) return 0;
    const std::tuple<const char*, uint32_t, uint32_t> key{loc->file_name(), loc->line(),
                                                          loc->column()};
    thread_local std::tuple<const char*, uint32_t, uint32_t> last{};
    thread_local uint16_t last_idx = 0;
    thread_local uint64_t last_serial = 0;
    if (key == last && last_serial == launch->serial) return last_idx;
    std::lock_guard lk(mu);
    auto [it, fresh] = loc_index.emplace(key, static_cast<uint16_t>(locs.size()));
    if (fresh) {
      if (locs.size() >= 0xFFFF) it->second = 0;  // out of indices: the line goes unnamed
      else locs.push_back(*loc);
    }
    last = key, last_idx = it->second, last_serial = launch->serial;
    return it->second;
  }

  static uint32_t guard_of(const program_state& s) {
    if (s.chk.nlocks == 0) return k_unguarded;
    const auto h = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(s.chk.locks[0]) >> 2);
    return h == 0 || h == k_unguarded ? 1u : h;
  }

  void on_access(const access& a, const bool* perform, program_state& s) override {
    if (a.kind == access_kind::atomic || !a.alloc || !a.alloc->shadow) return;
    shadow_state& sh = *a.alloc->shadow;
    const int32_t me = static_cast<int32_t>(s.linear + 1);
    const uint32_t guard = guard_of(s);
    const uint16_t li = index_of(a.loc);
    const bool write = a.kind == access_kind::store;
    // kind 0: write-write, 1: read-after-write, 2: write-after-read
    std::vector<int> lanes[3];
    int32_t other[3] = {0, 0, 0};
    uint16_t other_loc[3] = {0, 0, 0};
    {
      std::lock_guard lk(sh.mu);
      if (sh.race.empty()) {
        sh.race.resize(static_cast<size_t>(sh.numel));
        sh.race_chunk.assign(static_cast<size_t>((sh.numel >> k_chunk_bits) + 1), 0);
      }
      const uint64_t serial = launch->serial;
      for (int i = 0; i < a.lanes; ++i) {
        if (!performed(a, perform, i)) continue;
        const int64_t e = a.base + a.off[i];
        uint64_t& stamp = sh.race_chunk[static_cast<size_t>(e >> k_chunk_bits)];
        if (stamp != serial) {
          // First touch of this chunk in this launch: forget the previous launch's record.
          const int64_t b = (e >> k_chunk_bits) << k_chunk_bits;
          const int64_t n = std::min<int64_t>(int64_t(1) << k_chunk_bits, sh.numel - b);
          std::fill_n(sh.race.begin() + b, n, shadow_state::race_cell{});
          stamp = serial;
        }
        auto& c = sh.race[static_cast<size_t>(e)];
        c.guard = c.guard == 0 ? guard : (c.guard == guard ? guard : k_unguarded);
        const bool racy = c.guard == k_unguarded;
        if (write) {
          if (racy && c.writer && c.writer != me) {
            if (!other[0]) other[0] = c.writer, other_loc[0] = c.wloc;
            lanes[0].push_back(i);
          } else if (racy && c.reader && c.reader != me) {
            if (!other[2]) other[2] = c.reader, other_loc[2] = c.rloc;
            lanes[2].push_back(i);
          }
          c.writer = me;
          c.wloc = li;
        } else {
          if (racy && c.writer && c.writer != me) {
            if (!other[1]) other[1] = c.writer, other_loc[1] = c.wloc;
            lanes[1].push_back(i);
          }
          if (c.reader == 0) c.reader = me, c.rloc = li;
          else if (c.reader != me) c.reader = -1;
        }
      }
    }
    for (int k = 0; k < 3; ++k)
      if (!lanes[k].empty()) report_race(k, a, s, lanes[k], other[k], other_loc[k], li);
  }

  void report_race(int k, const access& a, const program_state& s, const std::vector<int>& lanes,
                   int32_t other, uint16_t other_li, uint16_t /*li*/) {
    std::source_location other_copy;
    {
      std::lock_guard lk(mu);
      other_copy = locs[other_li];
    }
    const std::source_location* other_loc = other_li ? &other_copy : nullptr;
    // Canonical placement: the read side of a read-write race, the lower line of a write-write.
    const std::source_location* at = a.loc;
    const std::source_location* far = other_loc;
    bool swap_sides = k == 2;
    if (k == 0 && other_loc && a.loc && other_loc->line() < a.loc->line()) swap_sides = true;
    if (swap_sides) std::swap(at, far);
    {
      std::lock_guard lk(mu);
      if (!reported.emplace(k == 0 ? 0 : 1, at ? int(at->line()) : 0, far ? int(far->line()) : 0)
               .second)
        return;
    }
    std::string other_prog = "another program";
    if (other > 0) {
      const auto& o = launch->programs[static_cast<size_t>(other - 1)];
      other_prog = "program " + pid_text(o.pid);
    } else if (other < 0) {
      other_prog = "several other programs";
    }
    static const char* const what[3] = {"write-write", "read-after-write", "write-after-read"};
    diagnostic d = access_diag("race", a, lanes);
    d.headline = std::string("Race (") + what[k] + "): " + plural(static_cast<int>(lanes.size()), "lane") +
                 " of " + std::to_string(active_lanes(a)) + " active " +
                 (k == 1 ? "read elements " : "write elements ") +
                 (k == 2 ? "read" : "written") + " by " + other_prog + " in the same launch (" +
                 a.op + ")";
    d.detail = "other side: " + other_prog + " " + (k == 2 ? "read" : "wrote") + " them at " +
               loc_text(other_loc) + "; this side: program " + pid_text(s.pid) + " at " +
               loc_text(a.loc);
    if (swap_sides && at) {
      d.file = at->file_name();
      d.line = static_cast<int>(at->line());
      if (other > 0) d.pid = launch->programs[static_cast<size_t>(other - 1)].pid;
    }
    d.hint = k == 1 ? "programs of one launch run in any order: a program must not read what "
                      "another writes in the same launch (split the kernel into two launches)"
                    : "programs of one launch run in any order: give each program its own "
                      "elements, or combine with atomic_add / a lock taken with atomic_cas";
    report(std::move(d));
  }
};

}  // namespace

std::unique_ptr<observer> make_race_check() { return std::make_unique<race_check>(); }

}  // namespace bv::detail
