"""The clock-offset estimate's core (app/analysis/clock.py: the activities on a common step, then Pearson's r at
every lag) on long captures, against a yardstick in the same rounds: one FFT cross-correlation of the same lengths
(numpy's rfft/irfft), the least any search over every lag does. The estimate needs six such correlations (the
pairs, the sums and the sums of squares over each overlap), so a ratio near 6-8 is the design's cost, not waste.

Two synthetic runs of random bursts: the reference ``--hours`` long with reports every ``--interval`` s, the other
a third as long, starting an hour in (its clock off by 37 s). Prints the medians of ``--rounds`` rounds and checks
that the offset is found. Not part of ``make test``.

    python benchmarks/bench_clock.py [--hours 24] [--interval 1] [--rounds 3]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.analysis.clock import _on_steps, correlation_by_lag  # noqa: E402


def bursts(n: int, rng: np.random.Generator) -> np.ndarray:
    """Per-report IOPS: idle gaps and bursts of random length and level."""
    out = np.zeros(n)
    i = 0
    while i < n:
        i += int(rng.integers(2, 16))
        d = int(rng.integers(4, 24))
        out[i:i + d] = rng.integers(100, 1600)
        i += d
    return out + rng.normal(0, 5, n).clip(0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hours", type=float, default=24.0)
    ap.add_argument("--interval", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(3301)
    n = int(args.hours * 3600 / args.interval)
    ref = bursts(n, rng)
    m = n // 3
    first = int(3600 / args.interval)
    other = ref[first:first + m] * 0.9 + rng.normal(0, 20, m).clip(0)  # the same I/O seen by another tool
    dt = args.interval
    ra = np.arange(n) * dt
    ca = 3600.0 + 37.0 + np.arange(m) * dt  # its clock 37 s ahead
    step = dt / 2
    ours, yard = [], []
    found = math.nan
    for _ in range(args.rounds):
        t = time.perf_counter()
        gr0, gc0 = math.floor(ra[0] / step) * step, math.floor(ca[0] / step) * step
        x = _on_steps(ra, ra + dt, ref, gr0, step, int(math.ceil((ra[-1] + dt - gr0) / step)))
        y = _on_steps(ca, ca + dt, other, gc0, step, int(math.ceil((ca[-1] + dt - gc0) / step)))
        lags, r, pairs = correlation_by_lag(x, y)
        ok = np.isfinite(r) & (pairs >= len(y) // 2)
        k = int(np.argmax(np.where(ok, r, -np.inf)))
        found = (gr0 - gc0) + lags[k] * step
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        nfft = 1 << int(math.ceil(math.log2(len(x) + len(y))))
        np.fft.irfft(np.fft.rfft(x, nfft) * np.conj(np.fft.rfft(y, nfft)), nfft)
        yard.append(time.perf_counter() - t)
    a, b = statistics.median(ours), statistics.median(yard)
    print(f"{n:,} reports against {m:,} (every {dt:g} s; steps of {step:g} s: {len(x):,} and {len(y):,})")
    print(f"estimate: {a:.3f} s   one FFT correlation: {b:.3f} s   ratio {a / b:.1f}   (medians of {args.rounds})")
    print(f"offset found: {found:+.1f} s (expected -37 s)")
    return 0 if abs(found + 37.0) <= dt else 1


if __name__ == "__main__":
    sys.exit(main())
