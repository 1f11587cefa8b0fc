// Corpus: contiguity (arguments and hints), int32 overflow, NaN/Inf production, deadlock,
// device_assert, and the wavefront warnings (uncoalesced access, low lane utilisation).
#include "corpus.hpp"

using namespace bv;

namespace {

// Indexes a 2-D tensor as row-major with its row length: wrong for a transposed view.
template <int B>
void row_major_copy(program<1> p, ptr<const float> x, ptr<float> out, int cols) {
  auto c = arange<B>(p);
  auto v = load(x + p.id(0) * cols + c, c < cols);
  store(out + p.id(0) * cols + c, v, c < cols);
}

template <int B>
void hinted_copy(program<4> p, ptr<const float> x, ptr<float> out, int start) {
  auto offs = multiple_of(start + arange<B>(p), 16);  // @mult
  store(out + offs, load(x + offs));
}

template <int B>
void contiguous_claim(program<4> p, ptr<const float> x, ptr<float> out) {
  auto offs = max_contiguous(arange<B>(p) * 2, B);  // @contig
  store(out + arange<B>(p), load(x + offs));
}

template <int B>
void good_hints(program<4> p, ptr<const float> x, ptr<float> out) {
  auto offs = max_contiguous(multiple_of(p.id(0) * B + arange<B>(p), 16), B);
  store(out + offs, load(x + offs));
}

// Row offsets times a large stride in i32: wraps for the later rows.
template <int B>
void strided_rows_i32(program<4> p, ptr<const float> x, ptr<float> out, int stride, int rows) {
  auto r = arange<B>(p);
  auto off = r * stride;                   // wraps from row 32 on
  auto v = load(x + off, r < rows, 0.0f);  // @ovf
  store(out + r, v, r < rows);
}

// Clean: the same with i64 offsets.
template <int B>
void strided_rows_i64(program<4> p, ptr<const float> x, ptr<float> out, int64_t stride, int rows) {
  auto r = arange<B>(p);
  auto off = r.to(i64) * stride;
  auto v = load(x + off, r < rows, 0.0f);
  store(out + r, v, r < rows);
}

template <int B>
void log_of(program<4> p, ptr<const float> x, ptr<float> out) {
  auto offs = arange<B>(p);
  auto y = log(load(x + offs));  // @log
  store(out + offs, y);
}

template <int B>
void ratio(program<4> p, ptr<const float> x, ptr<const float> y, ptr<float> out) {
  auto offs = p.id(0) * B + arange<B>(p);
  store(out + offs, load(x + offs) / load(y + offs));  // @div
}

// Clean for the nan check: NaN in the input is passed through, not produced.
template <int B>
void pass_through(program<4> p, ptr<const float> x, ptr<float> out) {
  auto offs = arange<B>(p);
  store(out + offs, exp(load(x + offs)) * 0.0f + load(x + offs));
}

// Clean for the nan check too: the loaded block that held the NaN is gone before the NaN it
// passed on is stored (a loaded block is tested for NaN read from memory when it ends).
template <int B>
void pass_through_scoped(program<4> p, ptr<const float> x, ptr<float> out) {
  auto offs = arange<B>(p);
  block<float, B> kept;
  {
    auto v = load(x + offs);
    kept = v + 1.0f;
  }
  store(out + offs, kept - 1.0f);
}

// Rows of a read-only input summed one by one: each loaded row ends before the sum is stored,
// and a NaN read from memory is only tested for when a store of NaN asks (more rows than a
// program keeps untested, then an atomic, which lets the shuffled schedule run the other
// program first). Each program of pass_through_rows reads an Inf: clean. sum_rows_over_zero
// divides finite sums by zero: the Inf is the program's own.
template <int B, int ROWS>
block<float, B> half_row_sum(program<4>& p, ptr<const float> x) {
  auto offs = arange<B>(p);
  auto acc = zeros<float, B>(p);
  for (int r = 0; r < ROWS; ++r) acc += load(x + (p.id(0) * ROWS + r) * B + offs) * 0.5f;
  return acc;
}
template <int B, int ROWS>
void pass_through_rows(program<4> p, ptr<const float> x, ptr<float> out, ptr<int32_t> count) {
  auto acc = half_row_sum<B, ROWS>(p, x);
  atomic_add(count, 1);
  store(out + p.id(0) * B + arange<B>(p), acc);
}
template <int B, int ROWS>
void sum_rows_over_zero(program<4> p, ptr<const float> x, ptr<float> out, ptr<int32_t> count) {
  auto acc = half_row_sum<B, ROWS>(p, x);
  atomic_add(count, 1);
  store(out + p.id(0) * B + arange<B>(p), acc / (acc * 0.0f));  // @over_zero
}

// Program 0 takes the lock and never releases it.
void lock_forever(program<1> p, ptr<int32_t> lock, ptr<float> out) {
  while (atomic_cas(lock, 0, 1) != 0) {  // @spin
  }
  store(out + p.id(0), 1.0f);
}

template <int B>
void assert_positive(program<4> p, ptr<const float> x) {
  auto v = load(x + p.id(0) * B + arange<B>(p));
  device_assert(p, v > 0.0f, "inputs must be positive");  // @assert
}

// Sums the row's blocks with for_range and a step from the host: 0 would never end.
template <int B>
void row_sum_blocks(program<4> p, ptr<const float> x, ptr<float> out, int n, int step) {
  auto r = arange<B>(p);
  auto acc = for_range(p, 0, n, step, zeros<float, B>(p), [&](int k, auto acc) {  // @step
    return acc + load(x + p.id(0) * n + k + r, k + r < n, 0.0f);
  });
  store(out + p.id(0), sum(acc));
}

// Column sums of 32-column tiles of x [32, n], its tiles streamed by for_range; `bad` also loads
// the streamed block pointer in the body (on a GPU that load would go into the ring the loop's
// pipeline owns).
void stream_tiles(program<4> p, ptr<const float> x, ptr<float> out, int n, bool bad) {
  auto bp = make_block_ptr<32, 32>(p, x, {32, n}, {n, 1}, {0, 0});
  auto other = make_block_ptr<32, 32>(p, x, {32, n}, {n, 1}, {0, 0});
  auto acc = for_range(p, 0, n, 32, zeros<float, 32, 32>(p), along(bp, {0, 32}, boundary_check(1)),
                       [&](int, const auto& t, auto acc) {
                         if (bad) acc = acc + load(bp, boundary_check(1));  // @sload
                         return acc + t + load(other, boundary_check(1));
                       });
  auto r = arange<32>(p);
  store(out + ((p.id(0) * 32 + r.col()) * 32 + r.row()), acc);
}

// stream_tiles' sums with the streamed block pointer capped at one ring slot: the same values, and
// a note (stream-slots) that on a GPU the stream is not pipelined.
void stream_one_slot(program<4> p, ptr<const float> x, ptr<float> out, int n) {
  auto bp = make_block_ptr<32, 32>(p, x, {32, n}, {n, 1}, {0, 0}, max_slots<1>);
  auto acc = for_range(p, 0, n, 32, zeros<float, 32, 32>(p),
                       along(bp, {0, 32}, boundary_check(1)),  // @oneslot
                       [&](int, const auto& t, auto acc) { return acc + t; });
  auto r = arange<32>(p);
  store(out + (r.col() * 32 + r.row()), acc);
}

// stream_tiles' sums plus, at every step, the tile of h [32, 32] a held stream (along {0, 0})
// holds; each step then stores that tile plus one over h. A held stream's tile is loaded once, at
// the first step, so every step adds h's first values (on a GPU it stays in its ring's slot, the
// one slot max_slots<1> gives it, and no note is said).
void held_stream(program<4> p, ptr<const float> x, ptr<float> h, ptr<float> out, int n) {
  auto bp = make_block_ptr<32, 32>(p, x, {32, n}, {n, 1}, {0, 0});
  auto hp = make_block_ptr<32, 32>(p, h, {32, 32}, {32, 1}, {0, 0}, max_slots<1>);
  auto r = arange<32>(p);
  auto acc = for_range(p, 0, n, 32, zeros<float, 32, 32>(p), along(hp, {0, 0}),
                       along(bp, {0, 32}, boundary_check(1)),
                       [&](int, const auto& held, const auto& t, auto acc) {
                         store(h + (r.col() * 32 + r.row()), held + 1.0f);
                         return acc + t + held;
                       });
  store(out + (r.col() * 32 + r.row()), acc);
}

// stream_tiles' loop over a tensor it also writes: each step stores its tile plus one into x,
// `ahead` columns on. Ahead by 32, that is the next step's tile, which the loop streams later (a
// pipelined loop may have read it already, and the interpreter, which loads each tile at its step,
// would see the store); at 0 it is the step's own tile, already read: an update in place.
void stream_overwrite(program<4> p, ptr<float> x, ptr<float> out, int n, int ahead) {
  auto bp = make_block_ptr<32, 32>(p, x, {32, n}, {n, 1}, {0, 0});
  auto r = arange<32>(p);
  auto acc = for_range(p, 0, n, 32, zeros<float, 32, 32>(p), along(bp, {0, 32}, boundary_check(1)),
                       [&](int k, const auto& t, auto acc) {
                         auto c = k + ahead + r.row();
                         store(x + (r.col() * n + c), t + 1.0f, c < n);  // @sstore
                         return acc + t;
                       });
  store(out + (r.col() * 32 + r.row()), acc);
}

// The same over x^T through a column-major block pointer (xt is [n, 32] row-major; the pointer
// sees it as [32, n], strides {1, 32}), its tiles taken from the last columns back (a negative
// step): each step stores ones into the columns the next step's tile reads.
void stream_overwrite_back(program<4> p, ptr<float> xt, ptr<float> out, int n) {
  const int last = (n - 1) / 32 * 32;
  auto bp = make_block_ptr<32, 32>(p, xt, {32, n}, {1, 32}, {0, last});
  auto r = arange<32>(p);
  auto acc = for_range(p, 0, n, 32, zeros<float, 32, 32>(p), along(bp, {0, -32}, boundary_check(1)),
                       [&](int k, const auto& t, auto acc) {
                         auto c = last - k - 32 + r.col();  // the next step's columns
                         auto ones = zeros<float, 32, 32>(p) + 1.0f;
                         store(xt + (c * 32 + r.row()), ones, c >= 0);  // @sback
                         return acc + t;
                       });
  store(out + (r.col() * 32 + r.row()), acc);
}

// Reads a column block of a row-major matrix: every lane in its own segment.
template <int B>
void column_read(program<4> p, ptr<const float> x, ptr<float> out, int ld) {
  auto r = arange<B>(p);
  store(out + p.id(0) * B + r, load(x + r * ld + p.id(0)));  // @column
}

// A 16-element block in a program of 4 waves of 64 lanes.
void tiny_block(program<4> p, ptr<const float> x, ptr<float> out) {
  auto offs = p.id(0) * 16 + arange<16>(p);
  store(out + offs, load(x + offs) + 1.0f);  // @tiny
}

// out = x + y for 64 x 64 f16 tiles, read through two block pointers and stored through a third.
// On sm_90 each read-only block pointer's loads go through an LDS ring of the launch's stages
// (bv/rings.hpp); the output's, over a tensor the kernel writes, has none.
void two_rings(program<4> p, ptr<const half> x, ptr<const half> y, ptr<float> out) {
  auto a = make_block_ptr<64, 64>(p, x, {64, 64}, {64, 1}, {0, 0});
  auto b = make_block_ptr<64, 64>(p, y, {64, 64}, {64, 1}, {0, 0});  // @ring2
  auto o = make_block_ptr<64, 64>(p, out, {64, 64}, {64, 1}, {0, 0});
  store(o, load(a).to(f32) + load(b).to(f32));
}

}  // namespace

