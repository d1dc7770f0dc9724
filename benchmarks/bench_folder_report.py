"""An engagement folder to the PDF in one command (goal: under 10 s), against a yardstick in the same script.

    python benchmarks/bench_folder_report.py [--seed-mb 16] [--devices 8] [ROUNDS]

The folder: the repository's sample captures (sample_traces/: iostat text, JSON and -d without time stamps, fio,
IOmark, Iometer) plus a seed-sized `iostat -xt` log made by bench_import.generate (default 16 MB, 8 devices, about
a working day at 1 s). Each round, in fresh processes and fresh workspaces:

* the yardstick: ``main.py import FOLDER`` (the import alone, as the command line did it before);
* the one action: ``main.py report FOLDER -o OUT.pdf --interval 2 --first-report '*-xt.txt=interval'``
  (import, the folder's answers given once, the PDF written).

Prints the medians, the ratio to the yardstick and the verdict.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_import import generate  # noqa: E402


def cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(*args: str) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one command (the CPU time is steadier on a shared machine)."""
    t, c = time.perf_counter(), cpu()
    subprocess.run([sys.executable, str(ROOT / "main.py"), *args], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - t, cpu() - c


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed-mb", type=int, default=16)
    ap.add_argument("--devices", type=int, default=8)
    ap.add_argument("rounds", nargs="?", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "engagement"
        shutil.copytree(ROOT / "sample_traces", folder)
        generate(folder / "seed_day_iostat-xt.log", args.seed_mb, args.devices)
        size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
        yard, one = [], []
        for i in range(args.rounds):
            yard.append(timed("import", str(folder), "-w", f"{tmp}/y{i}.duckdb"))
            one.append(timed("report", str(folder), "-w", f"{tmp}/r{i}.duckdb", "-o", f"{tmp}/r{i}.pdf",
                             "--interval", "2", "--first-report", "*-xt.txt=interval"))
        y, o = statistics.median(w for w, _ in yard), statistics.median(w for w, _ in one)
        yc, oc = statistics.median(c for _, c in yard), statistics.median(c for _, c in one)
        print(f"folder: sample captures + a {args.seed_mb} MB iostat -xt log ({args.devices} devices), "
              f"{size / 1e6:.1f} MB; rounds: {args.rounds}")
        print(f"yardstick (main.py import FOLDER):         {y:.2f} s wall, {yc:.2f} s CPU")
        print(f"one action (main.py report FOLDER -o PDF): {o:.2f} s wall, {oc:.2f} s CPU  "
              f"(wall min {min(w for w, _ in one):.2f}, max {max(w for w, _ in one):.2f})")
        print(f"ratio to the yardstick: {o / y:.2f}x wall, {oc / yc:.2f}x CPU   goal: under 10 s -> "
              f"{'met' if o < 10 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
