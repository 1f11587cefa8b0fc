// Emulated runner: the samples/transformer decoder block, forward and backward, composed on the
// host from the library's launchers (samples/transformer/block.hpp) exactly as the interpreter and
// the GPU run it, every launch in the emulator. Its 35 launches' counters are summed.
#include <stdexcept>
#include <string>

#include "../../samples/transformer/block.hpp"
#include "runner_table.hpp"

namespace bv::cli::amd_emu {
namespace {

using namespace samples::transformer;

// x, dout [seq, dim], attn_norm [dim], wqkv [dim, 3 dim], wo [dim, dim], mlp_norm [dim],
// w_gate_up [dim, 2 ffn], w_down [ffn, dim] -> out, dx, d_attn_norm, d_wqkv, d_wo, d_mlp_norm,
// d_w_gate_up, d_w_down (the entry's compare order). eps is block_config's default, as the
// command's entry makes the block.
void block(run_result& r, const std::vector<array>& in, const std::vector<int64_t>&) {
  const auto& xs = in[0].shape;
  if (xs.size() != 2 || xs[1] % head_dim != 0 || xs[1] == 0)
    throw std::invalid_argument("amd-emu: transformer_block's x must be [seq, heads * " +
                                std::to_string(head_dim) + "]");
  if (in[6].shape.size() != 2 || in[6].shape[1] % 2 != 0)
    throw std::invalid_argument("amd-emu: transformer_block's w_gate_up must be [dim, 2 * ffn]");
  block_config c;
  c.seq = xs[0];
  c.heads = xs[1] / head_dim;
  c.ffn = in[6].shape[1] / 2;
  const int64_t s = c.seq, d = c.dim(), f = c.ffn;
  const std::vector<std::vector<int64_t>> want = {{s, d}, {s, d}, {d},        {d, 3 * d},
                                                  {d, d}, {d},    {d, 2 * f}, {f, d}};
  for (size_t i = 0; i < want.size(); ++i)
    if (in[i].shape != want[i])
      throw std::invalid_argument("amd-emu: transformer_block's input " + std::to_string(i) +
                                  " has the wrong shape for seq " + std::to_string(s) + ", dim " +
                                  std::to_string(d) + ", ffn " + std::to_string(f));
  const auto x = input<float>(in[0]), dout = input<float>(in[1]);
  weights w;
  w.attn_norm = input<float>(in[2]);
  w.wqkv = input<float>(in[3]);
  w.wo = input<float>(in[4]);
  w.mlp_norm = input<float>(in[5]);
  w.w_gate_up = input<float>(in[6]);
  w.w_down = input<float>(in[7]);
  const kernels::rope_tables rope(s, head_dim);
  activations act(c);
  gradients g(c);
  // The block's launchers return the backends' launch_result, without the emulator's counters:
  // those are recorded as the launches run.
  launches l;
  emu::record_launches(true);
  try {
    forward(c, w, x, rope, act, l);
    backward(c, w, x, rope, act, dout, g, l);
  } catch (...) {
    emu::record_launches(false);
    throw;
  }
  const std::vector<emu::launch_counts> counted = emu::recorded_launches();
  emu::record_launches(false);
  if (counted.size() != l.all.size())
    throw std::logic_error("amd-emu: transformer_block recorded " + std::to_string(counted.size()) +
                           " launches' counters for " + std::to_string(l.all.size()) + " launches");
  for (size_t i = 0; i < counted.size(); ++i) {
    emu::result e;
    static_cast<launch_result&>(e) = std::move(l.all[i]);
    e.counts = counted[i].counts;
    e.memory_checked = counted[i].memory_checked;
    collect(r, std::move(e));
  }
  for (const f32t* t : {&act.out, &g.dx, &g.d_attn_norm, &g.d_wqkv, &g.d_wo, &g.d_mlp_norm,
                        &g.d_w_gate_up, &g.d_w_down})
    put(r, *t);
}

}  // namespace

std::vector<runner> block_runners() { return {{"transformer_block", 8, 0, block}}; }

}  // namespace bv::cli::amd_emu
