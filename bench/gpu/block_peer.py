#!/usr/bin/env python3
"""PyTorch eager peer of blockvec's decoder block (`blockvec bench --backend gpu`, rows
transformer_block and transformer_block@tinyllama): the same TinyLlama-style block as
samples/transformer/block.hpp (RMSNorm, fused QKV projection, RoPE, causal attention, output
projection with residual, RMSNorm, SwiGLU MLP with residual), f32, forward and backward through
autograd, written the way an eager PyTorch model writes it (the workshop's baseline). Needs python3
with torch and a CUDA GPU.

    python3 bench/gpu/block_peer.py      (prints JSON: seconds of forward + backward)

Timing: `torch_eager`, the median of 20 passes after 3 warm-ups, each between two CUDA events, as
blockvec's device bench times its own; `torch_eager_batch`, the mean of 20 passes issued back to
back between two events, as its back-to-back figure (bench/gpu/run_device.sh prints them side by
side).
"""
import json
import math
import sys

try:
    import torch
except Exception as e:  # no peer on this machine: say so, as JSON, and fail
    print(json.dumps(dict(error="python3 cannot import torch (%s)" % e)))
    sys.exit(1)
from gpu_timing import batch_time, median_time

HEAD_DIM = 64
# (name, seq, heads, ffn): the rows blockvec's device bench registers (host_api_block.cu).
SIZES = [("transformer_block", 128, 8, 1408), ("transformer_block@tinyllama", 1024, 32, 5632)]


def rope_tables(seq, dev):
    i = torch.arange(HEAD_DIM // 2, dtype=torch.float64, device=dev)
    pos = torch.arange(seq, dtype=torch.float64, device=dev)[:, None]
    a = pos * 10000.0 ** (-2.0 * i / HEAD_DIM)
    return a.cos().float(), a.sin().float()


def rope(t, cos, sin):  # t [heads, seq, head_dim], rotate-half
    x1, x2 = t[..., : HEAD_DIM // 2], t[..., HEAD_DIM // 2:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def rmsnorm(x, w, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def block(x, w, cos, sin, heads, ffn):
    seq, d = x.shape
    h1 = rmsnorm(x, w["attn_norm"])
    q, k, v = (h1 @ w["wqkv"]).split(d, dim=-1)
    q, k, v = (t.view(seq, heads, HEAD_DIM).transpose(0, 1) for t in (q, k, v))
    q, k = rope(q, cos, sin), rope(k, cos, sin)
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(HEAD_DIM)
    causal = torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(1)
    p = torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1)
    attn = (p @ v).transpose(0, 1).reshape(seq, d)
    x1 = x + attn @ w["wo"]
    gate, up = (rmsnorm(x1, w["mlp_norm"]) @ w["w_gate_up"]).split(ffn, dim=-1)
    return x1 + (torch.nn.functional.silu(gate) * up) @ w["w_down"]


def time_block(seq, heads, ffn, dev):
    d = heads * HEAD_DIM
    g = torch.Generator(device=dev).manual_seed(0)

    def param(*shape, fan_in=None, around_one=False):
        t = torch.randn(*shape, device=dev, generator=g)
        t = 1.0 + 0.1 * t if around_one else t / math.sqrt(fan_in)
        return t.requires_grad_()

    w = dict(attn_norm=param(d, around_one=True), mlp_norm=param(d, around_one=True),
             wqkv=param(d, 3 * d, fan_in=d), wo=param(d, d, fan_in=d),
             w_gate_up=param(d, 2 * ffn, fan_in=d), w_down=param(ffn, d, fan_in=ffn))
    x = torch.randn(seq, d, device=dev, generator=g).requires_grad_()
    dout = torch.randn(seq, d, device=dev, generator=g)
    cos, sin = rope_tables(seq, dev)

    def step():
        out = block(x, w, cos, sin, heads, ffn)
        out.backward(dout)

    return median_time(step, reps=20, warmup=3), batch_time(step, reps=20, warmup=3)


def main():
    if not torch.cuda.is_available():
        print(json.dumps(dict(error="no CUDA GPU: the block peer needs one")))
        sys.exit(1)
    dev = "cuda"
    res = {}
    for name, seq, heads, ffn in SIZES:
        single, batch = time_block(seq, heads, ffn, dev)
        res[name] = dict(seq=seq, heads=heads, ffn=ffn, head_dim=HEAD_DIM, torch_eager=single,
                         torch_eager_batch=batch)
    print(json.dumps(dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                          tf32=torch.backends.cuda.matmul.allow_tf32, results=res), indent=1))


if __name__ == "__main__":
    main()
