// race: two programs of one launch on one element, with at least one writing. Programs of a
// launch may run in any order and at the same time on a GPU, so the check does not depend on the
// order this run happened to use: per element it keeps the program that last wrote it and the
// program(s) that read it during this launch (a packed `cell`, below), and reports
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
// Reads of whole rows or tiles (every lane performed, no lock held) of a buffer that no program
// has written yet in this launch are kept as footprints (a tile's origin, shape and row stride),
// not per element: the inputs of a launch are mostly never written, and their footprints are
// dropped at its end unread. The buffer's first store of the launch replays them into the cells
// first, so that a write after them sees them as if they had been recorded one by one. Reads of
// a buffer that no argument of the launch lets a program write (bound only to ptr<const T>, and
// overlapping no writable argument) are not recorded at all: no write can meet them.
#include <cstring>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "bv/cpu/views.hpp"
#include "checks/common.hpp"

namespace bv::detail {

namespace {

constexpr int k_chunk_bits = 10;

// One element's record in one launch, packed into 64 bits so that a row of lanes updates a
// compact array (the cost of this check is memory traffic):
//   bits  0-23 writer: the program that last wrote it (id below), 0 none
//   bits 24-47 reader: the program that read it, 0 none, k_several more than one
//   bits 48-54 the writer's source location (index into the launch's table, 0 unknown)
//   bits 55-61 the reader's source location
//   bit  62    U: some access held no lock, or accesses held different locks (Eraser: racy)
//   bit  63    G: an access held a lock, recorded in race_shadow::guard_cells
// Program ids are linear + 1 modulo 2^24 - 2: grids of more than 16M programs alias ids, which
// can only hide a race between two aliased programs, never invent one.
using cell = uint64_t;
constexpr uint64_t k_id_mask = 0xFFFFFF;
constexpr uint64_t k_several = 0xFFFFFF;
constexpr int k_reader_shift = 24, k_wloc_shift = 48, k_rloc_shift = 55;
constexpr uint64_t k_loc_mask = 0x7F;
constexpr uint64_t k_unguarded = 1ull << 62, k_guarded = 1ull << 63;
constexpr uint64_t k_writer_bits = k_id_mask | (k_loc_mask << k_wloc_shift);
constexpr uint64_t k_reader_bits = (k_id_mask << k_reader_shift) | (k_loc_mask << k_rloc_shift);

inline uint32_t writer_of(cell c) { return static_cast<uint32_t>(c & k_id_mask); }
inline uint32_t reader_of(cell c) {
  return static_cast<uint32_t>((c >> k_reader_shift) & k_id_mask);
}
inline uint16_t wloc_of(cell c) { return static_cast<uint16_t>((c >> k_wloc_shift) & k_loc_mask); }
inline uint16_t rloc_of(cell c) { return static_cast<uint16_t>((c >> k_rloc_shift) & k_loc_mask); }

}  // namespace

// Cells of one buffer, in chunks of 1024 elements. Each chunk has its own spin lock (programs on
// different chunks never wait for each other, and a row of lanes takes one lock, not one per
// lane) and the serial of the launch that last touched it. A chunk is either uniform, every
// element holding the same cell (`value`), or detailed (`cells`). A launch's first touch makes it
// uniform and empty, without clearing anything; an access covering the whole chunk (a program's
// contiguous row of lanes: add, softmax, any 1-D tile on chunk boundaries) updates a uniform
// chunk once, not once per lane; anything else spreads `value` into the cells first.
// A deferred read: rows of `cols` elements from `row0`, `row_stride` apart, by one program.
struct footprint {
  int64_t row0, row_stride;
  int32_t cols, rows;
  uint64_t mine;  // the reader's bits of a cell: program id and source location
  uint32_t me;
};
constexpr size_t k_max_deferred = size_t(1) << 20;

struct race_shadow {
  struct chunk {
    std::atomic<uint32_t> lock{0};
    bool uniform = true;
    uint64_t serial = 0;
    cell value = 0;
    uint32_t guard = 0;  // a uniform chunk whose value has G: the lock that guarded every element
  };
  explicit race_shadow(const shadow_state& sh)
      : cells(new cell[static_cast<size_t>(sh.numel)]),
        chunks(new chunk[static_cast<size_t>((sh.numel >> k_chunk_bits) + 1)]),
        numel(sh.numel) {}
  void host_wrote() {}  // host writes are between launches: not a race
  std::unique_ptr<cell[]> cells;
  std::unique_ptr<chunk[]> chunks;
  int64_t numel;
  // The lock that guarded each element whose cell has G set (G is cleared with the cell each
  // launch, so values left from earlier launches are never read). Made at the buffer's first
  // guarded access; written and read with the element's chunk locked.
  std::mutex guard_mu;
  std::atomic<uint32_t*> guard_cells{nullptr};
  std::unique_ptr<uint32_t[]> guard_store;
  uint32_t* guards() {
    if (uint32_t* g = guard_cells.load(std::memory_order_acquire)) return g;
    std::lock_guard lk(guard_mu);
    if (!guard_store) {
      guard_store.reset(new uint32_t[static_cast<size_t>(numel)]);
      guard_cells.store(guard_store.get(), std::memory_order_release);
    }
    return guard_store.get();
  }
  // Deferred reads of launch defer_serial; written_serial: the launch whose first store has
  // replayed them (reads of that launch are recorded per element from then on).
  std::mutex defer_mu;
  std::atomic<uint64_t> written_serial{0};
  uint64_t defer_serial = 0;
  std::vector<footprint> deferred;