BV_DIAG_CASE(noncontiguous_argument) {
  auto x = tensor<float>::randn("x", {64, 32}, 7);
  auto xt = x.transposed();
  auto out = tensor<float>::zeros("out", {32, 64});
  launch<row_major_copy<64>>(grid(32), xt, out, 64);
}

BV_DIAG_CASE(hint_multiple_of_false) {
  auto x = tensor<float>::randn("x", {300}, 8);
  auto out = tensor<float>::zeros("out", {300});
  launch<hinted_copy<256>>(grid(1), x, out, 3);
}

BV_DIAG_CASE(hint_max_contiguous_false) {
  auto x = tensor<float>::randn("x", {512}, 8);
  auto out = tensor<float>::zeros("out", {256});
  launch<contiguous_claim<256>>(grid(1), x, out);
}

BV_DIAG_CASE(clean_hints_hold) {
  auto x = tensor<float>::randn("x", {1024}, 8);
  auto out = tensor<float>::zeros("out", {1024});
  launch<good_hints<256>>(grid(4), x, out);
}

BV_DIAG_CASE(overflow_i32_row_offsets) {
  auto x = tensor<float>::randn("x", {64}, 9);
  auto out = tensor<float>::zeros("out", {64});
  launch<strided_rows_i32<64>>(grid(1), x, out, 1 << 26, 1);
}

