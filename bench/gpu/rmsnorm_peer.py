# Triton's RMSNorm of bench/gpu/triton_peer.py at its shape (f16 8192 x 8192), timed three ways:
# the host clock (median of 20: triton_peer.py's triton_host), CUDA events around single launches
# (median of 50, as blockvec bench), and the mean of 20 back-to-back launches between two events;
# plus num_warps 8 and 16 and the copy ceiling (host clock and events). The host clock and
# single-launch events include Python's launch time (about 15-25 us here); the back-to-back mean
# does not. Run from the repository root beside bench/gpu/rmsnorm_sweep.cu, in one device call.
import sys
sys.path.insert(0, "bench/gpu")
import torch, triton
import triton_peer as tp
import gpu_timing as gt

def ev_median(fn, reps=50):
    return gt.median_time(fn, reps, warmup=5) * 1e3

def ev_batch(fn, n=20):
    return gt.batch_time(fn, n, warmup=0) * 1e3

R = C = 8192
torch.manual_seed(0)
dt = torch.float16
x, w = torch.randn(R, C, device="cuda", dtype=dt), torch.randn(C, device="cuda", dtype=dt)
o = torch.full_like(x, float("nan"))
ref = (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).to(dt)
B = 2.0 * 2 * R * C
print("device", torch.cuda.get_device_name(), "triton", triton.__version__, "torch", torch.__version__)
for nw in (None, 4, 8, 16):
    kw = {} if nw is None else dict(num_warps=nw)
    f = lambda: tp.rmsnorm_kernel[(R,)](x, w, o, x.stride(0), C, 1e-6, BLOCK=8192, **kw)
    o.fill_(float("nan")); f(); torch.cuda.synchronize()
    e = tp.rel_err(o, ref)
    host = gt.host_median_time(f) * 1e3
    evm, evb = ev_median(f), ev_batch(f)
    print("TRITON num_warps %-7s host-clock median %.4f ms  events median %.4f ms (%.2f TB/s)  batch-of-20 mean %.4f ms (%.2f TB/s)  rel err %.1e"
          % ("default" if nw is None else nw, host, evm, B / evm / 1e9, evb, B / evb / 1e9, e))
del x, w, o, ref
x = torch.empty(1 << 30, dtype=torch.uint8, device="cuda"); y = torch.empty_like(x)
cp = lambda: y.copy_(x)
host = gt.host_median_time(cp); evm = ev_median(cp, 20)
print("COPY 1 GiB d2d: host clock %.2f TB/s, events median %.2f TB/s" % (2 * x.numel() / host / 1e12, 2 * x.numel() / evm / 1e9))
x = torch.empty(1 << 28, dtype=torch.uint8, device="cuda"); y = torch.empty_like(x)
evm = ev_median(cp, 50)
print("COPY 256 MiB d2d (RMSNorm's bytes): events median %.4f ms %.2f TB/s" % (evm, 2 * x.numel() / evm / 1e9))