  void lock(int64_t c) {
    auto& l = chunks[static_cast<size_t>(c)].lock;
    while (l.exchange(1, std::memory_order_acquire))
      while (l.load(std::memory_order_relaxed)) std::this_thread::yield();
  }
  void unlock(int64_t c) {
    chunks[static_cast<size_t>(c)].lock.store(0, std::memory_order_release);
  }
  // With chunk c locked: forget the previous launch's record.
  chunk& claim(int64_t c, uint64_t serial) {
    chunk& ch = chunks[static_cast<size_t>(c)];
    if (ch.serial != serial) ch.serial = serial, ch.uniform = true, ch.value = 0;
    return ch;
  }
  // With chunk c locked: per-element cells from here on.
  void detail(int64_t c) {
    chunk& ch = chunks[static_cast<size_t>(c)];
    if (!ch.uniform) return;
    const int64_t b = c << k_chunk_bits;
    const int64_t len = std::min<int64_t>(int64_t(1) << k_chunk_bits, numel - b);
    std::fill_n(cells.get() + b, len, ch.value);
    if (ch.value & k_guarded) std::fill_n(guards() + b, len, ch.guard);
    ch.uniform = false;
  }
};

namespace {
// Per program: the locks it holds (taken by an atomic_cas that swapped, not released yet), the
// first few; the first one guards its accesses.
constexpr int k_locks_held = 4;
struct locks_held {
  const void* locks[k_locks_held];
  int n;
};
}  // namespace

namespace {

// Cell c with program `me` (reader bits `mine`) recorded as a reader: the first reader, or
// "several" once another program read it too.
inline cell add_reader(cell c, uint32_t me, uint64_t mine) {
  const uint32_t rd = reader_of(c);
  if (rd == 0) return (c & ~k_reader_bits) | mine;
  if (rd != me) return (c & ~(k_id_mask << k_reader_shift)) | (k_several << k_reader_shift);
  return c;
}
// A read by program `me` of an element whose cell is c, no lock held.
inline cell with_read(cell c, uint32_t me, uint64_t mine) {
  return add_reader(c | k_unguarded, me, mine);
}

// Records a deferred read in the cells (with defer_mu held, before the launch's first store).
// No race can show: nothing has been written in this launch yet.
void replay(race_shadow& r, const footprint& f, uint64_t serial) {
  cell* cells = r.cells.get();
  for (int rr = 0; rr < f.rows; ++rr) {
    const int64_t rowbase = f.row0 + rr * f.row_stride;
    for (int c0 = 0; c0 < f.cols;) {
      const int64_t e = rowbase + c0;
      const int64_t ch = e >> k_chunk_bits;
      const int64_t b = ch << k_chunk_bits;
      const int64_t end = std::min<int64_t>(b + (int64_t(1) << k_chunk_bits), r.numel);
      const int c1 = static_cast<int>(std::min<int64_t>(f.cols, c0 + (end - e)));
      r.lock(ch);
      auto& chunk = r.claim(ch, serial);
      if (chunk.uniform && e == b && rowbase + c1 == end) {
        chunk.value = with_read(chunk.value, f.me, f.mine);
      } else {
        r.detail(ch);
        for (int cc = c0; cc < c1; ++cc)
          cells[rowbase + cc] = with_read(cells[rowbase + cc], f.me, f.mine);
      }
      r.unlock(ch);
      c0 = c1;
    }
  }
}

// Keeps a read as a footprint if nothing has been written to the buffer in this launch; false:
// record it per element now.
bool defer_read(race_shadow& r, const footprint& f, uint64_t serial) {
  if (r.written_serial.load(std::memory_order_acquire) == serial) return false;
  std::lock_guard lk(r.defer_mu);
  if (r.written_serial.load(std::memory_order_relaxed) == serial) return false;
  if (r.defer_serial != serial) r.deferred.clear(), r.defer_serial = serial;
  if (r.deferred.size() >= k_max_deferred) return false;
  r.deferred.push_back(f);
  return true;
}

// Before the launch's first store to the buffer: the deferred reads go into the cells.
void before_write(race_shadow& r, uint64_t serial) {
  if (r.written_serial.load(std::memory_order_acquire) == serial) return;
  std::lock_guard lk(r.defer_mu);
  if (r.written_serial.load(std::memory_order_relaxed) == serial) return;
  if (r.defer_serial == serial)
    for (const footprint& f : r.deferred) replay(r, f, serial);
  r.deferred.clear();
  r.deferred.shrink_to_fit();
  r.written_serial.store(serial, std::memory_order_release);
}

}  // namespace

namespace {

race_shadow& race_of(shadow_state& sh) { return buffer_shadow<race_shadow>(sh); }

// An access whose performed lanes are `rows` runs of `cols` contiguous elements, run r from
// element row0 + r * stride, its j-th element in lane r * pitch + j * step: a contiguous row of
// lanes, a tile whose rows are contiguous, or one whose columns are (a transposed view's tile),
// either with every lane performed or with each run's first `cols` lanes performed and the rest
// not (a mask that stops at a ragged edge: `cols < n`).
struct runs {
  bool ok = false;     // the shape above; false: look at each lane
  bool empty = false;  // no lane performed
  int cols = 0, rows = 0, pitch = 0, step = 1;
  int64_t stride = 0;
};
runs rows_of(const access& a, const bool* perform) {
  runs rs;
  if (a.lanes < 1) return rs;
  if (a.lanes == 1) {
    // A scalar access: a run of one (a reduction's shift or a row's statistic, read by every
    // program: kept as a footprint like a row, so that it does not split the row's chunk).
    rs = {true, false, 1, 1, 1, 1, 0};
  } else if (a.contiguous()) {
    rs = {true, false, a.lanes, 1, a.lanes, 1, 0};
  } else if (a.rows_contiguous && a.cols > 0) {
    rs = {true, false, a.cols, a.lanes / a.cols, a.cols, 1, a.row_stride};
  } else if (a.cols_contiguous && a.cols > 0) {
    rs = {true, false, a.rows, a.cols, 1, a.cols, a.col_stride};
  } else {
    uint64_t diff = 0;  // one vector loop, no early exit
    const int64_t* off = a.off;
    for (int i = 1; i < a.lanes; ++i) diff |= static_cast<uint64_t>(off[i] - (off[0] + i));
    if (diff) return rs;
    rs = {true, false, a.lanes, 1, a.lanes, 1, 0};
  }
  if (!perform && a.all_active) return rs;
  // Each run's performed lanes must be its first k, the same k in every run.
  auto prefix = [&](runs t) {
    int k = -1;
    for (int r = 0; r < t.rows; ++r) {
      const int lane0 = r * t.pitch;
      int p = 0;
      while (p < t.cols && performed(a, perform, lane0 + p * t.step)) ++p;
      for (int c = p + 1; c < t.cols; ++c)
        if (performed(a, perform, lane0 + c * t.step)) return runs{};
      if (k >= 0 && p != k) return runs{};
      k = p;
    }
    t.cols = k;
    t.empty = k == 0;
    return t;
  };
  if (const runs t = prefix(rs);
      t.ok || rs.rows > 1 || !a.rows_contiguous || a.rows <= 1 || a.cols <= 0)
    return t;
  // A contiguous tile taken as one run above: its rows, each masked at the same column.
  return prefix(runs{true, false, a.cols, a.rows, a.cols, 1, a.row_stride});
}

struct race_check final : observer {
  launch_state* launch = nullptr;
  std::mutex mu;  // guards locs, loc_index, reported
  // Source locations by index; copied, since an access points at its op's source_location
  // parameter on the program's stack. Index 0: unknown (also every op past the 127th).
  std::vector<std::source_location> locs{std::source_location{}};
  std::map<std::tuple<const char*, uint32_t, uint32_t>, uint16_t> loc_index;
  std::set<std::tuple<int, int, int>> reported;

