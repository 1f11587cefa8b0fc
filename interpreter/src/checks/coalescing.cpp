// coalescing: per wavefront, how many 64-byte segments an access touches against the fewest its
// active lanes could touch, and how many (lane, register) slots of the program do useful work.
// Which wave holds which element, and how many registers the block takes, come from the running
// target's layout map (lane_map: the flat map for 1-D blocks, the factorised one for 2-D), the
// one the GPU lowering uses.
// Warnings, one per memory op (source line) per launch, from the first 8 executions of that op
// (a sample keeps the cost flat): "uncoalesced" when touched/ideal >= 2, "low-utilisation" when
// fewer than 20% of the slots hold an active element (blocks far smaller than the program's
// lanes, or tiles smaller than the target's tile, whose lanes hold copies; masks that switch
// most lanes off). Scalar accesses are not judged.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#include "bv/cpu/lane_map.hpp"
#include "checks/common.hpp"

namespace bv::detail {
namespace {

constexpr int k_segment = 64;
constexpr int k_samples = 8;

struct layout_map {
  std::vector<int> owner;  // wave of each element (its first holder)
  int64_t slots = 0;       // waves * wave_size * registers
  int waves = 1;
};

const layout_map& layout_for(const access& a, target t) {
  using key = std::tuple<int, int, int, int, int>;
  static std::mutex mu;
  static std::map<key, std::unique_ptr<layout_map>> cache;
  const key k{static_cast<int>(t), a.rank, a.rows, a.cols, a.waves};
  thread_local key last_key{-1, -1, -1, -1, -1};
  thread_local const layout_map* last = nullptr;
  if (last && k == last_key) return *last;
  std::lock_guard lk(mu);
  auto& m = cache[k];
  if (!m) {
    m = std::make_unique<layout_map>();
    const layout::block_map L = lane_map(a, t);
    m->owner.resize(static_cast<size_t>(L.size()));
    for (int e = 0; e < L.size(); ++e) m->owner[static_cast<size_t>(e)] = L.holder(e).wave;
    m->waves = L.waves();
    m->slots = int64_t(L.slot_count());
  }
  last_key = k;
  last = m.get();
  return *m;
}

// What one execution of an access measured: segments touched and ideal over its waves, and
// its worst wave.
struct wave_counts {
  int64_t touched = 0, ideal = 0;
  int worst = -1;
  double worst_ratio = 0;
};

struct op_stats {
  std::atomic<int> samples{0};
  std::mutex mu;
  int64_t touched = 0, ideal = 0, active = 0, slots = 0;
  int worst_wave = -1;
  double worst_ratio = 0;
  std::array<int, 3> pid{};
  bool has_tensor = false;
  tensor_desc tensor;
  const char* op = "";
};

// A memory op's identity. Accesses carry a pointer to the op's std::source_location parameter,
// which lives on the program's stack: copy it, and compare by content.
using loc_key = std::tuple<const char*, uint32_t, uint32_t>;
inline loc_key key_of(const std::source_location& l) {
  return {l.file_name(), l.line(), l.column()};
}

struct coalescing_check final : observer {
  std::mutex mu;
  std::map<loc_key, std::pair<std::source_location, std::unique_ptr<op_stats>>> ops;
  launch_state* launch = nullptr;

  uint32_t bit() const override { return checks::coalescing; }
  void begin(launch_state& L) override { launch = &L; }

  op_stats& stats_for(const std::source_location& loc) {
    std::lock_guard lk(mu);
    auto& p = ops[key_of(loc)];
    if (!p.second) p = {loc, std::make_unique<op_stats>()};
    return *p.second;
  }

