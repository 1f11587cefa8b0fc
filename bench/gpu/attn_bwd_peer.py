#!/usr/bin/env python3
"""The peer of `blockvec bench --backend gpu attention_bwd`: the backward of Triton's fused-attention
tutorial (python/tutorials/06-fused-attention.py in Triton's repository) on the same shapes, 4 x 16 x
4096 x D f16 for D = 64 and 128 (`attention_bwd` and `attention_bwd@d128`), causal, measured now, on
this GPU. The tutorial is not part of blockvec: pass the path of a file that defines its
`_attention` class (the tutorial itself, at the installed Triton's version, or a file holding its
backward kernels and `_attention.backward`).

    python3 bench/gpu/attn_bwd_peer.py PATH/TO/06-fused-attention.py   (prints JSON)

Only the backward is run: o and the log-sum-exp M it saves are computed by torch in float32 (M in
the tutorial's base-2 form), so no forward autotuning runs. The gradients are checked first against
torch's autograd of a float32 reference at the tutorial's test shape (1 x 2 x 1024 x D), then the
backward is timed at the bench's shapes: `triton` the mean of 20 calls back to back, `triton_single`
the median of 20 single calls between events (as ours). A call is the tutorial's whole backward:
k pre-scaled, the delta preprocess and the fused dk / dv / dq kernel. FLOPs as both count them:
2.5 x the forward's 4 B H S^2 D, halved for causal.
"""
import contextlib
import importlib.util
import json
import math
import sys
import types

try:
    import torch
    import triton  # noqa: F401 (the tutorial needs it)
except Exception as e:
    print(json.dumps(dict(error="python3 cannot import torch and triton (%s)" % e)))
    sys.exit(1)
from gpu_timing import batch_time, median_time


def load(path):
    # The tutorial imports pytest for its test's decorators only.
    try:
        import pytest  # noqa: F401
    except ImportError:
        stub = types.ModuleType("pytest")
        stub.mark = types.SimpleNamespace(parametrize=lambda *a, **k: (lambda f: f))
        sys.modules["pytest"] = stub
    spec = importlib.util.spec_from_file_location("fused_attention_tutorial", path)
    mod = importlib.util.module_from_spec(spec)
    # What the tutorial prints as it loads goes to stderr: stdout is this script's JSON.
    with contextlib.redirect_stdout(sys.stderr):
        spec.loader.exec_module(mod)
    return mod


def saved(q, k, v, sm_scale):
    """o and the tutorial's M (log2 of each row's sum of exp2 of the scaled, masked scores)."""
    S = q.shape[2]
    s = (q.float() @ k.float().transpose(-1, -2)) * sm_scale
    s.masked_fill_(torch.ones(S, S, device=q.device, dtype=torch.bool).triu(1), float("-inf"))
    lse = torch.logsumexp(s, -1)
    o = (torch.softmax(s, -1) @ v.float()).to(q.dtype)
    return o, lse / math.log(2.0)


def backward_fn(mod, q, k, v, do, sm_scale):
    o, M = saved(q, k, v, sm_scale)
    ctx = types.SimpleNamespace(saved_tensors=(q, k, v, o, M), sm_scale=sm_scale,
                                HEAD_DIM=q.shape[-1], causal=True)
    return lambda: mod._attention.backward(ctx, do)[:3]


def rel_err(got, want):
    return ((got.float() - want.float()).norm() / want.float().norm()).item()


def main():
    if len(sys.argv) != 2:
        print(json.dumps(dict(error="usage: attn_bwd_peer.py PATH/TO/06-fused-attention.py")))
        sys.exit(2)
    if not torch.cuda.is_available():
        print(json.dumps(dict(error="no CUDA GPU: the peer needs one")))
        sys.exit(1)
    mod = load(sys.argv[1])
    dev, dt = "cuda", torch.float16
    torch.manual_seed(0)

    # Correctness at the tutorial's test shape (at each head dimension timed) against float32
    # autograd.
    errs = {}
    for D in (64, 128):
        Z, H, S = 1, 2, 1024
        sm_scale = D ** -0.5
        q, k, v = (torch.randn(Z, H, S, D, device=dev, dtype=dt) * 0.5 for _ in range(3))
        do = torch.randn(Z, H, S, D, device=dev, dtype=dt)
        got = backward_fn(mod, q, k, v, do, sm_scale)()
        qf, kf, vf = (x.float().requires_grad_() for x in (q, k, v))
        ref = torch.nn.functional.scaled_dot_product_attention(qf, kf, vf, is_causal=True,
                                                               scale=sm_scale)
        want = torch.autograd.grad(ref, (qf, kf, vf), do.float())
        errs[D] = {n: rel_err(g, w) for n, g, w in zip(("dq", "dk", "dv"), got, want)}
        if not all(e <= 1e-2 for e in errs[D].values()):
            print(json.dumps(dict(error="the tutorial's backward disagrees with torch at head "
                                  "dimension %d: %s" % (D, errs[D]))))
            sys.exit(1)

    # The bench's shapes: head dimension 64 (attention_bwd) and 128 (attention_bwd@d128).
    results = {}
    for name, D in (("attention_bwd", 64), ("attention_bwd@d128", 128)):
        B, H, S = 4, 16, 4096
        sm_scale = D ** -0.5
        q, k, v, do = (torch.randn(B, H, S, D, device=dev, dtype=dt) for _ in range(4))
        fn = backward_fn(mod, q, k, v, do, sm_scale)
        flops = 2.5 * 4.0 * B * H * S * S * D * 0.5
        results[name] = dict(shape=[B, H, S, D], dtype=str(dt), causal=True, flops=flops,
                             check_rel_err=errs[D], triton=batch_time(fn), triton_single=median_time(fn))
        del q, k, v, do, fn
        torch.cuda.empty_cache()
    print(json.dumps(dict(mode="gpu", device=torch.cuda.get_device_name(), triton=triton.__version__,
                          torch=torch.__version__, results=results), indent=1))


if __name__ == "__main__":
    main()