  uint32_t bit() const override { return checks::race; }
  // Whether programs of the launch run on several threads at once (the parallel schedule): the
  // chunks' spin locks are taken only then.
  bool threaded = true;
  void begin(launch_state& L) override {
    launch = &L;
    threaded = L.sched == schedule::parallel;
  }

  uint16_t index_of(const std::source_location* loc) {
    if (!loc) return 0;
    thread_local loc_cache<uint16_t> known;
    if (const uint16_t* hit = known.find(launch->serial, *loc)) return *hit;
    const std::tuple<const char*, uint32_t, uint32_t> key{loc->file_name(), loc->line(),
                                                          loc->column()};
    std::lock_guard lk(mu);
    auto [it, fresh] = loc_index.emplace(key, static_cast<uint16_t>(locs.size()));
    if (fresh) {
      if (locs.size() > k_loc_mask)
        it->second = 0;  // out of indices: the line goes unnamed
      else
        locs.push_back(*loc);
    }
    known.put(launch->serial, *loc, it->second);
    return it->second;
  }

  // The lock the program holds (the first it took), as a non-zero key; 0: none.
  static uint32_t guard_of(const program_state& s) {
    const auto& held = program_scratch<locks_held>(s);
    if (held.n == 0) return 0;
    const auto h = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(held.locks[0]) >> 2);
    return h == 0 ? 1u : h;
  }

