// Launch configurations (bv/launch_config.hpp): a library launch under each target runs the
// configuration its kernel declares for that target and problem size (the kernel's template
// arguments, waves, threads), the pick follows the table's rows in order, and only distinct
// configurations are instantiated.
#include <bv/testing.hpp>
#include <stdexcept>
#include <string>

#include "bv/kernels/add.hpp"
#include "bv/kernels/attention.hpp"
#include "bv/kernels/col_sum.hpp"
#include "bv/kernels/cross_entropy.hpp"
#include "bv/kernels/layernorm.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/matmul_fused.hpp"
#include "bv/kernels/rmsnorm.hpp"
#include "bv/kernels/softmax.hpp"

using namespace bv;
using namespace bv::testing;

namespace {

std::string args(std::initializer_list<int> v) {
  std::string s;
  for (int x : v) s += ", " + std::to_string(x);
  return s + ">";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void check_ran(const launch_result& r, target t, int waves) {
  CHECK(r.ok());
  CHECK(r.tgt == t);
  CHECK(r.waves == waves);
  CHECK(r.threads_per_program == waves * wave_size_of(t));
}

// A table whose rows differ by target, to pin down the rule: first row whose targets include the
// launch's and whose up_to holds the key.
struct probe_configs {
  static constexpr const char* key = "probe size";
  static constexpr launch_config table[] = {
      {.targets = only(target::sm_90), .up_to = 100, .block = 1, .waves = 1},
      {.up_to = 100, .block = 2, .waves = 2},
      {.targets = amd_targets, .up_to = 1000, .block = 3, .waves = 4},
      {.targets = only(target::gfx90a), .block = 2, .waves = 2},  // the same launch as row 1
  };
};

}  // namespace

TEST_CASE("launch_config: the first row for the target that holds the key") {
  CHECK(find_config<probe_configs>(target::sm_90, 50) == 0);
  CHECK(find_config<probe_configs>(target::gfx942, 50) == 1);
  CHECK(find_config<probe_configs>(target::gfx942, 100) == 1);
  CHECK(find_config<probe_configs>(target::gfx942, 101) == 2);
  CHECK(find_config<probe_configs>(target::sm_90, 101) == -1);
  CHECK(find_config<probe_configs>(target::gfx942, 1001) == -1);
  CHECK(find_config<probe_configs>(target::gfx90a, 1001) == 3);

  // Rows 1 and 3 launch the same thing: one instantiation serves both.
  std::vector<int> seen;
  auto pick = [&](target t, int64_t key) {
    return with_config<probe_configs>(t, key, "probe", [&](auto c) {
      seen.push_back(decltype(c)::index);
      return decltype(c)::value.block;
    });
  };
  CHECK(pick(target::sm_90, 7) == 1);
  CHECK(pick(target::gfx90a, 7) == 2);
  CHECK(pick(target::gfx90a, 5000) == 2);
  CHECK(pick(target::gfx942, 500) == 3);
  CHECK(seen == std::vector<int>{0, 1, 1, 2});
  static_assert(detail::canonical<probe_configs, runtime_key, any_target.bits>(3) == 1);

  // A key no row holds is an error that names the kernel, the key and the target.
  try {
    pick(target::sm_90, 101);
    FAIL("expected an error");
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    CHECK(m.find("probe: probe size 101") != std::string::npos);
    CHECK(m.find("sm_90") != std::string::npos);
    CHECK(m.find("at most 100") != std::string::npos);
  }
}

TEST_CASE("launch_config: row kernels run the declared block and waves on every target") {
  const int sizes[] = {1, 200, 256, 257, 1000, 1024, 1025, 3000, 4096, 5000, 8192};
  for (target t : all_targets) {
    CAPTURE(target_name(t));
    target_scope scope(t);
    for (int n : sizes) {
      CAPTURE(n);
      const launch_config c = config_for<kernels::rmsnorm_fwd_configs>(t, n);
      CHECK(c.block >= n);
      auto x = tensor<float>::randn("x", {3, n}, 1);
      auto w = tensor<float>::randn("w", {n}, 2);
      auto y = tensor<float>::empty("y", {3, n});
      auto rstd = tensor<float>::empty("rstd", {3});
      auto r = kernels::rmsnorm_fwd(x, w, y, rstd);
      check_ran(r, t, c.waves);
      CHECK(r.kernel == "bv::kernels::rmsnorm_fwd_kernel<float" + args({c.block, c.waves}));

      const launch_config s = config_for<kernels::softmax_configs>(t, n);
      auto so = kernels::softmax(x, y);
      check_ran(so, t, s.waves);
      CHECK(so.kernel == "bv::kernels::softmax_kernel<float" + args({s.block, s.waves}));

      const launch_config l = config_for<kernels::layernorm_fwd_configs>(t, n);
      auto mean = tensor<float>::empty("mean", {3});
      auto ln = kernels::layernorm_fwd(x, w, w, y, mean, rstd);
      check_ran(ln, t, l.waves);
      CHECK(ln.kernel == "bv::kernels::layernorm_fwd_kernel<float" + args({l.block, l.waves}));
    }
  }
}

TEST_CASE("launch_config: the declared values, as written in the tables") {
  auto x = tensor<float>::randn("x", {2, 1000}, 3);
  auto w = tensor<float>::randn("w", {1000}, 4);
  auto y = tensor<float>::empty("y", {2, 1000});
  auto rstd = tensor<float>::empty("rstd", {2});
  auto wide = tensor<float>::randn("wide", {2, 5000}, 5);
  auto wide_w = tensor<float>::randn("wide_w", {5000}, 6);
  auto wide_y = tensor<float>::empty("wide_y", {2, 5000});
  auto long_rows = tensor<float>::randn("long", {2, 9000}, 7);
  auto long_y = tensor<float>::empty("long_y", {2, 9000});
  for (target t : all_targets) {
    CAPTURE(target_name(t));
    target_scope scope(t);
    CHECK(kernels::rmsnorm_fwd(x, w, y, rstd).kernel ==
          "bv::kernels::rmsnorm_fwd_kernel<float, 1024, 4>");
    // The forward's own row on sm_90 (8 warps); the fused add keeps rmsnorm_configs' 16.
    auto r = kernels::rmsnorm_fwd(wide, wide_w, wide_y, rstd);
    const int fwd_waves = t == target::sm_90 ? 8 : 16;
    CHECK(r.kernel == "bv::kernels::rmsnorm_fwd_kernel<float" + args({8192, fwd_waves}));
    CHECK(r.threads_per_program == (t == target::sm_90 ? 256 : 1024));
    auto wide_h = tensor<float>::empty("wide_h", {2, 5000});
    auto fused = kernels::add_rmsnorm_fwd(wide, wide, wide_w, wide_h, wide_y, rstd);
    CHECK(fused.kernel == "bv::kernels::add_rmsnorm_fwd_kernel<float, 8192, 16>");
    CHECK(fused.threads_per_program == (t == target::sm_90 ? 512 : 1024));
    CHECK(kernels::softmax(long_rows, long_y).kernel ==
          "bv::kernels::softmax_looped_kernel<float, 4096, 8>");
    // softmax at 8192 columns: 8 warps on sm_90, 16 waves on AMD.
    auto sm = kernels::softmax(wide, wide_y);
    CHECK(sm.kernel == "bv::kernels::softmax_kernel<float" + args({8192, fwd_waves}));
    CHECK(sm.threads_per_program == (t == target::sm_90 ? 256 : 1024));
    CHECK_THROWS_AS(
        kernels::rmsnorm_fwd(long_rows, tensor<float>::randn("lw", {9000}, 8), long_y, rstd),
        std::invalid_argument);

    auto a = tensor<float>::randn("a", {3000}, 9), b = tensor<float>::randn("b", {3000}, 10);
    auto out = tensor<float>::empty("out", {3000});
    auto add = kernels::add(a, b, out);
    CHECK(add.kernel == "bv::kernels::add_kernel<float, 2048, 4>");
    CHECK(add.programs == 2);

    // col_sum: 32 x 128 on sm_90's 32-lane warps, 64 x 64 on AMD's 64-lane waves.
    auto partial = tensor<float>::randn("partial", {5, 300}, 11);
    auto sums = tensor<float>::empty("sums", {300});
    auto cs = kernels::col_sum(partial, sums);
    CHECK(cs.kernel == (t == target::sm_90 ? "bv::kernels::col_sum_kernel<float, 32, 128, 4>"
                                           : "bv::kernels::col_sum_kernel<float, 64, 64, 4>"));
    CHECK(cs.programs == (t == target::sm_90 ? 3 : 5));

    // matmul: 16-bit inputs take 8 waves, 128x256x64 tiles on sm_90 (two warpgroups) and
    // 256x256x32 on AMD; f32 128x64x32 on sm_90 (CUDA cores), 64x64x32 on AMD.
    auto ha = tensor<half>::randn("ha", {70, 40}, 12), hb = tensor<half>::randn("hb", {40, 50}, 13);
    auto hc = tensor<float>::empty("hc", {70, 50});
    auto mm = kernels::matmul(ha, hb, hc);
    CHECK(mm.ok());
    CHECK(ends_with(mm.kernel,
                    t == target::sm_90 ? ", 128, 256, 64, 8, 8, 4>" : ", 256, 256, 32, 8, 8, 2>"));
    CHECK(mm.programs == 1);
    check_ran(mm, t, 8);
    auto fa = tensor<float>::randn("fa", {70, 40}, 14),
         fb = tensor<float>::randn("fb", {40, 50}, 15);
    CHECK(ends_with(kernels::matmul(fa, fb, hc).kernel,
                    t == target::sm_90 ? ", 128, 64, 32, 8, 4, 0>" : ", 64, 64, 32, 8, 4, 3>"));
    // The fused matmul: on AMD its block-pointer variant (a's and b's tiles streamed, 2 stages),
    // on sm_90 the pointer loads; 64x64x32 on 4 waves on both.
    auto bias = tensor<float>::randn("bias", {50}, 16);
    auto mba = kernels::matmul_bias_act<kernels::epilogue::gelu_tanh>(fa, fb, bias, hc);
    CHECK(mba.ok());
    CHECK(mba.kernel.rfind(t == target::sm_90 ? "bv::kernels::matmul_bias_act_kernel<"
                                              : "bv::kernels::matmul_bias_act_bp_kernel<",
                           0) == 0);
    CHECK(ends_with(mba.kernel,
                    t == target::sm_90 ? ", 64, 64, 32, 8, 4>" : ", 64, 64, 32, 8, 4, 2>"));
    check_ran(mba, t, 4);

    // attention forward at D = 64: on gfx942 128 query rows x 64 keys, 8 waves, q, k and v through
    // block pointers (variant 3: k and v stream as 16-byte runs); on sm_90 variant 3 on 64 x 64 on
    // one warpgroup; on gfx90a 64 x 64, 4 waves (the larger tile spills SGPRs there).
    auto q = tensor<half>::randn("q", {1, 1, 130, 64}, 16);
    auto o = tensor<half>::empty("o", {1, 1, 130, 64});
    auto lse = tensor<float>::empty("lse", {1, 130});
    auto at = kernels::attention_fwd(q, q, q, o, lse, true);
    const bool mi200 = t == target::gfx90a;
    CHECK(ends_with(at.kernel, mi200                ? ", 64, 64, 64, true, 4, 0>"
                               : t == target::sm_90 ? ", 64, 64, 64, true, 4, true>"
                                                    : ", 64, 128, 64, true, 8, true>"));
    check_ran(at, t, mi200 || t == target::sm_90 ? 4 : 8);
    CHECK(at.programs == (mi200 || t == target::sm_90 ? 3 : 2));
    // Its backward: dK/dV 64x64 on 4 waves everywhere (on sm_90 its k q^T form, k and v held in
    // ring slots); dQ on its own table's tile, 128 query rows by 64 keys on 8 warps on sm_90 (q and
    // dout held there, k and v streamed).
    auto dq = tensor<half>::empty("dq", {1, 1, 130, 64}),
         dk = tensor<half>::empty("dk", {1, 1, 130, 64}),
         dv = tensor<half>::empty("dv", {1, 1, 130, 64});
    const auto bw64 = kernels::attention_bwd(q, q, q, o, lse, q, dq, dk, dv, true);
    REQUIRE(bw64.size() == 3);
    CHECK(bw64[1].kernel.find(t == target::sm_90
                                  ? "attention_bwd_dkdv_held_kernel"
                                  : "attention_bwd_dkdv_kernel") != std::string::npos);
    CHECK(ends_with(bw64[1].kernel, ", 64, 64, 64, true, 4>"));
    CHECK(bw64[1].programs == 3);
    CHECK(bw64[2].kernel.find(t == target::sm_90 ? "attention_bwd_dq_held_kernel"
                                                 : "attention_bwd_dq_kernel") != std::string::npos);
    CHECK(ends_with(bw64[2].kernel,
                    t == target::sm_90 ? ", 64, 128, 64, true, 8>" : ", 64, 64, 64, true, 4>"));
    CHECK(bw64[2].programs == (t == target::sm_90 ? 2 : 3));
    check_ran(bw64[2], t, t == target::sm_90 ? 8 : 4);

    // D = 128: 128x128 on 8 warps on sm_90, the halves of D through block pointers (variant 4);
    // on AMD the D = 64 tiles (MFMA-sized): on gfx942 variant 3, q k^T staged in slices to fit
    // the LDS, and on gfx90a the halves of D too.
    auto q2 = tensor<half>::randn("q2", {1, 1, 70, 128}, 18);
    auto o2 = tensor<half>::empty("o2", {1, 1, 70, 128});
    auto lse3 = tensor<float>::empty("lse3", {1, 70});
    auto at2 = kernels::attention_fwd(q2, q2, q2, o2, lse3, false);
    CAPTURE(at2.kernel);
    CHECK(at2.kernel.find(t == target::sm_90 || mi200
                              ? "attention_fwd_halves_kernel"
                              : "attention_fwd_bp_kernel<") != std::string::npos);
    CHECK(ends_with(at2.kernel, mi200                ? ", 128, 64, 64, false, 4>"
                                : t == target::sm_90 ? ", 128, 128, 128, false, 8>"
                                                     : ", 128, 128, 64, false, 8, true>"));
    CHECK(at2.programs == (mi200 ? 2 : 1));
    // Its backward: dK/dV (k q^T) 64 query rows x 128 keys on 8 warps on sm_90 and dQ 128x64 on 8;
    // 64x64 on 4 waves on AMD, dQ in halves of D there (variant 2), and on gfx942 dK/dV too
    // (variant 3).
    auto dq2 = tensor<half>::empty("dq2", {1, 1, 70, 128}),
         dk2 = tensor<half>::empty("dk2", {1, 1, 70, 128}),
         dv2 = tensor<half>::empty("dv2", {1, 1, 70, 128});
    const auto bw = kernels::attention_bwd(q2, q2, q2, o2, lse3, q2, dq2, dk2, dv2, false);
    REQUIRE(bw.size() == 3);
    CHECK(ends_with(bw[1].kernel,
                    t == target::sm_90 ? ", 128, 64, 128, false, 8>" : ", 128, 64, 64, false, 4>"));
    CHECK(bw[1].programs == (t == target::sm_90 ? 1 : 2));
    CHECK(bw[1].kernel.find(t == target::sm_90 ? "attention_bwd_dkdv_kt_kernel"
                            : t == target::gfx942
                                ? "attention_bwd_dkdv_halves_kernel"
                                : "attention_bwd_dkdv_kernel<") != std::string::npos);
    CHECK(bw[2].kernel.find(t == target::sm_90
                                ? "attention_bwd_dq_bp_kernel"
                                : "attention_bwd_dq_halves_kernel") != std::string::npos);
    CHECK(ends_with(bw[2].kernel,
                    t == target::sm_90 ? ", 128, 128, 64, false, 8>" : ", 128, 64, 64, false, 4>"));
    CHECK(bw[2].programs == (t == target::sm_90 ? 1 : 2));

    // f32: sm_90 as 16-bit; AMD 64x64 (K staged in slices to fit the LDS), in halves of D at
    // D = 128 (variant 4).
    auto fq = tensor<float>::randn("fq", {1, 1, 130, 64}, 19);
    auto fo = tensor<float>::empty("fo", {1, 1, 130, 64});
    auto flse = tensor<float>::empty("flse", {1, 130});
    auto at3 = kernels::attention_fwd(fq, fq, fq, fo, flse, true);
    CHECK(ends_with(at3.kernel, t == target::sm_90 ? "<float, 64, 128, 64, true, 8, 0>"
                                                   : "<float, 64, 64, 64, true, 4, 0>"));
    CHECK(at3.programs == (t == target::sm_90 ? 2 : 3));
    auto fq2 = tensor<float>::randn("fq2", {1, 1, 70, 128}, 20);
    auto fo2 = tensor<float>::empty("fo2", {1, 1, 70, 128});
    auto flse2 = tensor<float>::empty("flse2", {1, 70});
    auto at4 = kernels::attention_fwd(fq2, fq2, fq2, fo2, flse2, false);
    CAPTURE(at4.kernel);
    CHECK(ends_with(at4.kernel, t == target::sm_90
                                    ? "attention_fwd_kernel<float, 128, 128, 128, false, 8, 0>"
                                    : "attention_fwd_halves_kernel<float, 128, 64, 64, false, 4>"));
    CHECK(at4.programs == (t == target::sm_90 ? 1 : 2));
    // Its backward: on gfx942 dK/dV in halves of D in two passes (variant 4), on gfx90a its q k^T
    // form (variant 0), and dQ in halves of D, each with registers for 2 programs a CU where it
    // is in halves; sm_90 32x32 tiles for both.
    auto fdq = tensor<float>::empty("fdq", {1, 1, 70, 128}),
         fdk = tensor<float>::empty("fdk", {1, 1, 70, 128}),
         fdv = tensor<float>::empty("fdv", {1, 1, 70, 128});
    const auto fbw = kernels::attention_bwd(fq2, fq2, fq2, fo2, flse2, fq2, fdq, fdk, fdv, false);
    REQUIRE(fbw.size() == 3);
    CAPTURE(fbw[2].kernel);
    CHECK(ends_with(fbw[1].kernel, t == target::sm_90 ? "<float, 128, 32, 32, false, 4>"
                                                      : "<float, 128, 64, 64, false, 4>"));
    CHECK(fbw[1].kernel.find(t == target::gfx942
                                 ? "attention_bwd_dkdv_twopass_kernel<"
                                 : "attention_bwd_dkdv_kernel<") != std::string::npos);
    const launch_config fkv128 = config_for<kernels::attention_bwd_configs<4>>(t, 128);
    CHECK(fkv128.variant == (t == target::gfx942 ? 4 : 0));
    CHECK(fkv128.min_programs == (t == target::gfx942 ? 2 : 0));
    const launch_config fkv64 = config_for<kernels::attention_bwd_configs<4>>(t, 64);
    CHECK(fkv64.variant == 0);
    CHECK(fkv64.min_programs == 0);
    CHECK(ends_with(fbw[2].kernel,
                    t == target::sm_90
                        ? "attention_bwd_dq_kernel<float, 128, 32, 32, false, 4>"
                        : "attention_bwd_dq_halves_kernel<float, 128, 64, 64, false, 4>"));
    const launch_config fdq128 = config_for<kernels::attention_bwd_dq_configs<4>>(t, 128);
    CHECK(fdq128.variant == (t == target::sm_90 ? 0 : 2));
    CHECK(fdq128.min_programs == (t == target::sm_90 ? 0 : 2));
    const launch_config fdq64 = config_for<kernels::attention_bwd_dq_configs<4>>(t, 64);
    CHECK(fdq64.variant == 0);
    CHECK(fdq64.min_programs == 0);

    auto logits = tensor<float>::randn("logits", {2, 3000}, 17);
    auto tg = tensor<int32_t>::zeros("tg", {2});
    auto loss = tensor<float>::empty("loss", {2}), lse2 = tensor<float>::empty("lse2", {2});
    CHECK(kernels::cross_entropy_fwd(logits, tg, loss, lse2).kernel ==
          "bv::kernels::cross_entropy_fwd_kernel<float, 2048, 8>");

    // The norms' backward: at most 256 programs in the first stage.
    CHECK(kernels::norm_bwd_programs(t, 1000, 1000) == 256);
    CHECK(kernels::norm_bwd_programs(t, 10, 1000) == 10);
  }
}

TEST_CASE("launch_config: instantiations are the distinct configurations, not rows x targets") {
  // Every target here (the interpreter's build) and a runtime key: the four row blocks.
  constexpr unsigned all = any_target.bits;
  auto count = []<class D, int64_t K>() {
    int n = 0;
    for (int i = 0; i < config_count<D>; ++i) n += detail::canonical<D, K, all>(i) == i;
    return n;
  };
  CHECK(count.operator()<kernels::rmsnorm_configs, runtime_key>() == 4);
  CHECK(count.operator()<kernels::softmax_configs, runtime_key>() == 6);
  CHECK(count.operator()<kernels::col_sum_configs, runtime_key>() == 2);
  // A compile-time key: f32 matmul and f16 reach two rows each (sm_90's, AMD's).
  CHECK(count.operator()<kernels::matmul_configs, 4>() == 2);
  CHECK(count.operator()<kernels::matmul_configs, 2>() == 2);
  // 16-bit attention at D = 64: gfx90a's tile, sm_90's row (v beside k) and gfx942's.
  CHECK(count.operator()<kernels::attention_fwd_configs<2>, 64>() == 3);
  // At D = 128: gfx90a's (in halves of D), sm_90's and gfx942's.
  CHECK(count.operator()<kernels::attention_fwd_configs<2>, 128>() == 3);
  // f32 attention: sm_90's and AMD's tiles differ at both head dimensions; at D = 128 gfx942's row
  // leaves registers for 2 programs a CU, gfx90a's does not.
  CHECK(count.operator()<kernels::attention_fwd_configs<4>, 64>() == 2);
  CHECK(count.operator()<kernels::attention_fwd_configs<4>, 128>() == 3);
  // 16-bit dK/dV at D = 128: sm_90's (k q^T), gfx942's (halves of D) and gfx90a's (q k^T).
  CHECK(count.operator()<kernels::attention_bwd_configs<2>, 128>() == 3);
  // An NVIDIA build (sm_90 only) instantiates sm_90's col_sum alone.
  CHECK(detail::canonical<kernels::col_sum_configs, runtime_key, only(target::sm_90).bits>(1) ==
        -1);
}

TEST_CASE("gpu_tuning: a plain launch on the interpreter, the arguments it fixes at 1 checked") {
  // add_kernel(p, x, y, out, n): argument 3, n, compiled in as 1 by a GPU launch. Stages, the
  // dynamic LDS and the register budget are the GPU's alone.
  const auto x = tensor<float>::randn("x", {300}, 7);
  auto out = tensor<float>::zeros("out", {300});
  const auto r = launch<kernels::add_kernel<float, 256, 4>>(gpu_tuning<3, 2, unit_args<3>>{4096},
                                                            grid(1), x, x, out, 1);
  CHECK(r.ok());
  CHECK(r.programs == 1);
  const auto xv = x.values(), ov = out.values();
  CHECK(ov[0] == xv[0] + xv[0]);
  CHECK(ov[1] == 0.0f);
  // A launch that passes anything but 1 there would compute something else on a GPU: refused.
  CHECK_THROWS_AS((launch<kernels::add_kernel<float, 256, 4>>(gpu_tuning<0, 0, unit_args<3>>{},
                                                              grid(2), x, x, out, 300)),
                  std::invalid_argument);
  // Without unit arguments it is the plain launch.
  CHECK(launch<kernels::add_kernel<float, 256, 4>>(gpu_tuning<2>{}, grid(2), x, x, out, 300).ok());
  CHECK(out.values()[299] == xv[299] + xv[299]);
}
