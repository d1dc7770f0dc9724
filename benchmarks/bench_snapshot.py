"""The import's snapshot of a large file (app/importer.py ``snapshot``: the private copy that is parsed, and its
SHA-256) against a yardstick in the same rounds: hashing the file alone, the least any import that names the
file's hash has to do.

Three ways, alternately in each round (the machine may be shared: the medians are the figures):
* hash alone (the yardstick);
* the snapshot as imports make it (the kernel copies with ``os.copy_file_range``, then the copy is hashed);
* the one-pass copy (read, hash, write from Python), what it was before and what a system without
  ``copy_file_range`` still does.
Each copy lands in a staging folder beside FILE (as the workspace's staging folder lies beside the workspace).
Not part of ``make test``.

    python benchmarks/bench_snapshot.py [FILE] [--size-mb 1024] [--rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _hash_alone(path: str) -> None:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(4 * 1024 * 1024):
            h.update(chunk)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?")
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    import app.importer as imp

    with tempfile.TemporaryDirectory(prefix="snapshot-bench-", dir=os.path.dirname(args.file or "") or None) as tmp:
        path = args.file
        if path is None:
            path = str(Path(tmp) / "trace.bin")
            with open(path, "wb") as f:
                for _ in range(args.size_mb):
                    f.write(os.urandom(1024 * 1024))
        one_pass = {"on": False}
        kernel_copy = imp._kernel_copy

        def switch(src: int, dst: int, expected: int) -> int | None:
            return None if one_pass["on"] else kernel_copy(src, dst, expected)

        imp._kernel_copy = switch  # type: ignore[assignment]  # the benchmark picks the way
        times: dict[str, list[tuple[float, float]]] = {"hash": [], "snapshot": [], "one pass": []}
        names = list(times)
        for r in range(args.rounds):
            for name in names[r % 3:] + names[:r % 3]:  # each way first in turn: page-cache effects spread
                folder = Path(tmp) / f"staging-{r}-{name.replace(' ', '-')}"
                folder.mkdir()
                one_pass["on"] = name == "one pass"
                w, c = time.perf_counter(), time.process_time()
                if name == "hash":
                    _hash_alone(path)
                else:
                    imp.snapshot(path, folder)
                times[name].append((time.perf_counter() - w, time.process_time() - c))
                shutil.rmtree(folder)
        size_mb = os.path.getsize(path) / 2**20
        print(f"file        {size_mb:8.0f} MB, {args.rounds} rounds (medians; ratios per round, then their median)")
        for name, runs in times.items():
            wall = [t for t, _ in runs]
            cpu = [c for _, c in runs]
            ratio = [t / h for (t, _), (h, _) in zip(runs, times["hash"], strict=True)]
            cpu_ratio = [c / h for (_, c), (_, h) in zip(runs, times["hash"], strict=True)]
            print(f"{name:10s}  {statistics.median(wall):6.2f} s wall  {statistics.median(cpu):6.2f} s CPU   "
                  f"{statistics.median(ratio):5.2f} x the hash's wall ({min(ratio):.2f}-{max(ratio):.2f}), "
                  f"{statistics.median(cpu_ratio):5.2f} x its CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