  // Eraser's lockset rule with one lock per element: sets U on cell c of element e when this
  // access held no lock or another lock than earlier accesses of this launch. The caller holds
  // e's chunk lock.
  static void apply_guard(race_shadow& r, cell& c, int64_t e, uint32_t guard) {
    if (!guard) {
      c |= k_unguarded;
      return;
    }
    if (c & k_unguarded) return;
    uint32_t& g = r.guards()[e];
    if (!(c & k_guarded)) {
      c |= k_guarded;
      g = guard;
    } else if (g != guard) {
      c |= k_unguarded;
    }
  }

  void on_access(const access& a, const bool* perform, program_state& s) override {
    if (a.kind == access_kind::atomic || !a.alloc || !a.alloc->shadow) return;
    // A read of a buffer that no argument of the launch lets a program write (bound only to
    // ptr<const T>) cannot meet a write in this launch: nothing to record.
    if (a.kind == access_kind::load) {
      const char* lo = static_cast<const char*>(a.alloc->buffer);
      if (read_only(lo, lo + a.alloc->numel * a.alloc->elem_bytes)) return;
    }
    race_shadow& r = race_of(*a.alloc->shadow);
    const int64_t ids = int64_t(k_id_mask) - 1;  // a division only past 16M programs
    const uint32_t me = static_cast<uint32_t>(s.linear < ids ? s.linear : s.linear % ids) + 1;
    const uint32_t guard = guard_of(s);
    const uint64_t li = index_of(a.loc);
    const bool write = a.kind == access_kind::store;
    const uint64_t serial = launch->serial;
    const uint64_t mine = write ? (me | (li << k_wloc_shift))
                                : ((uint64_t(me) << k_reader_shift) | (li << k_rloc_shift));
    // kind 0: write-write, 1: read-after-write, 2: write-after-read
    std::vector<int> lanes[3];
    uint32_t other[3] = {0, 0, 0};
    uint16_t other_loc[3] = {0, 0, 0};
    auto note = [&](int k, int i, uint32_t who, uint16_t where) {
      if (lanes[k].empty()) other[k] = who, other_loc[k] = where;
      lanes[k].push_back(i);
    };
    // The performed lanes as runs of contiguous elements (rows_of says which accesses): such
    // an access may cover whole chunks, which update in one step while uniform.
    const runs rs = rows_of(a, perform);
    if (rs.empty) return;  // nothing performed: nothing to record
    const int64_t row0 = a.base + a.off.first();
    cell* cells = r.cells.get();
    int64_t held = -1;  // the chunk whose lock this thread holds
    // A read that changes nothing and races with nothing: read again by this program, or by
    // yet another reader of an input many programs read (a matmul's tiles), no lock held.
    auto quiet = [&](cell c) {
      const uint32_t rd = reader_of(c), w = writer_of(c);
      return (rd == me || rd == k_several) && (c & k_unguarded) && (w == 0 || w == me);
    };
    auto read_lane = [&](int i, int64_t e) {
      cell c = cells[e];
      if (!guard && quiet(c)) return;
      apply_guard(r, c, e, guard);
      const uint32_t w = writer_of(c);
      if ((c & k_unguarded) && w && w != me) note(1, i, w, wloc_of(c));
      cells[e] = add_reader(c, me, mine);
    };
    if (write) {
      before_write(r, serial);
    } else if (!guard && rs.ok) {
      if (defer_read(r, footprint{row0, rs.stride, rs.cols, rs.rows, mine, me}, serial)) return;
    }
    // The per-element write rule: U set unless every access held the same lock; a write after
    // another program's write or read races.
    auto write_lane = [&](int i, int64_t e) {
      cell c = cells[e];
      // A program re-touching what it already touched the same way, with no other program
      // recorded and the element already unguarded, changes nothing and races with nothing.
      if ((c & k_writer_bits) == mine && (c & k_unguarded) && !guard &&
          (reader_of(c) == 0 || reader_of(c) == me))
        return;
      apply_guard(r, c, e, guard);
      if (c & k_unguarded) {
        const uint32_t w = writer_of(c), rd = reader_of(c);
        if (w && w != me)
          note(0, i, w, wloc_of(c));
        else if (rd && rd != me)
          note(2, i, rd, rloc_of(c));
      }
      cells[e] = (c & ~k_writer_bits) | mine;
    };
    // Accesses shaped as runs (rows_of): walk each run's pieces within a chunk. A read run whose
    // cells (or uniform chunk) are all quiet is skipped after one test; a write run that meets no
    // other program is written in one straight pass; a run covering a uniform chunk updates it
    // once. No offsets are written out.
    if (rs.ok) {
      const int cols = rs.cols, nrows = rs.rows;
      const int64_t stride = rs.stride;
      for (int rr = 0; rr < nrows; ++rr) {
        const int64_t rowbase = row0 + rr * stride;
        for (int c0 = 0; c0 < cols;) {
          const int64_t e = rowbase + c0;
          const int64_t ch = e >> k_chunk_bits;
          const int64_t b = ch << k_chunk_bits;
          const int64_t end = std::min<int64_t>(b + (int64_t(1) << k_chunk_bits), r.numel);
          const int c1 = static_cast<int>(std::min<int64_t>(cols, c0 + (end - e)));
          const int lane0 = rr * rs.pitch;
          if (ch != held) {
            if (held >= 0 && threaded) r.unlock(held);
            if (threaded) r.lock(ch);
            held = ch;
          }
          auto& chunk = r.claim(ch, serial);
          if (!guard && chunk.uniform && !write && quiet(chunk.value)) {
            c0 = c1;
            continue;
          }
          if (chunk.uniform && e == b && rowbase + c1 == end) {
            // The whole chunk: as for one element (write_lane, read_lane), every lane of it
            // reported alike; a lock held is the chunk's guard while every access held it.
            cell c = chunk.value;
            if (!guard) {
              c |= k_unguarded;
            } else if (!(c & k_unguarded)) {
              if (!(c & k_guarded))
                c |= k_guarded, chunk.guard = guard;
              else if (chunk.guard != guard)
                c |= k_unguarded;
            }
            const uint32_t w = writer_of(c), rd = reader_of(c);
            int k = -1;
            uint32_t who = 0;
            uint16_t where = 0;
            const bool racy = (c & k_unguarded) != 0;
            if (write) {
              if (racy && w && w != me)
                k = 0, who = w, where = wloc_of(c);
              else if (racy && rd && rd != me)
                k = 2, who = rd, where = rloc_of(c);
              c = (c & ~k_writer_bits) | mine;
            } else {
              if (racy && w && w != me) k = 1, who = w, where = wloc_of(c);
              c = add_reader(c, me, mine);
            }
            chunk.value = c;
            if (k >= 0)
              for (int cc = c0; cc < c1; ++cc) note(k, lane0 + cc * rs.step, who, where);
            c0 = c1;
            continue;
          }
          if (chunk.uniform) r.detail(ch);
          cell* run = cells + rowbase;
          if (guard) {
            // Under a lock: in one pass when every element was only ever accessed under this
            // same lock in this launch (or not at all), so no race can show; else per element.
            uint32_t* g = r.guards() + rowbase;
            uint32_t mixed = 0;
            for (int cc = c0; cc < c1; ++cc) {
              const cell c = run[cc];
              mixed |= static_cast<uint32_t>((c & k_unguarded) != 0) |
                       static_cast<uint32_t>(((c & k_guarded) != 0) & (g[cc] != guard));
            }
            if (mixed) {
              for (int cc = c0; cc < c1; ++cc)
                write ? write_lane(lane0 + cc * rs.step, rowbase + cc)
                      : read_lane(lane0 + cc * rs.step, rowbase + cc);
            } else {
              for (int cc = c0; cc < c1; ++cc) {
                g[cc] = guard;
                run[cc] =
                    (write ? (run[cc] & ~k_writer_bits) | mine : add_reader(run[cc], me, mine)) |
                    k_guarded;
              }
            }
          } else if (write) {
            // Straight passes when no other program touched the run: one test, one update.
            uint32_t others = 0;
            for (int cc = c0; cc < c1; ++cc) {
              const cell c = run[cc];
              const uint32_t w = writer_of(c), rd = reader_of(c);
              others |= static_cast<uint32_t>((w != 0) & (w != me)) |
                        static_cast<uint32_t>((rd != 0) & (rd != me));
            }
            if (!others)
              for (int cc = c0; cc < c1; ++cc)
                run[cc] = (run[cc] & ~k_writer_bits) | mine | k_unguarded;
            else
              for (int cc = c0; cc < c1; ++cc) write_lane(lane0 + cc * rs.step, rowbase + cc);
          } else {
            bool all_quiet = true;
            for (int cc = c0; cc < c1; ++cc) all_quiet &= quiet(run[cc]);
            if (!all_quiet)
              for (int cc = c0; cc < c1; ++cc) read_lane(lane0 + cc * rs.step, rowbase + cc);
          }
          c0 = c1;
        }
      }
      if (held >= 0 && threaded) r.unlock(held);
      for (int k = 0; k < 3; ++k)
        if (!lanes[k].empty()) report_race(k, a, s, lanes[k], other[k], other_loc[k]);
      return;
    }
    // Anything else (a lock held, lanes not performed, scattered offsets): element by element.
    const int64_t* off = a.off.get();
    for (int i = 0; i < a.lanes; ++i) {
      if (!performed(a, perform, i)) continue;
      const int64_t e = a.base + off[i];
      if (const int64_t ch = e >> k_chunk_bits; ch != held) {
        if (held >= 0 && threaded) r.unlock(held);
        if (threaded) r.lock(ch);
        held = ch;
        r.claim(ch, serial);
        r.detail(ch);
      }
      if (write)
        write_lane(i, e);
      else
        read_lane(i, e);
    }
    if (held >= 0 && threaded) r.unlock(held);
    for (int k = 0; k < 3; ++k)
      if (!lanes[k].empty()) report_race(k, a, s, lanes[k], other[k], other_loc[k]);
  }

