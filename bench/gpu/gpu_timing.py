"""How the GPU peers time a call (torch only): imported by the scripts beside it.

median_time: the median of single calls between two CUDA events, as `blockvec bench --backend gpu`
times ours (a Python launch delays the kernel inside the events). batch_time: the mean of calls
issued back to back between two events (Python's launch overlaps the kernels before it: the
kernel's own time). host_median_time: the median by the host clock around a call and a
synchronize. All in seconds, each after an idle pause (COOLDOWN_S).
"""
import os
import time

import torch

# Seconds the device stays idle before each measurement (BV_PEER_COOLDOWN_MS, default 1000), as
# `blockvec bench --cooldown` does for ours: under sustained tensor-core load the GPU lowers its
# clock at its power limit, and a figure would depend on what ran before it.
COOLDOWN_S = int(os.environ.get("BV_PEER_COOLDOWN_MS", "1000")) / 1000.0


def _warm(fn, n):
    torch.cuda.synchronize()
    if COOLDOWN_S > 0:
        time.sleep(COOLDOWN_S)
    for _ in range(n):
        fn()
    torch.cuda.synchronize()


def median_time(fn, reps=20, warmup=3):
    _warm(fn, warmup)
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) * 1e-3)
    ts.sort()
    return ts[len(ts) // 2]


def batch_time(fn, reps=20, warmup=3):
    _warm(fn, warmup)
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1e-3 / reps


def host_median_time(fn, reps=20, warmup=1):
    _warm(fn, warmup)
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ts.append(time.perf_counter() - t)
    ts.sort()
    return ts[len(ts) // 2]
