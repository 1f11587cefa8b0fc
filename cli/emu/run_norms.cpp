// Emulated runners: RMSNorm, LayerNorm and col_sum, f32, with the inputs the command's entries
// make (cli/kernels/rmsnorm.cpp, layernorm.cpp, col_sum.cpp); a backward takes the forward's
// saved statistics as inputs, as the entries compute them on the interpreter.
#include "bv/emu/lib/norms.hpp"
#include "runner_table.hpp"

namespace bv::cli::amd_emu {
namespace {

// dy, x, w, mean, rstd -> dx, dw, db
template <kernels::reduction How>
void layernorm_bwd(run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
  auto dy = input<float>(in[0]), x = input<float>(in[1]), w = input<float>(in[2]);
  auto mean = input<float>(in[3]), rstd = input<float>(in[4]);
  auto dx = output<float>(x.shape()), dw = output<float>({x.size(1)}),
       db = output<float>({x.size(1)});
  collect(r, emu::lib::layernorm_bwd(dy, x, w, mean, rstd, dx, dw, db, How));
  put(r, dx);
  put(r, dw);
  put(r, db);
}

}  // namespace

std::vector<runner> norm_runners() {
  return {
      // x [m, n], w [n] -> y, rstd
      {"rmsnorm", 2, 0,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
         auto x = input<float>(in[0]), w = input<float>(in[1]);
         auto y = output<float>(x.shape());
         auto rstd = output<float>({x.size(0)});
         collect(r, emu::lib::rmsnorm_fwd(x, w, y, rstd));
         put(r, y);
         put(r, rstd);
       }},
      // x, res [m, n], w [n] -> h, y, rstd
      {"add_rmsnorm", 3, 0,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
         auto x = input<float>(in[0]), res = input<float>(in[1]), w = input<float>(in[2]);
         auto h = output<float>(x.shape()), y = output<float>(x.shape());
         auto rstd = output<float>({x.size(0)});
         collect(r, emu::lib::add_rmsnorm_fwd(x, res, w, h, y, rstd));
         put(r, h);
         put(r, y);
         put(r, rstd);
       }},
      // dy, x [m, n], w [n], rstd [m] -> dx, dw
      {"rmsnorm_bwd", 4, 0,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
         auto dy = input<float>(in[0]), x = input<float>(in[1]), w = input<float>(in[2]);
         auto rstd = input<float>(in[3]);
         auto dx = output<float>(x.shape()), dw = output<float>({x.size(1)});
         collect(r, emu::lib::rmsnorm_bwd(dy, x, w, rstd, dx, dw));
         put(r, dx);
         put(r, dw);
       }},
      // x [m, n], w, b [n] -> y, mean, rstd
      {"layernorm", 3, 0,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
         auto x = input<float>(in[0]), w = input<float>(in[1]), b = input<float>(in[2]);
         auto y = output<float>(x.shape());
         auto mean = output<float>({x.size(0)}), rstd = output<float>({x.size(0)});
         collect(r, emu::lib::layernorm_fwd(x, w, b, y, mean, rstd));
         put(r, y);
         put(r, mean);
         put(r, rstd);
       }},
      {"layernorm_bwd", 5, 0, layernorm_bwd<kernels::reduction::lock>},
      {"layernorm_bwd_two_stage", 5, 0, layernorm_bwd<kernels::reduction::two_stage>},
      // partial [g, n] -> out [n]
      {"col_sum", 1, 0,
       [](run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
         auto p = input<float>(in[0]);
         auto o = output<float>({p.size(1)});
         collect(r, emu::lib::col_sum(p, o));
         put(r, o);
       }},
  };
}

}  // namespace bv::cli::amd_emu