BV_DIAG_CASE(clean_i64_row_offsets) {
  auto x = tensor<float>::randn("x", {64}, 9);
  auto out = tensor<float>::zeros("out", {64});
  launch<strided_rows_i64<64>>(grid(1), x, out, int64_t(1) << 26, 1);
}

BV_DIAG_CASE(nan_log_of_zero) {
  auto x = tensor<float>::full("x", {256}, 1.0f);
  x(17) = 0.0f;
  auto out = tensor<float>::zeros("out", {256});
  launch<log_of<256>>(grid(1), x, out);
}

BV_DIAG_CASE(nan_division_by_zero) {
  auto x = tensor<float>::full("x", {512}, 1.0f);
  auto y = tensor<float>::full("y", {512}, 2.0f);
  y(300) = 0.0f;
  auto out = tensor<float>::zeros("out", {512});
  launch<ratio<256>>(grid(2), x, y, out);
}

BV_DIAG_CASE(clean_nan_input_passed_through) {
  auto x = tensor<float>::full("x", {256}, 1.0f);
  x(3) = NAN;
  auto out = tensor<float>::zeros("out", {256});
  launch<pass_through<256>>(grid(1), x, out);
}

BV_DIAG_CASE(clean_nan_input_load_ended) {
  auto x = tensor<float>::full("x", {1024}, 1.0f);
  x(700) = INFINITY;
  auto out = tensor<float>::zeros("out", {1024});
  launch<pass_through_scoped<1024>>(grid(1), x, out);
}

