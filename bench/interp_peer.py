#!/usr/bin/env python3
"""blockvec's interpreter beside Triton's (TRITON_INTERPRET=1), measured now, on one core.

    bench/interp_peer.py [--blockvec PATH] [--core N] [--repeat N] [KERNEL...]

Runs `blockvec bench --json` for the kernels Triton's interpreter can run the same way (add,
softmax, rmsnorm, matmul, attention; f32, the bench's own sizes), then the same computations as
Triton kernels under TRITON_INTERPRET=1, both pinned to the same core, and prints both times and
their ratio. Where python3 cannot import torch and triton it says so and prints blockvec's figures
alone. Nothing here is a stored figure: every number is measured in this run.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

KERNELS = ["add", "softmax", "rmsnorm", "matmul", "attention"]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    default_bin = os.path.join(here, "..", "build", "cli", "blockvec")
    ap.add_argument("kernels", nargs="*", default=KERNELS, help="a subset of " + ", ".join(KERNELS))
    ap.add_argument("--blockvec", default=default_bin, help="the blockvec command (default: build/cli/blockvec)")
    ap.add_argument("--core", type=int, default=None, help="the core both run on (default: the last one this process may use)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of each; the best counts")
    ap.add_argument("--json", action="store_true", help="print JSON")
    a = ap.parse_args()
    bad = [k for k in a.kernels if k not in KERNELS]
    if bad:
        ap.error("no Triton peer for %s (choose from %s)" % (", ".join(bad), ", ".join(KERNELS)))
    if not (os.path.isfile(a.blockvec) and os.access(a.blockvec, os.X_OK)):
        ap.error("%s is not an executable: build blockvec first (scripts/setup.sh) or pass --blockvec" % a.blockvec)
    if a.repeat < 1:
        ap.error("--repeat takes a positive count")
    return a


def blockvec_times(a, core):
    cmd = [a.blockvec, "bench", "--json", "--repeat", str(a.repeat)] + a.kernels
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", str(core)] + cmd
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return {r["kernel"]: r for r in json.loads(out)["results"]}


def triton_peer():
    """The Triton kernels, or the reason they cannot run here."""
    os.environ["TRITON_INTERPRET"] = "1"
    try:
        import torch
        import triton
        import triton.language as tl
    except Exception as e:  # any import failure means: no peer on this machine
        return None, "python3 cannot import torch and triton (%s)" % e

    @triton.jit
    def add_k(x, y, o, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        tl.store(o + i, tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)

    @triton.jit
    def softmax_k(x, o, cols, BLOCK: tl.constexpr):
        r = tl.program_id(0)
        c = tl.arange(0, BLOCK)
        v = tl.load(x + r * cols + c, mask=c < cols, other=-float("inf"))
        e = tl.exp(v - tl.max(v, 0))
        tl.store(o + r * cols + c, e / tl.sum(e, 0), mask=c < cols)

    @triton.jit
    def rmsnorm_k(x, w, y, rstd, cols, eps, BLOCK: tl.constexpr):
        r = tl.program_id(0)
        c = tl.arange(0, BLOCK)
        m = c < cols
        v = tl.load(x + r * cols + c, mask=m, other=0.0)
        s = 1.0 / tl.sqrt(tl.sum(v * v, 0) / cols + eps)
        tl.store(rstd + r, s)
        tl.store(y + r * cols + c, v * s * tl.load(w + c, mask=m), mask=m)

    @triton.jit
    def matmul_k(a, b, c, M, N, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pm = tl.program_id(0)
        pn = tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            x = tl.load(a + rm[:, None] * K + (k + rk)[None, :],
                        mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
            y = tl.load(b + (k + rk)[:, None] * N + rn[None, :],
                        mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc += tl.dot(x, y)
        tl.store(c + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

    @triton.jit
    def attn_k(q, k, v, o, scale, S: tl.constexpr, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
        base = tl.program_id(1) * S * D
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rd = tl.arange(0, D)
        qb = tl.load(q + base + rm[:, None] * D + rd[None, :], mask=rm[:, None] < S, other=0.0)
        m_i = tl.zeros((BM,), dtype=tl.float32) - float("inf")
        l_i = tl.zeros((BM,), dtype=tl.float32)
        acc = tl.zeros((BM, D), dtype=tl.float32)
        for n0 in range(0, S, BN):
            rn = n0 + tl.arange(0, BN)
            kb = tl.load(k + base + rn[None, :] * D + rd[:, None], mask=rn[None, :] < S, other=0.0)
            qk = tl.dot(qb, kb) * scale
            qk = tl.where(rn[None, :] < S, qk, -float("inf"))
            m_new = tl.maximum(m_i, tl.max(qk, 1))
            p = tl.exp(qk - m_new[:, None])
            alpha = tl.exp(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            vb = tl.load(v + base + rn[:, None] * D + rd[None, :], mask=rn[:, None] < S, other=0.0)
            acc = acc * alpha[:, None] + tl.dot(p, vb)
            m_i = m_new
        tl.store(o + base + rm[:, None] * D + rd[None, :], acc / l_i[:, None], mask=rm[:, None] < S)

    def p2(n):
        return 1 << max(0, (int(n) - 1).bit_length())

    # Each maker takes the bench size, makes the inputs outside the timed part, checks the result
    # against torch once, and returns the launch to time.
    def make(name, s):
        g = torch.Generator().manual_seed(3)
        rnd = lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float32)
        if name == "add":
            n = s[0]
            x, y, o = rnd(n), rnd(n), torch.empty(n)
            run = lambda: add_k[(triton.cdiv(n, 1024),)](x, y, o, n, BLOCK=1024)
            ref = lambda: x + y
        elif name == "softmax":
            r, c = s
            x, o = rnd(r, c), torch.empty(r, c)
            run = lambda: softmax_k[(r,)](x, o, c, BLOCK=p2(c))
            ref = lambda: torch.softmax(x, 1)
        elif name == "rmsnorm":
            r, c = s
            x, w, o, rs = rnd(r, c), rnd(c), torch.empty(r, c), torch.empty(r)
            run = lambda: rmsnorm_k[(r,)](x, w, o, rs, c, 1e-6, BLOCK=p2(c))
            ref = lambda: x * torch.rsqrt((x * x).mean(1, keepdim=True) + 1e-6) * w
        elif name == "matmul":
            M, N, K = s
            a, b, o = rnd(M, K), rnd(K, N), torch.empty(M, N)
            run = lambda: matmul_k[(triton.cdiv(M, 64), triton.cdiv(N, 64))](a, b, o, M, N, K, BM=64, BN=64, BK=32)
            ref = lambda: a @ b
        else:  # attention: B,H,S,D, non-causal
            B, H, S, D = s
            q, k, v, o = rnd(B, H, S, D), rnd(B, H, S, D), rnd(B, H, S, D), torch.empty(B, H, S, D)
            scale = D ** -0.5
            run = lambda: attn_k[(triton.cdiv(S, 64), B * H)](q, k, v, o, scale, S, D=D, BM=64, BN=64)
            ref = lambda: torch.softmax((q @ k.transpose(-1, -2)) * scale, -1) @ v
        o.fill_(float("nan"))  # an element the kernel does not write fails the check below
        run()
        err = (o - ref()).abs().max().item()
        if not err <= 1e-3 * max(1.0, ref().abs().max().item()):
            raise RuntimeError("the Triton peer of %s disagrees with torch (max error %g)" % (name, err))
        return run

    return (make, "triton %s, torch %s" % (triton.__version__, torch.__version__)), None


def best_of(fn, repeat):
    fn()  # warm: the interpreter's first launch of a kernel parses and caches it
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    a = parse_args()
    cores = sorted(os.sched_getaffinity(0))
    core = a.core if a.core is not None else cores[-1]
    if core not in cores:
        sys.exit("interp_peer.py: core %d is not one this process may use (%s)" % (core, cores))
    ours = blockvec_times(a, core)
    peer, why = triton_peer()
    os.sched_setaffinity(0, {core})
    rows = []
    for name in a.kernels:
        r = ours[name]
        row = dict(kernel=name, size=r["size"], blockvec_checks_off_s=r["checks_off_s"],
                   blockvec_checks_all_s=r["checks_all_s"], native_s=r["native_s"])
        if peer:
            row["triton_interpret_s"] = best_of(peer[0](name, r["size"]), a.repeat)
            row["triton_over_blockvec_off"] = row["triton_interpret_s"] / r["checks_off_s"]
        rows.append(row)
    if a.json:
        print(json.dumps(dict(core=core, peer=peer[1] if peer else None, missing=why, results=rows), indent=1))
        return
    print("blockvec's interpreter and Triton's (TRITON_INTERPRET=1) on core %d, best of %d; ms" % (core, a.repeat))
    print("peer: " + (peer[1] if peer else "missing: " + why))
    head = ["kernel", "size", "native", "blockvec off", "blockvec all", "TRITON_INTERPRET", "Triton/blockvec off"]
    cells = []
    for r in rows:
        t = r.get("triton_interpret_s")
        cells.append([r["kernel"], "x".join(str(d) for d in r["size"]), "%.3f" % (r["native_s"] * 1e3),
                      "%.2f" % (r["blockvec_checks_off_s"] * 1e3), "%.2f" % (r["blockvec_checks_all_s"] * 1e3),
                      "%.1f" % (t * 1e3) if t else "-", "%.0fx" % r["triton_over_blockvec_off"] if t else "-"])
    w = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]
    for line in [head] + cells:
        print("  ".join(c.rjust(w[i]) if i else c.ljust(w[i]) for i, c in enumerate(line)))


if __name__ == "__main__":
    main()
