"""Work per device (issue 17, finding 9): the device classification and ``analyze storm`` on runs with many devices.

A hostile or simply huge file can list tens of thousands of devices. The classification (whole disks,
partitions, stacked dm/md/loop devices, -g groups) once compared every device with every other: 16 k devices
took 22 s and 100 k more than 300 s in ``analyze storm`` and ``report``. This script prints, for growing device
counts, the time of the classification and of ``analyze storm`` end to end (import not included), each with its
ratio to a yardstick run in the same process: sorting the same names (n log n). Linear-ish work keeps the ratio
flat as the count doubles; quadratic work doubles it.

    python benchmarks/bench_devices.py [--counts 2000,4000,8000,16000] [--storm-counts 2000,16000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HEADER = "Device            r/s     w/s     rkB/s     wkB/s  %util"


def device_names(n: int) -> list[tuple[str, bool]]:
    """``n`` devices the way a big host lists them: disks with partitions, NVMe namespaces, dm and md devices."""
    out: list[tuple[str, bool]] = []
    i = 0
    while len(out) < n:
        kind = i % 4
        if kind == 0:
            disk = f"sd{_letters(i)}"
            out += [(disk, False), (f"{disk}1", False), (f"{disk}2", False)]
        elif kind == 1:
            ns = f"nvme{i}n1"
            out += [(ns, False), (f"{ns}p1", False)]
        elif kind == 2:
            out.append((f"dm-{i}", False))
        else:
            out.append((f"md{i}", False))
        i += 1
    return out[:n]


def _letters(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return s


def timed(fn, *args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def bench_classify(counts: list[int]) -> None:
    from app.analysis.series import classify_devices

    print("classification (app.analysis.series.classify_devices)")
    for n in counts:
        devs = device_names(n)
        yard = timed(lambda d: sorted(name[::-1] for name, _ in d), devs)
        t = timed(classify_devices, devs)
        print(f"  {n:>7,} devices: {t:8.3f} s   {t / yard:8.1f} x sorting them")


def write_log(path: Path, n: int, reports: int = 3) -> None:
    devs = device_names(n)
    with open(path, "w") as fh:
        fh.write("Linux 6.1.0 (bench) \t03/14/2024 \t_x86_64_\t(32 CPU)\n\n")
        for k in range(reports):
            fh.write(f"03/14/2024 10:00:{k * 5:02d} AM\n{HEADER}\n")
            for name, _ in devs:
                fh.write(f"{name:<14}{10.0:>8.2f}{20.0:>8.2f}{40.0:>10.2f}{80.0:>10.2f}{5.0:>7.2f}\n")
            fh.write("\n")


def bench_storm(counts: list[int]) -> None:
    print("analyze storm, end to end (python main.py analyze storm --run 1; the import not counted)")
    with tempfile.TemporaryDirectory(prefix="stormscope-bench-") as tmp:
        for n in counts:
            log, ws = Path(tmp) / f"devices-{n}.txt", Path(tmp) / f"ws-{n}.duckdb"
            write_log(log, n)
            subprocess.run([sys.executable, str(ROOT / "main.py"), "import", str(log), "-w", str(ws),
                            "--first-report", "interval"], check=True, capture_output=True)
            yard = timed(lambda d: sorted(name[::-1] for name, _ in d), device_names(n))
            t = time.perf_counter()
            p = subprocess.run([sys.executable, str(ROOT / "main.py"), "analyze", "storm", "--run", "1", "-w", str(ws)],
                               capture_output=True, text=True)
            t = time.perf_counter() - t
            status = "ok" if p.returncode == 0 else f"exit {p.returncode}: {(p.stderr or p.stdout).strip()[-120:]}"
            print(f"  {n:>7,} devices: {t:8.2f} s   ({status}; sorting the names: {yard * 1000:.1f} ms)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--counts", default="2000,4000,8000,16000")
    ap.add_argument("--storm-counts", default="2000,16000")
    args = ap.parse_args()
    bench_classify([int(c) for c in args.counts.split(",")])
    if args.storm_counts:
        bench_storm([int(c) for c in args.storm_counts.split(",")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