BV_DIAG_CASE(clean_nan_input_many_rows) {
  // Program 0's Inf in its first row (tested when its untested rows overflow), program 1's in its
  // last (still untested at the store).
  auto x = tensor<float>::full("x", {2 * 24 * 256}, 1.0f);
  x(5) = INFINITY;
  x((24 + 23) * 256 + 7) = NAN;
  auto out = tensor<float>::zeros("out", {2 * 256});
  auto count = tensor<int32_t>::zeros("count", {1});
  launch<pass_through_rows<256, 24>>(grid(2), x, out, count);
}

BV_DIAG_CASE(nan_produced_after_many_rows) {
  auto x = tensor<float>::full("x", {2 * 24 * 256}, 1.0f);
  auto out = tensor<float>::zeros("out", {2 * 256});
  auto count = tensor<int32_t>::zeros("count", {1});
  launch<sum_rows_over_zero<256, 24>>(grid(2), x, out, count);
}

BV_DIAG_CASE(deadlock_lock_never_released) {
  auto lock = tensor<int32_t>::zeros("lock", {1});
  auto out = tensor<float>::zeros("out", {4});
  launch<lock_forever>(grid(4), lock, out);
}

BV_DIAG_CASE(device_assert_fails) {
  auto x = tensor<float>::full("x", {512}, 1.0f);
  x(300) = -1.0f;
  launch<assert_positive<256>>(grid(2), x);
}

BV_DIAG_CASE(loop_step_zero) {
  auto x = tensor<float>::randn("x", {2, 300}, 11);
  auto out = tensor<float>::zeros("out", {2});
  launch<row_sum_blocks<128>>(grid(2), x, out, 300, 0);
}

BV_DIAG_CASE(clean_loop_step) {
  auto x = tensor<float>::randn("x", {2, 300}, 11);
  auto out = tensor<float>::zeros("out", {2});
  launch<row_sum_blocks<128>>(grid(2), x, out, 300, 128);
  for (int i = 0; i < 2; ++i) {
    double want = 0;
    for (int j = 0; j < 300; ++j) want += x(i, j);
    CHECK(out(i) == doctest::Approx(want).epsilon(1e-5));
  }
}

BV_DIAG_CASE(stream_load_in_body) {
  auto x = tensor<float>::randn("x", {32, 100}, 12);
  auto out = tensor<float>::zeros("out", {64, 32});
  launch<stream_tiles>(grid(2), x, out, 100, true);
}

// The same loop without the bad load: another block pointer over the same tensor may be loaded.
BV_DIAG_CASE(clean_stream_tiles) {
  auto x = tensor<float>::randn("x", {32, 100}, 12);
  auto out = tensor<float>::zeros("out", {32, 32});
  launch<stream_tiles>(grid(1), x, out, 100, false);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      double want = 4 * double(x(i, j));  // four steps add the first tile through `other`
      for (int k = j; k < 100; k += 32) want += x(i, k);
      CHECK(out(i, j) == doctest::Approx(want).epsilon(1e-5));
    }
}