  void on_access(const access& a, const bool* perform, program_state& s) override {
    if (!a.alloc || a.lanes <= 1 || !a.loc) return;
    thread_local loc_cache<op_stats*> known;
    op_stats* st;
    if (op_stats** hit = known.find(launch->serial, *a.loc)) {
      st = *hit;
    } else {
      st = &stats_for(*a.loc);
      known.put(launch->serial, *a.loc, st);
    }
    // Past the sample, a plain read: every program of a launch comes here for every access, and
    // an increment would pass the counter's cache line between the cores at each.
    if (st->samples.load(std::memory_order_relaxed) >= k_samples ||
        st->samples.fetch_add(1, std::memory_order_relaxed) >= k_samples)
      return;

    const int eb = a.alloc->elem_bytes;
    const target tgt = config().tgt;
    const layout_map& lm = layout_for(a, tgt);
    // A tile of contiguous rows with every lane performed (most accesses) touches segments
    // determined by its shape, row stride and where its first row starts within a segment:
    // measured once per such pattern, not per execution.
    const bool tile = a.rows_contiguous && !perform && a.cols > 0 && a.all_active;
    using tile_key = std::tuple<int, int, int, int, int, int, int64_t, int64_t>;
    thread_local std::map<tile_key, wave_counts> tiles;
    const tile_key tk{a.rows,       a.cols,
                      a.rank,       eb,
                      a.waves,      static_cast<int>(tgt),
                      a.row_stride, ((a.base + (tile ? a.off.first() : 0)) * eb) % k_segment};
    if (tile) {
      if (auto it = tiles.find(tk); it != tiles.end()) {
        record(*st, it->second, a.lanes, lm.slots, s, a);
        return;
      }
    }
    thread_local std::vector<std::vector<int64_t>> segs;
    segs.resize(static_cast<size_t>(lm.waves));
    for (auto& v : segs) v.clear();
    // Addresses relative to the buffer: GPU allocators align buffers to 256 bytes or more, so
    // the host heap's alignment must not decide the answer.
    const int64_t addr0 = 0;
    int64_t active = 0;
    for (int i = 0; i < a.lanes; ++i) {
      if (a.mask && !a.mask[i]) continue;
      ++active;  // utilisation counts what the kernel asked for; segments what was performed
      if (perform && !perform[i]) continue;
      const int64_t byte = addr0 + (a.base + a.off[i]) * eb;
      segs[static_cast<size_t>(lm.owner[static_cast<size_t>(i)])].push_back(byte / k_segment);
    }
    wave_counts wc;
    for (int w = 0; w < lm.waves; ++w) {
      auto& v = segs[static_cast<size_t>(w)];
      if (v.empty()) continue;
      std::sort(v.begin(), v.end());
      const int64_t t = std::unique(v.begin(), v.end()) - v.begin();
      const int64_t n = static_cast<int64_t>(v.size());
      const int64_t id = (n * eb + k_segment - 1) / k_segment;
      wc.touched += t;
      wc.ideal += id;
      const double r = double(t) / double(id);
      if (r > wc.worst_ratio) wc.worst_ratio = r, wc.worst = w;
    }
    if (tile) {
      if (tiles.size() >= 4096) tiles.clear();  // patterns seen: a handful per kernel
      tiles.emplace(tk, wc);
    }
    record(*st, wc, active, lm.slots, s, a);
  }

  static void record(op_stats& st, const wave_counts& wc, int64_t active, int64_t slots,
                     const program_state& s, const access& a) {
    std::lock_guard lk(st.mu);
    st.touched += wc.touched;
    st.ideal += wc.ideal;
    st.active += active;
    st.slots += slots;
    if (wc.worst_ratio > st.worst_ratio) {
      st.worst_ratio = wc.worst_ratio;
      st.worst_wave = wc.worst;
      st.pid = s.pid;
    }
    if (!st.has_tensor) {
      st.has_tensor = true;
      st.tensor = a.alloc->describe();
      st.op = a.op;
    }
  }

  void end(launch_state& L) override {
    std::lock_guard lk(mu);
    for (auto& [key, entry] : ops) {
      const std::source_location& loc = entry.first;
      op_stats* st = entry.second.get();
      if (st->slots == 0) continue;
      auto base = [&](const char* kind) {
        diagnostic d;
        d.kind = kind;
        d.sev = severity::note;
        d.file = loc.file_name();
        d.line = static_cast<int>(loc.line());
        d.function = loc.function_name();
        d.kernel = L.kernel;
        d.pid = st->pid;
        d.has_tensor = st->has_tensor;
        d.tensor = st->tensor;
        return d;
      };
      const int n = std::min(st->samples.load(), k_samples);
      if (st->ideal > 0 && st->touched >= 2 * st->ideal) {
        diagnostic d = base("uncoalesced");
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.1f", double(st->touched) / double(st->ideal));
        d.headline = std::string("Uncoalesced ") + st->op + ": waves touch " +
                     std::to_string(st->touched) + " " + std::to_string(k_segment) +
                     "-byte segments where " + std::to_string(st->ideal) + " would do (" + buf +
                     "x the ideal, over " + plural(n, "execution") + ")";
        if (st->worst_wave >= 0) d.waves = {st->worst_wave};
        std::snprintf(buf, sizeof buf, "%.1f", st->worst_ratio);
        d.detail = "worst wave " + std::to_string(st->worst_wave) + " of program " +
                   pid_text(st->pid) + ": " + buf + "x its ideal";
        d.hint =
            "neighbouring lanes should read neighbouring addresses: make the contiguous "
            "dimension of the tensor the block's last (column) dimension, or transpose first";
        report_in(L, std::move(d));
      }
      if (5 * st->active < st->slots) {
        diagnostic d = base("low-utilisation");
        const int pct = static_cast<int>(100 * st->active / st->slots);
        d.headline = std::string("Low lane utilisation in ") + st->op + ": " + std::to_string(pct) +
                     "% of (lane, register) slots hold an active element (" +
                     std::to_string(st->active) + " of " + std::to_string(st->slots) + ", over " +
                     plural(n, "execution") + ")";
        d.hint =
            "the block is smaller than the program's waves x wave size, or its mask turns "
            "most lanes off: use fewer waves (program<1>) or a larger BLOCK";
        report_in(L, std::move(d));
      }
    }
  }
};

}  // namespace

std::unique_ptr<observer> make_coalescing_check() { return std::make_unique<coalescing_check>(); }

}  // namespace bv::detail
