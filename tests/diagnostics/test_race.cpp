// Corpus: races between programs of one launch, and the patterns that look like races but are
// not (atomics, a lock, a program reading what it wrote itself, disjoint tiles).
#include "corpus.hpp"

using namespace bv;

namespace {

// Every program writes the same BLOCK elements.
template <int B>
void all_write_same(program<4> p, ptr<float> out) {
  store(out + arange<B>(p), full<float, B>(p, p.id(0)));  // @ww
}

// In-place 3-point smoothing: program i reads its neighbours' elements, which they overwrite.
template <int B>
void smooth_in_place(program<4> p, ptr<float> x, int n) {
  auto offs = p.id(0) * B + arange<B>(p);
  auto l = load(x + offs - 1, (offs >= 1) & (offs - 1 < n), 0.0f);  // @left
  auto r = load(x + offs + 1, offs + 1 < n, 0.0f);                  // @right
  store(x + offs, (l + r) * 0.5f, offs < n);                        // @smooth_store
}

// The same stencil written as out-of-place, called with one tensor for both: src is bound to
// ptr<const T>, but the buffer is written through dst, so its reads race all the same.
template <int B>
void shift_left(program<4> p, ptr<const float> src, ptr<float> dst, int n) {
  auto offs = p.id(0) * B + arange<B>(p);
  auto v = load(src + offs + 1, offs + 1 < n, 0.0f);  // @shift_read
  store(dst + offs, v, offs < n);
}

// A sum into one accumulator with plain load and store: the lost-update race.
template <int B>
void racy_total(program<4> p, ptr<const float> x, ptr<float> total) {
  auto v = load(x + p.id(0) * B + arange<B>(p));
  const float t = load(total);  // @racy_load
  store(total, t + sum(v));     // @racy_store
}

// Clean: the same with atomic_add, from many programs.
template <int B>
void atomic_total(program<4> p, ptr<const float> x, ptr<float> total, ptr<int32_t> hist) {
  auto v = load(x + p.id(0) * B + arange<B>(p));
  atomic_add(total, sum(v));
  atomic_add(hist + (arange<B>(p) % 8), 1);
}

// Clean: the same under a lock taken with atomic_cas and released with atomic_xchg.
template <int B>
void locked_total(program<4> p, ptr<const float> x, ptr<float> total, ptr<int32_t> lock) {
  auto v = load(x + p.id(0) * B + arange<B>(p));
  const float s = sum(v);
  while (atomic_cas(lock, 0, 1) != 0) {
  }
  store(total, load(total) + s);
  atomic_xchg(lock, 0);
}

// Clean: each program writes its block, reads it back and writes it again.
template <int B>
void read_own_write(program<4> p, ptr<float> out) {
  auto offs = p.id(0) * B + arange<B>(p);
  store(out + offs, offs.to(f32));
  auto v = load(out + offs);
  store(out + offs, v * 2.0f);
}

// Clean: a 2-D grid, each program its own tile.
template <int BM, int BN>
void tile_fill(program<4> p, ptr<float> out, int ld) {
  auto r = p.id(0) * BM + arange<BM>(p);
  auto c = p.id(1) * BN + arange<BN>(p);
  store(out + (r.col() * ld + c.row()), 1.0f);
}

// Program 0 writes two chunks of the race check's shadow whole, as one row of lanes (its
// whole-chunk path); program 1 reads 16 elements across the chunks' boundary (its per-element
// path, which must see what the whole-chunk path recorded, in either order).
void row_then_part(program<1> p, ptr<float> buf, ptr<float> out) {
  if (p.id(0) == 0) {
    store(buf + arange<2048>(p), 1.0f);
  } else {
    auto v = load(buf + 1016 + arange<16>(p));  // @part_read
    store(out + arange<16>(p), v);
  }
}

// Program 0 copies a 16x32 tile of m (rows 64 apart, every lane active: the race check keeps
// such a read as a footprint while nothing has written m in the launch); program 1 clears a 4x4
// block inside that tile. Reported at the read, whichever program ran first.
void tile_read_then_cleared(program<1> p, ptr<float> m, ptr<float> out) {
  if (p.id(0) == 0) {
    auto r = arange<16>(p);
    auto c = arange<32>(p);
    auto v = load(m + (r.col() * 64 + c.row()));  // @tile_read
    store(out + (r.col() * 32 + c.row()), v);
  } else {
    auto r = 8 + arange<4>(p);
    auto c = 20 + arange<4>(p);
    store(m + (r.col() * 64 + c.row()), 0.0f);
  }
}

// Program 0 writes a row of partial sums under the lock; program 1 forgets the lock. The lock
// protects nothing when one side skips it (Eraser's rule): a write-write race. B = 1024 covers
// whole chunks of the check's shadow, which it records once per chunk, not per element.
template <int B>
void lock_skipped(program<1> p, ptr<float> acc, ptr<int32_t> lock) {
  auto cols = arange<B>(p);
  if (p.id(0) == 0) {
    while (atomic_cas(lock, 0, 1) != 0) {
    }
    store(acc + cols, load(acc + cols) + 1.0f);  // @locked_store
    atomic_xchg(lock, 0);
  } else {
    store(acc + cols, 2.0f);  // @unlocked_store
  }
}

// LayerNorm-backward's pattern on rows of 1024 (whole chunks of the shadow): program i adds
// i + 1 into row i % groups under that row's lock; the first program of a group writes the row.
void locked_rows(program<1> p, ptr<float> acc, ptr<int32_t> locks, int groups) {
  auto cols = arange<1024>(p);
  const int g = p.id(0) % groups;
  auto part = (cols + p.id(0)).to(f32);
  while (atomic_cas(locks + g, 0, 1) != 0) {
  }
  if (atomic_xchg(locks + groups + g, 1) != 0) part += load(acc + g * 1024 + cols);
  store(acc + g * 1024 + cols, part);
  atomic_xchg(locks + g, 0);
}

// The same row guarded by two locks: odd programs take another lock than even ones, so the
// lock excludes nothing between the two halves.
void two_locks_one_row(program<1> p, ptr<float> acc, ptr<int32_t> locks) {
  auto cols = arange<1024>(p);
  auto lock = locks + p.id(0) % 2;
  while (atomic_cas(lock, 0, 1) != 0) {
  }
  auto v = load(acc + cols);    // @two_locks_load
  store(acc + cols, v + 1.0f);  // @two_locks_store
  atomic_xchg(lock, 0);
}

// Rows of n < 1024 packed n apart, each program its own row through a mask that stops at n
// (the check records each row's first n lanes as one run): clean.
void ragged_rows(program<4> p, ptr<const float> x, ptr<float> y, int n) {
  auto cols = arange<1024>(p);
  auto m = cols < n;
  store(y + p.id(0) * n + cols, load(x + p.id(0) * n + cols, m, 0.0f) * 2.0f, m);
}

// The same rows, but a program also reads the start of the next program's row (a halo): a
// read-after-write race at the second load, whichever program runs first.
void ragged_rows_overlap(program<4> p, ptr<float> y, int n) {
  auto cols = arange<1024>(p);
  store(y + p.id(0) * n + cols, full<float, 1024>(p, 1.0f), cols < n);
  auto next = load(y + (p.id(0) + 1) * n + cols, cols < 8, 0.0f);  // @halo_read
  store(y + p.id(0) * n + cols, next, cols < 1);
}

// Tiles of a column-major matrix (element (r, c) at r + c * ld, as a transposed view lays them
// out): each column of a tile is contiguous. Tile rows start `step` apart: 16 gives each program
// its own tile (clean), 15 makes neighbouring tiles share a row (a write-write race).
template <int step>
void column_tiles(program<4> p, ptr<const float> x, ptr<float> y, int ld) {
  auto r = p.id(0) * step + arange<16>(p);
  auto c = p.id(1) * 16 + arange<16>(p);
  auto offs = r.col() + c.row() * ld;
  store(y + offs, load(x + offs) + 1.0f);  // @column_tile_store
}

}  // namespace

