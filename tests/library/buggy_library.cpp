// A kernel library whose kernels go wrong in each way a host must report: an out-of-bounds read
// (a diagnostic of the host's interpreter, with this file's line), a wrong result, an exception
// while making inputs, a size it refuses; and one correct kernel with two outputs.
#include <bv/kernel_library.hpp>
#include <stdexcept>

namespace {

using bv::library::sizes;

template <int BLOCK, bool FIXED>
BV_KERNEL void shift_add(bv::program<4> p, bv::ptr<const float> x, bv::ptr<float> out, int n) {
  auto offs = p.id(0) * BLOCK + bv::arange<BLOCK>(p);
  auto mask = offs < n;
  auto here = bv::load(x + offs, mask, 0.0f);
  // FIXED=false: x[i+1] guarded by i < n, so lane n-1 reads x[n] (the line library_cli.sh greps).
  auto next = bv::load(x + offs + 1, FIXED ? (offs + 1 < n) : mask, 0.0f);  // BUGGY-LOAD
  bv::store(out + offs, here + next, mask);
}

// out = -x and twice = 2x: two outputs compared at once.
BV_KERNEL void negate_double(bv::program<4> p, bv::ptr<const float> x, bv::ptr<float> neg,
                             bv::ptr<float> twice, int n) {
  auto offs = p.id(0) * 256 + bv::arange<256>(p);
  auto v = bv::load(x + offs, offs < n, 0.0f);
  bv::store(neg + offs, -v, offs < n);
  bv::store(twice + offs, v * 2.0f, offs < n);
}

struct io {
  bv::tensor<float> x, out;
};
io make(const sizes& s, uint64_t seed) {
  return io{bv::tensor<float>::randn("x", {s[0]}, seed), bv::library::output<float>("out", {s[0]})};
}
std::vector<double> shift_add_ref(const io& a) {
  const int64_t n = a.x.numel();
  std::vector<double> r(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    r[static_cast<size_t>(i)] = double(a.x(i)) + (i + 1 < n ? double(a.x(i + 1)) : 0.0);
  return r;
}
void expect_out(bv::library::checker& c, const io& a, const std::vector<double>& r) {
  c.expect(a.out, r, 1e-6);
}
template <bool FIXED>
bv::launch_result launch_shift_add(io& a) {
  const int n = static_cast<int>(a.x.numel());
  return bv::launch<shift_add<256, FIXED>>(bv::grid(bv::cdiv(n, 256)), a.x, a.out, n);
}

const bv::library::registration oob{bv::library::kernel<io, std::vector<double>>{
    .name = "lib_shift_add_oob",
    .description = "x[i] + x[i+1] with an off-by-one mask: reads one past the end",
    .default_size = {1000},
    .make = make,
    .launch = launch_shift_add<false>,
    .reference = shift_add_ref,
    .compare = expect_out,
}};

const bv::library::registration fixed{bv::library::kernel<io, std::vector<double>>{
    .name = "lib_shift_add",
    .description = "x[i] + x[i+1], x[n] taken as 0",
    .default_size = {1000},
    .bench_size = {100000},
    .accepts = [](const sizes& s) -> std::string {
      return s[0] > 1000000 ? "N above 1000000 is more than this test needs" : "";
    },
    .make = make,
    .launch = launch_shift_add<true>,
    .reference = shift_add_ref,
    .compare = expect_out,
    .note = "a test kernel",
}};

// The correct kernel checked against a reference off by x[i]: the host must say it does not match.
const bv::library::registration wrong{bv::library::kernel<io, std::vector<double>>{
    .name = "lib_wrong_result",
    .description = "a correct kernel checked against a wrong reference",
    .default_size = {1000},
    .make = make,
    .launch = launch_shift_add<true>,
    .reference =
        [](const io& a) {
          auto r = shift_add_ref(a);
          for (size_t i = 0; i < r.size(); ++i) r[i] += a.x(static_cast<int64_t>(i));
          return r;
        },
    .compare = expect_out,
}};

const bv::library::registration throws{bv::library::kernel<io, std::vector<double>>{
    .name = "lib_throws",
    .description = "its input maker throws",
    .default_size = {10},
    .make = [](const sizes&, uint64_t) -> io {
      throw std::runtime_error("cannot make inputs of this size");
    },
    .launch = launch_shift_add<true>,
    .reference = shift_add_ref,
    .compare = expect_out,
}};

struct io2 {
  bv::tensor<float> x, neg, twice;
};
struct ref2 {
  std::vector<double> neg, twice;
};
const bv::library::registration two{bv::library::kernel<io2, ref2>{
    .name = "lib_two_outputs",
    .description = "-x and 2x, both compared",
    .default_size = {777},
    .make =
        [](const sizes& s, uint64_t seed) {
          return io2{bv::tensor<float>::randn("x", {s[0]}, seed),
                     bv::library::output<float>("neg", {s[0]}),
                     bv::library::output<float>("twice", {s[0]})};
        },
    .launch =
        [](io2& a) {
          const int n = static_cast<int>(a.x.numel());
          return bv::launch<negate_double>(bv::grid(bv::cdiv(n, 256)), a.x, a.neg, a.twice, n);
        },
    .reference =
        [](const io2& a) {
          ref2 r;
          for (int64_t i = 0; i < a.x.numel(); ++i) {
            r.neg.push_back(-double(a.x(i)));
            r.twice.push_back(2.0 * double(a.x(i)));
          }
          return r;
        },
    .compare =
        [](bv::library::checker& c, const io2& a, const ref2& r) {
          c.expect(a.neg, r.neg, 1e-6);
          c.expect(a.twice, r.twice, 1e-6);
        },
}};

}  // namespace
