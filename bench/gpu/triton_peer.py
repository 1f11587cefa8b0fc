#!/usr/bin/env python3
"""The GPU peers of `blockvec bench --backend gpu`: compiled Triton and torch on the same shapes,
measured now, on this GPU. Needs python3 with torch and triton and a CUDA GPU.

    python3 bench/gpu/triton_peer.py     (prints JSON: median seconds per call, per kernel)

Shapes: add 2^28 f32, softmax 8192x8192 f32, RMSNorm f16 8192x8192, matmul f16 and bf16 8192^3
(grouped ordering; blockvec's 128x256x64 tile on 8 warps through 4 stages, then the tiles
Triton's matmul tutorial tunes over on Hopper: `triton_tuned`, the fastest, and its
`tuned_config`), matmul f32 4096^3 without TF32 (Triton's FMA dot on 128x64x32 tiles, torch's
cuBLAS SGEMM), attention forward f16 (64x64 tiles, online softmax) at 4x16x4096x64 and
4x16x4096x128, non-causal and causal, each also on the tiles Triton's fused-attention tutorial
tunes over on Hopper (`triton_tuned` and `tuned_config` likewise), and the
device-to-device copy bandwidth as the memory ceiling. Each Triton result is
checked against torch before it is timed. `triton`: the mean of 20 back-to-back calls between two
CUDA events, after 3 warm-up calls (Python's launch, 15 to 25 us a call, overlaps the kernels
before it, so this is the kernel's own time); `triton_single`: the median of 20 single calls
between two events, as `blockvec bench --backend gpu` times ours (a single Python launch delays
the kernel inside the events); `triton_host`: the median by the host clock around a call and a
synchronize. torch: single calls between events. The copy ceiling: `copy_ceiling_TBps` from single
copies between events (a Python launch inside them), `copy_ceiling_batch_TBps` from copies back
to back (the copy kernel's own time). bench/gpu/run_device.sh prints these beside ours.
"""
import json
import sys

try:
    import torch
    import triton
    import triton.language as tl
except Exception as e:  # no peer on this machine: say so, as JSON, and fail
    print(json.dumps(dict(error="python3 cannot import torch and triton (%s)" % e)))
    sys.exit(1)
from gpu_timing import batch_time, host_median_time, median_time