  void report_race(int k, const access& a, const program_state& s, const std::vector<int>& lanes,
                   uint32_t other, uint16_t other_li) {
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
    // Past 2^24 - 2 programs ids alias (see `cell`): the id no longer names one program.
    const bool named = other != k_several && launch->programs.size() < k_id_mask - 1;
    std::string other_prog = "another program";
    if (other == k_several) {
      other_prog = "several other programs";
    } else if (named) {
      const auto& o = launch->programs[other - 1];
      other_prog = "program " + pid_text(o.pid);
    }
    static const char* const what[3] = {"write-write", "read-after-write", "write-after-read"};
    diagnostic d = access_diag("race", a, lanes);
    d.headline = std::string("Race (") + what[k] +
                 "): " + plural(static_cast<int>(lanes.size()), "lane") + " of " +
                 std::to_string(active_lanes(a)) + " active " +
                 (k == 1 ? "read elements " : "write elements ") + (k == 2 ? "read" : "written") +
                 " by " + other_prog + " in the same launch (" + a.op + ")";
    d.detail = "other side: " + other_prog + " " + (k == 2 ? "read" : "wrote") + " them at " +
               loc_text(other_loc) + "; this side: program " + pid_text(s.pid) + " at " +
               loc_text(a.loc);
    if (swap_sides && at) {
      d.file = at->file_name();
      d.line = static_cast<int>(at->line());
      if (named) d.pid = launch->programs[other - 1].pid;
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

void on_lock(const void* addr, bool acquire) {
  program_state* s = current();
  if (!s) return;
  auto& c = program_scratch<locks_held>(*s);
  if (acquire) {
    if (c.n < k_locks_held) c.locks[c.n++] = addr;
    return;
  }
  for (int i = 0; i < c.n; ++i)
    if (c.locks[i] == addr) {
      for (int j = i + 1; j < c.n; ++j) c.locks[j - 1] = c.locks[j];
      --c.n;
      return;
    }
}

}  // namespace bv::detail
