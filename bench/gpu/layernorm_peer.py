"""Triton LayerNorm forward peer for bench/gpu/bench_gpu_lib.cu: the forward kernel of Triton's
layer-norm tutorial (_layer_norm_fwd_fused: one program per row, mean and rstd saved, the row
walked in BLOCK_SIZE chunks, BLOCK_SIZE = min(65536 // element_size, next_pow2(N)), num_warps =
min(max(BLOCK_SIZE // 256, 1), 8)), timed by the host clock (median of 20, around each call with
a synchronize: `triton`, `torch`) and like blockvec bench
--backend gpu times ours (CUDA events around each launch, median of 20 after 3 warm-up launches:
`triton_events`, `torch_events`), and back to back (the mean of 20 calls between two events, the
kernel's own time: `triton_batch`, `torch_batch`), against torch.nn.functional.layer_norm.
usage: python3 layernorm_peer.py [ROWS COLS]   (default 8192 8192, f16; prints JSON)"""
import json, sys
import torch, triton, triton.language as tl
from gpu_timing import batch_time, host_median_time, median_time


@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def main():
    M, N = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (8192, 8192)
    dt = torch.float16
    torch.manual_seed(0)
    x = torch.randn(M, N, device="cuda", dtype=dt)
    w = torch.randn(N, device="cuda", dtype=dt); b = torch.randn(N, device="cuda", dtype=dt)
    y = torch.empty_like(x)
    mean = torch.empty(M, device="cuda", dtype=torch.float32); rstd = torch.empty_like(mean)
    BLOCK_SIZE = min(65536 // x.element_size(), triton.next_power_of_2(N))
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    f = lambda: _layer_norm_fwd_fused[(M,)](x, y, w, b, mean, rstd, x.stride(0), N, 1e-5,
                                            BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    t = host_median_time(f)
    t_ev = median_time(f)
    t_b = batch_time(f)
    ref = torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), 1e-5)
    err = ((y.float() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, err
    tt = host_median_time(lambda: torch.nn.functional.layer_norm(x, (N,), w, b, 1e-5))
    tt_ev = median_time(lambda: torch.nn.functional.layer_norm(x, (N,), w, b, 1e-5))
    tt_b = batch_time(lambda: torch.nn.functional.layer_norm(x, (N,), w, b, 1e-5))
    print(json.dumps(dict(triton=triton.__version__, torch=torch.__version__,
                          layernorm=dict(shape=[M, N], dtype=str(dt), triton=t, torch=tt,
                                         triton_events=t_ev, torch_events=tt_ev,
                                         triton_batch=t_b, torch_batch=tt_b,
                                         rel_err=err, block=BLOCK_SIZE, num_warps=num_warps))))


if __name__ == "__main__":
    main()