BV_DIAG_CASE(clean_column_major_tiles) {
  auto x = tensor<float>::randn("x", {48 * 64}, 10);
  auto y = tensor<float>::empty("y", {48 * 64});
  launch<column_tiles<16>>(grid(4, 3), x, y, 64);
  for (int i : {0, 17, 64 * 47 + 63}) REQUIRE(y(i) == x(i) + 1.0f);
}

BV_DIAG_CASE(race_column_major_tiles_overlap) {
  auto x = tensor<float>::randn("x", {48 * 64}, 11);
  auto y = tensor<float>::zeros("y", {48 * 64});
  launch<column_tiles<15>>(grid(4, 3), x, y, 64);
}

BV_DIAG_CASE(clean_ragged_rows) {
  const int rows = 6, n = 700;
  auto x = tensor<float>::randn("x", {rows, n}, 9);
  auto y = tensor<float>::empty("y", {rows, n});
  launch<ragged_rows>(grid(rows), x, y, n);
  for (int r = 0; r < rows; ++r)
    for (int c : {0, n / 2, n - 1}) REQUIRE(y(r, c) == 2.0f * x(r, c));
}

BV_DIAG_CASE(race_ragged_rows_halo) {
  const int n = 700;
  auto y = tensor<float>::zeros("y", {5 * n});
  launch<ragged_rows_overlap>(grid(4), y, n);
}