@triton.jit
def add_kernel(x, y, o, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(o + i, tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)


@triton.jit
def softmax_kernel(x, o, stride, cols, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    v = tl.load(x + r * stride + c, mask=c < cols, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(o + r * stride + c, e / tl.sum(e, axis=0), mask=c < cols)


@triton.jit
def rmsnorm_kernel(x, w, y, stride, cols, eps, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < cols
    v = tl.load(x + r * stride + c, mask=m, other=0.0).to(tl.float32)
    s = 1.0 / tl.sqrt(tl.sum(v * v, axis=0) / cols + eps)
    out = v * s * tl.load(w + c, mask=m, other=0.0).to(tl.float32)
    tl.store(y + r * stride + c, out.to(y.dtype.element_ty), mask=m)


@triton.jit
def matmul_kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                  PRECISION: tl.constexpr = "tf32"):
    pid = tl.program_id(0)
    pm_count = tl.cdiv(M, BM)
    pn_count = tl.cdiv(N, BN)
    per_group = GROUP_M * pn_count
    first_m = (pid // per_group) * GROUP_M
    rows = tl.minimum(pm_count - first_m, GROUP_M)
    pm = first_m + (pid % per_group) % rows
    pn = (pid % per_group) // rows
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    pa = a + rm[:, None] * sam + rk[None, :] * sak
    pb = b + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(pa, mask=(rm[:, None] < M) & (rk[None, :] < K - k), other=0.0),
                      tl.load(pb, mask=(rk[:, None] < K - k) & (rn[None, :] < N), other=0.0),
                      input_precision=PRECISION)
        pa += BK * sak
        pb += BK * sbk
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc.to(c.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def attn_fwd(q, k, v, o, scale, S: tl.constexpr, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
             CAUSAL: tl.constexpr = False):
    base = tl.program_id(1) * S * D
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    qb = tl.load(q + base + rm[:, None] * D + rd[None, :])
    m_i = tl.zeros((BM,), dtype=tl.float32) - float("inf")
    l_i = tl.zeros((BM,), dtype=tl.float32)
    acc = tl.zeros((BM, D), dtype=tl.float32)
    # Causal: keys past this block's last query row are all masked; stop there (BM = BN).
    end = (tl.program_id(0) + 1) * BM if CAUSAL else S
    for n0 in range(0, end, BN):
        rn = n0 + tl.arange(0, BN)
        qk = tl.dot(qb, tl.load(k + base + rn[None, :] * D + rd[:, None])) * scale
        if CAUSAL:
            qk = tl.where(rn[None, :] <= rm[:, None], qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        vb = tl.load(v + base + rn[:, None] * D + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(vb.dtype), vb)
        m_i = m_new
    tl.store(o + base + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(o.dtype.element_ty))


def triton_times(fn):
    return dict(triton=batch_time(fn), triton_single=median_time(fn), triton_host=host_median_time(fn))


# The attention forward's tiles as Triton's fused-attention tutorial tunes them on Hopper: query
# rows x keys a step, warps, pipeline stages.
ATTN_CONFIGS = ((64, 64, 4, 3), (128, 64, 4, 3), (128, 64, 8, 3), (128, 128, 8, 2))


def attn_tuned(q, k, v, o, causal, want):
    """The same kernel on each of ATTN_CONFIGS, each checked against want, then timed back to back:
    the fastest (`triton_tuned`, seconds) and its tile (`tuned_config`). A tile Triton cannot build
    on this GPU (shared memory) is skipped."""
    B, H, S, D = q.shape
    best = None
    for bm, bn, w, st in ATTN_CONFIGS:
        f = lambda: attn_fwd[(S // bm, B * H)](q, k, v, o, D ** -0.5, S, D=D, BM=bm, BN=bn, CAUSAL=causal,
                                               num_warps=w, num_stages=st)
        try:
            o.fill_(float("nan"))
            f()
            check("attention %dx%d w%d s%d" % (bm, bn, w, st), o, want, 1e-2)
        except triton.runtime.errors.OutOfResources:
            continue
        t = batch_time(f)
        if best is None or t < best[0]:
            best = (t, "%dx%d w%d s%d" % (bm, bn, w, st))
    return dict(triton_tuned=best[0], tuned_config=best[1]) if best else {}


# The 16-bit matmul's tiles: BM, BN, BK, warps, pipeline stages. The first is blockvec's own on
# sm_90 (kernels/bv/kernels/matmul.hpp), the `triton` figure; the rest are the Hopper tiles of
# Triton's matmul tutorial's autotuning list with one more stage or warpgroup each way, for
# `triton_tuned`.
MATMUL_CONFIGS = ((128, 256, 64, 8, 4), (128, 256, 64, 8, 3), (256, 128, 64, 8, 4), (256, 128, 64, 8, 3),
                  (128, 128, 64, 4, 3), (128, 128, 64, 4, 4), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4))


def matmul_entry(a, b, c, name, tol):
    """c = a @ b on each of MATMUL_CONFIGS, each checked against torch in f32 before it is timed:
    the first as `triton` (with its single and host times), the fastest back to back as
    `triton_tuned` with its `tuned_config`, and torch's matmul. A tile Triton cannot build on this
    GPU (shared memory) is skipped."""
    M, K = a.shape
    N = b.shape[1]
    want = a.float() @ b.float()
    out, best, err = {}, None, None
    for i, (bm, bn, bk, w, st) in enumerate(MATMUL_CONFIGS):
        grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
        f = lambda: matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                        c.stride(0), c.stride(1), BM=bm, BN=bn, BK=bk, GROUP_M=8,
                                        num_warps=w, num_stages=st)
        tile = "%dx%dx%d w%d s%d" % (bm, bn, bk, w, st)
        try:
            c.fill_(float("nan"))
            f()
            e = check("%s %s" % (name, tile), c, want, tol)
        except triton.runtime.errors.OutOfResources:
            continue
        if i == 0:
            out, err = triton_times(f), e
            t = out["triton"]
        else:
            t = batch_time(f)
        if best is None or t < best[0]:
            best = (t, tile)
    del want
    return dict(M=M, dtype=str(a.dtype), tile="%dx%dx%d w%d s%d" % MATMUL_CONFIGS[0], **out,
                torch=median_time(lambda: torch.matmul(a, b)), rel_err=err,
                triton_tuned=best[0], tuned_config=best[1])


def attn_entry(q, k, v, o, causal, dt):
    """The attention forward on q, k, v (64x64 tiles, then the tuned ones), checked against torch's
    in f32, beside torch's own fused attention."""
    B, H, S, D = q.shape
    sdpa = torch.nn.functional.scaled_dot_product_attention
    f = lambda: attn_fwd[(S // 64, B * H)](q, k, v, o, D ** -0.5, S, D=D, BM=64, BN=64, CAUSAL=causal)
    o.fill_(float("nan"))
    f()
    want = sdpa(q.float(), k.float(), v.float(), is_causal=causal)
    err = check("attention d%d%s" % (D, " causal" if causal else ""), o, want, 1e-2)
    return dict(shape=[B, H, S, D], dtype=str(dt), **triton_times(f),
                torch=median_time(lambda: sdpa(q, k, v, is_causal=causal)), rel_err=err,
                **attn_tuned(q, k, v, o, causal, want))


def rel_err(got, want):
    return ((got.float() - want.float()).norm() / want.float().norm()).item()


def check(name, got, want, tol):
    e = rel_err(got, want)
    if not e <= tol:
        raise SystemExit("triton_peer.py: the Triton %s disagrees with torch (relative error %g)" % (name, e))
    return e


def main():
    if not torch.cuda.is_available():
        print(json.dumps(dict(error="no CUDA GPU: the GPU peers need one")))
        sys.exit(1)
    torch.manual_seed(0)
    dev, res = "cuda", {}

    n = 1 << 28
    x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
    o = torch.full_like(x, float("nan"))
    f = lambda: add_kernel[(triton.cdiv(n, 1024),)](x, y, o, n, BLOCK=1024)
    f()
    check("add", o, x + y, 1e-6)
    res["add"] = dict(n=n, **triton_times(f), torch=median_time(lambda: torch.add(x, y, out=o)))
    del x, y, o

    R = C = 8192
    x = torch.randn(R, C, device=dev)
    o = torch.full_like(x, float("nan"))
    f = lambda: softmax_kernel[(R,)](x, o, x.stride(0), C, BLOCK=triton.next_power_of_2(C))
    f()
    check("softmax", o, torch.softmax(x, -1), 1e-5)
    res["softmax"] = dict(shape=[R, C], **triton_times(f),
                          torch=median_time(lambda: torch.softmax(x, -1)))

    dt = torch.float16
    x, w = torch.randn(R, C, device=dev, dtype=dt), torch.randn(C, device=dev, dtype=dt)
    o = torch.full_like(x, float("nan"))
    f = lambda: rmsnorm_kernel[(R,)](x, w, o, x.stride(0), C, 1e-6, BLOCK=triton.next_power_of_2(C))
    ref = lambda: (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).to(dt)
    f()
    check("rmsnorm", o, ref(), 1e-2)
    res["rmsnorm"] = dict(shape=[R, C], dtype=str(dt), **triton_times(f),
                          torch_eager=median_time(ref))
    del x, w, o

    M = 8192
    a, b = torch.randn(M, M, device=dev, dtype=dt), torch.randn(M, M, device=dev, dtype=dt)
    c = torch.full((M, M), float("nan"), device=dev, dtype=dt)
    res["matmul"] = matmul_entry(a, b, c, "matmul", 1e-2)
    a, b, c = a.to(torch.bfloat16), b.to(torch.bfloat16), c.to(torch.bfloat16)
    res["matmul_bf16"] = matmul_entry(a, b, c, "matmul bf16", 2e-2)
    del a, b, c

    # f32 at 4096^3 in IEEE precision, as ours: Triton's FMA dot on our tile (128x64x32, 4 warps)
    # and cuBLAS's SGEMM (torch with TF32 off). Its own try: a failure here keeps the rest.
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        M = 4096
        a, b = torch.randn(M, M, device=dev), torch.randn(M, M, device=dev)
        c = torch.full((M, M), float("nan"), device=dev)
        BM, BN, BK = 128, 64, 32
        grid = (triton.cdiv(M, BM) * triton.cdiv(M, BN),)
        f = lambda: matmul_kernel[grid](a, b, c, M, M, M, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                        c.stride(0), c.stride(1), BM=BM, BN=BN, BK=BK, GROUP_M=8,
                                        PRECISION="ieee", num_warps=4)
        f()
        err = check("matmul f32", c, a.double() @ b.double(), 1e-5)
        res["matmul_f32"] = dict(M=M, dtype="torch.float32", tf32=False, **triton_times(f),
                                 torch=median_time(lambda: torch.matmul(a, b, out=c)), rel_err=err)
        del a, b, c
    except (Exception, SystemExit) as e:
        res["matmul_f32"] = dict(error=str(e))

    for D in (64, 128):
        B, H, S = 4, 16, 4096
        q = torch.randn(B, H, S, D, device=dev, dtype=dt)
        k, v = torch.randn_like(q), torch.randn_like(q)
        o = torch.empty_like(q)
        for causal in (False, True):
            name = "attn" + ("_d128" if D == 128 else "") + ("_causal" if causal else "")
            res[name] = attn_entry(q, k, v, o, causal, dt)
        del q, k, v, o

    x = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
    y = torch.empty_like(x)
    res["copy_ceiling_TBps"] = 2 * x.numel() / median_time(lambda: y.copy_(x)) / 1e12
    res["copy_ceiling_batch_TBps"] = 2 * x.numel() / batch_time(lambda: y.copy_(x)) / 1e12
    print(json.dumps(dict(mode="gpu", device=torch.cuda.get_device_name(), triton=triton.__version__,
                          torch=torch.__version__, results=res), indent=1))


if __name__ == "__main__":
    main()
