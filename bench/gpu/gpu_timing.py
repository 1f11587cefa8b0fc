"""How the GPU peers time a call (torch only): imported by the scripts beside it.

median_time: the median of single calls between two CUDA events, as `blockvec bench --backend gpu`
times ours (a Python launch delays the kernel inside the events). batch_time: the mean of calls
issued back to back between two events (Python's launch overlaps the kernels before it: the
kernel's own time). host_median_time: the median by the host clock around a call and a
synchronize. All in seconds.
"""
import time

import torch


def _warm(fn, n):
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