BV_DIAG_CASE(race_lock_skipped) {
  auto acc = tensor<float>::zeros("acc", {256});
  auto lock = tensor<int32_t>::zeros("lock", {1});
  launch<lock_skipped<256>>(grid(2), acc, lock);
}

BV_DIAG_CASE(race_lock_skipped_whole_rows) {
  auto acc = tensor<float>::zeros("acc", {1024});
  auto lock = tensor<int32_t>::zeros("lock", {1});
  launch<lock_skipped<1024>>(grid(2), acc, lock);
}

BV_DIAG_CASE(race_two_locks_one_row) {
  auto acc = tensor<float>::zeros("acc", {1024});
  auto locks = tensor<int32_t>::zeros("locks", {2});
  launch<two_locks_one_row>(grid(4), acc, locks);
}

BV_DIAG_CASE(clean_lock_protected_rows) {
  const int programs = 37, groups = 4;
  auto acc = tensor<float>::empty("acc", {groups, 1024});
  auto locks = tensor<int32_t>::zeros("locks", {2 * groups});
  launch<locked_rows>(grid(programs), acc, locks, groups);
  for (int g = 0; g < groups; ++g)
    for (int c : {0, 511, 1023}) {
      float want = 0;
      for (int i = g; i < programs; i += groups) want += float(c + i);
      REQUIRE(acc(g, c) == want);
    }
}

BV_DIAG_CASE(race_tile_read_then_cleared) {
  auto m = tensor<float>::randn("m", {64, 64}, 7);
  auto out = tensor<float>::zeros("out", {16, 32});
  launch<tile_read_then_cleared>(grid(2), m, out);
}

BV_DIAG_CASE(race_write_write) {
  auto out = tensor<float>::zeros("out", {256});
  launch<all_write_same<256>>(grid(4), out);
}

BV_DIAG_CASE(race_in_place_stencil) {
  auto x = tensor<float>::randn("x", {512}, 5);
  launch<smooth_in_place<128>>(grid(4), x, 512);
}

BV_DIAG_CASE(race_const_alias_of_written) {
  auto x = tensor<float>::randn("x", {512}, 5);
  launch<shift_left<128>>(grid(4), x, x, 512);
}

BV_DIAG_CASE(race_lost_update) {
  auto x = tensor<float>::randn("x", {1024}, 6);
  auto total = tensor<float>::zeros("total", {1});
  launch<racy_total<256>>(grid(4), x, total);
}

BV_DIAG_CASE(race_row_then_part) {
  auto buf = tensor<float>::zeros("buf", {2048});
  auto out = tensor<float>::zeros("out", {16});
  launch<row_then_part>(grid(2), buf, out);
}

BV_DIAG_CASE(clean_atomics_many_programs) {
  auto x = tensor<float>::full("x", {16 * 256}, 1.0f);
  auto total = tensor<float>::zeros("total", {1});
  auto hist = tensor<int32_t>::zeros("hist", {8});
  launch<atomic_total<256>>(grid(16), x, total, hist);
  REQUIRE(total(0) == 4096.0f);
  REQUIRE(hist(3) == 16 * 32);
}

BV_DIAG_CASE(clean_lock_protected_sum) {
  auto x = tensor<float>::full("x", {16 * 256}, 1.0f);
  auto total = tensor<float>::zeros("total", {1});
  auto lock = tensor<int32_t>::zeros("lock", {1});
  launch<locked_total<256>>(grid(16), x, total, lock);
  REQUIRE(total(0) == 4096.0f);
}

BV_DIAG_CASE(clean_reads_own_writes) {
  auto out = tensor<float>::zeros("out", {1024});
  launch<read_own_write<256>>(grid(4), out);
  REQUIRE(out(1023) == 2046.0f);
}

BV_DIAG_CASE(clean_disjoint_tiles) {
  auto out = tensor<float>::zeros("out", {128, 128});
  launch<tile_fill<32, 64>>(grid(4, 2), out, 128);
  REQUIRE(out(127, 127) == 1.0f);
}
