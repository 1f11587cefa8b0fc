// stream-store (under the race bit): a store, in a for_range's body, over an element that a later
// step's tile of one of the loop's moving streams covers. The interpreter loads each tile at its
// step, so it would see the store; a pipelined loop may have read that tile already (sm_90a's TMA
// issues copies stages - 1 steps ahead, AMD loads the next step's tiles during this step's dot),
// and there the store would not be seen: the same source would compute different results on the
// two. The moving streams' tiles are described by program_state::stream_span (the interpreter's
// stream loop keeps them and the current step); an element is matched to its (row, column) where
// the block pointer's strides are a row-major or a column-major layout of its shape (other strides
// are not checked). Held streams (along {0, 0}) do not move: their one tile is read at the first
// step on every backend.
#include <algorithm>
#include <climits>

#include "checks/common.hpp"

namespace bv::detail {
namespace {

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  const int64_t q = a / b;
  return q - ((a % b != 0) && (a < 0));
}

// The steps j whose tile's rows (or columns) off + j * by + [0, len) hold x: [lo, hi], empty when
// lo > hi.
void steps_holding(int64_t x, int64_t off, int64_t by, int64_t len, int64_t& lo, int64_t& hi) {
  if (by == 0) {
    const bool in = x >= off && x < off + len;
    lo = in ? INT64_MIN / 4 : 1;
    hi = in ? INT64_MAX / 4 : 0;
  } else if (by > 0) {
    lo = floor_div(x - off - len, by) + 1;
    hi = floor_div(x - off, by);
  } else {
    lo = floor_div(off - x - by - 1, -by);  // ceil((off - x) / -by)
    hi = floor_div(off - x + len - 1, -by);
  }
}

// The first step after the current one whose tile covers buffer element e, or -1.
int64_t later_step(const program_state::stream_span& sp, int64_t e, int64_t& row, int64_t& col) {
  const int64_t rel = e - sp.base;
  if (sp.stride1 == 1 && sp.stride0 >= std::max<int64_t>(sp.shape1, 1)) {
    row = floor_div(rel, sp.stride0);
    col = rel - row * sp.stride0;
  } else if (sp.stride0 == 1 && sp.stride1 >= std::max<int64_t>(sp.shape0, 1)) {
    col = floor_div(rel, sp.stride1);
    row = rel - col * sp.stride1;
  } else {
    return -1;
  }
  if (row < 0 || row >= sp.shape0 || col < 0 || col >= sp.shape1) return -1;
  int64_t lo0, hi0, lo1, hi1;
  steps_holding(row, sp.off0, sp.by0, sp.rows, lo0, hi0);
  steps_holding(col, sp.off1, sp.by1, sp.cols, lo1, hi1);
  const int64_t lo = std::max({lo0, lo1, int64_t{sp.step} + 1});
  const int64_t hi = std::min({hi0, hi1, int64_t{sp.steps} - 1});
  return lo <= hi ? lo : -1;
}

struct stream_store_check final : observer {
  uint32_t bit() const override { return checks::race; }

  void on_access(const access& a, const bool* perform, program_state& s) override {
    if (s.n_streams == 0 || a.kind == access_kind::load || a.alloc == nullptr) return;
    for (int k = 0; k < s.n_streams; ++k) {
      program_state::stream_span& sp = s.streams[k];
      if (!sp.moving || sp.reported || sp.buffer != a.alloc->buffer) continue;
      std::vector<int> lanes;
      int64_t step = -1, row = 0, col = 0;
      for (int i = 0; i < a.lanes; ++i) {
        if (!performed(a, perform, i)) continue;
        int64_t r, c;
        const int64_t j = later_step(sp, a.base + a.off[i], r, c);
        if (j < 0) continue;
        if (lanes.empty()) step = j, row = r, col = c;
        lanes.push_back(i);
      }
      if (lanes.empty()) continue;
      sp.reported = true;
      diagnostic d = access_diag("stream-store", a, lanes);
      d.headline = std::string(a.op) +
                   " over a tile that a later step of the enclosing for_range streams (along)";
      d.detail = plural(static_cast<int>(lanes.size()), "lane") + " write into step " +
                 std::to_string(step) + "'s tile (lane " + std::to_string(lanes[0]) + ": row " +
                 std::to_string(row) + ", column " + std::to_string(col) +
                 " of the streamed tensor); the loop is at step " + std::to_string(sp.step) +
                 " of " + std::to_string(sp.steps) + ", its stream made at " + loc_text(sp.along);
      d.hint =
          "a pipelined loop reads later steps' tiles ahead (on sm_90a by the TMA, on AMD during "
          "the step before), so there this store would not be seen: write elsewhere, or read that "
          "memory through a block pointer the loop does not stream";
      report(std::move(d));
    }
  }
};

}  // namespace

std::unique_ptr<observer> make_stream_store_check() {
  return std::make_unique<stream_store_check>();
}

}  // namespace bv::detail
