"""bench/gpu/cuda_timing.py - how the GPU benchmarks time their PyTorch
peers (bench/gpu/gpu_bench.sh, bench/gpu/template_configs.sh): the median
of n CUDA-event-timed calls after 5 warm-ups, in milliseconds."""
import torch


def median_ms(f, n=50):
    for _ in range(5):
        f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        f()
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    ts.sort()
    return ts[len(ts) // 2]