BV_DIAG_CASE(stream_one_slot) {
  auto x = tensor<float>::randn("x", {32, 100}, 17);
  auto out = tensor<float>::full("out", {32, 32}, std::nanf(""));
  launch<stream_one_slot>(grid(1), x, out, 100);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      double want = 0;
      for (int k = j; k < 100; k += 32) want += x(i, k);
      CHECK(out(i, j) == doctest::Approx(want).epsilon(1e-5));
    }
}

BV_DIAG_CASE(clean_held_stream) {
  auto x = tensor<float>::randn("x", {32, 100}, 13);
  auto h = tensor<float>::randn("h", {32, 32}, 14);
  std::vector<double> h0(32 * 32);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) h0[i * 32 + j] = h(i, j);
  auto out = tensor<float>::full("out", {32, 32}, std::nanf(""));
  launch<held_stream>(grid(1), x, h, out, 100);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      double want = 4 * h0[i * 32 + j];  // four steps, each adding the tile held from the first
      for (int k = j; k < 100; k += 32) want += x(i, k);
      CHECK(out(i, j) == doctest::Approx(want).epsilon(1e-5));
      CHECK(h(i, j) == doctest::Approx(h0[i * 32 + j] + 1.0).epsilon(1e-6));
    }
}

// The launch sized the LDS for one ring of two slots; the kernel's second read-only block pointer
// needs another: on sm_90 the GPU would trap at its make_block_ptr (ring-lds, once a launch).
BV_DIAG_CASE(ring_lds_short) {
  testing::target_scope scope(target::sm_90);
  auto x = tensor<half>::randn("x", {64, 64}, 21), y = tensor<half>::randn("y", {64, 64}, 22);
  auto out = tensor<float>::full("out", {64, 64}, std::nanf(""));
  launch<two_rings>(gpu_tuning<2>{block_ptr_lds_bytes<half, 64, 64, 4>(2)}, grid(1), x, y, out);
}

// Sized for both rings, on every target; values as without rings.
BV_DIAG_CASE(clean_ring_lds) {
  for (target t : all_targets) {
    testing::target_scope scope(t);
    auto x = tensor<half>::randn("x", {64, 64}, 23), y = tensor<half>::randn("y", {64, 64}, 24);
    auto out = tensor<float>::full("out", {64, 64}, std::nanf(""));
    launch<two_rings>(gpu_tuning<2>{2 * block_ptr_lds_bytes<half, 64, 64, 4>(2)}, grid(1), x, y,
                      out);
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < 64; ++j)
        CHECK(out(i, j) == doctest::Approx(double(float(x(i, j))) + double(float(y(i, j)))));
  }
}

BV_DIAG_CASE(stream_store_in_body) {
  auto x = tensor<float>::randn("x", {32, 100}, 15);
  auto out = tensor<float>::zeros("out", {32, 32});
  launch<stream_overwrite>(grid(1), x, out, 100, 32);
}

BV_DIAG_CASE(stream_store_column_major_back) {
  auto xt = tensor<float>::randn("xt", {100, 32}, 16);
  auto out = tensor<float>::zeros("out", {32, 32});
  launch<stream_overwrite_back>(grid(1), xt, out, 100);
}

// The same loop storing over each step's own tile: read before the store on every backend.
BV_DIAG_CASE(clean_stream_in_place) {
  auto x = tensor<float>::randn("x", {32, 100}, 15);
  std::vector<double> x0(32 * 100);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 100; ++j) x0[i * 100 + j] = x(i, j);
  auto out = tensor<float>::full("out", {32, 32}, std::nanf(""));
  launch<stream_overwrite>(grid(1), x, out, 100, 0);
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 32; ++j) {
      double want = 0;
      for (int k = j; k < 100; k += 32) want += x0[i * 100 + k];
      CHECK(out(i, j) == doctest::Approx(want).epsilon(1e-5));
    }
    for (int j = 0; j < 100; ++j)
      CHECK(x(i, j) == doctest::Approx(x0[i * 100 + j] + 1.0).epsilon(1e-6));
  }
}

BV_DIAG_CASE_ALL(uncoalesced_column_read) {
  auto x = tensor<float>::randn("x", {256, 256}, 10);
  auto out = tensor<float>::zeros("out", {256 * 256});
  launch<column_read<256>>(grid(256), x, out, 256);
}

BV_DIAG_CASE_ALL(low_lane_utilisation) {
  auto x = tensor<float>::randn("x", {64}, 11);
  auto out = tensor<float>::zeros("out", {64});
  launch<tiny_block>(grid(4), x, out);
}
