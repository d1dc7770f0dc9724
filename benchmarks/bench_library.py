"""Comparing a storm with a library of 1,000 engagements, from a local folder (goal: under 1 s).

    python benchmarks/bench_library.py [ENGAGEMENTS] [ROUNDS]

The library is SYNTHETIC: the sample captures' real storms (sample_traces/storm_fast_iostat-xt.txt and
storm_slow_iostat-xt.txt, their figures by app.analysis.library.run_figures) published once, then copied 1,000 times
at varied scales -- IOPS x 0.3..3, desktops 10..60, peak-to-plateau x 0.8..2, reads x 0.6..1.4, await x 0.5..50,
workload and hypervisor drawn from four of each -- each engagement written by the library's own atomic publish
(app.store.library.write_engagement: a manifest and a runs file per engagement, as a real one), then the library's
index written once (app.store.library.write_index; a real publish rewrites it each time: its cost is printed too).

Timed: the library question's whole answer -- the storm run's figures from the workspace, every manifest read and
checked, every listed file's size checked, the rows read, the comparable runs filtered, the percentiles -- three ways,
each round on its own:

* cold without the index (ROUNDS/2): the library as an older StormScope left it, this computer's reading cache empty:
  every runs file parsed by one DuckDB read_parquet (the way before the index);
* cold with the index (ROUNDS): this computer's reading cache empty: the index's one file read and checked, every
  manifest read and hashed, every runs file read and hashed against its manifest (not parsed);
* warm (ROUNDS): the rows from this computer's reading cache, manifests and sizes checked again.

The three must give the same figures (exit 1 if not). The operating system's file cache is warm in all three (the
library was just written), as on a consultant's laptop or a file share read a moment before. Yardstick in the same
script: DuckDB reading the same 1,000 Parquet files with one read_parquet (the engine alone, no manifest and no
check), and the workspace side alone (run_figures).
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def build(folder: Path, n: int) -> tuple[Path, list[dict]]:
    import pyarrow as pa

    from app.analysis import questions as Q
    from app.analysis.library import run_figures
    from app.importer import import_file
    from app.store.library import write_engagement
    from app.workspace import Workspace
    from parsers.base import ImportOptions

    wsp = folder / "ws.duckdb"
    with Workspace(wsp) as ws:
        for f in ("storm_fast_iostat-xt.txt", "storm_slow_iostat-xt.txt"):
            import_file(ws, str(ROOT / "sample_traces" / f), ImportOptions(first_report="interval"))
        Q.add_question(ws, Q.SizingQuestion(users=100, measured_run=1, vms=20))
        real = [run_figures(ws, 1, 20), run_figures(ws, 2, 20)]
    rnd = random.Random(34)
    lib = folder / "lib"
    for i in range(n):
        rows = []
        d = rnd.randint(10, 60)
        workload = rnd.choice(["boot_storm", "logon_storm", "steady", "mixed"])
        hyp = rnd.choice(["vSphere", "Hyper-V", "AHV", "XenServer"])
        for t in real:
            k = rnd.uniform(0.3, 3.0)
            r = {**t, "run": f"run {len(rows) + 1}", "desktops": d, "workload": workload, "hypervisor": hyp}
            r.pop("started_at")
            r["peak_iops"] = t["peak_iops"] * k * d / 20
            r["plateau_iops"] = t["plateau_iops"] * k * d / 20
            r["peak_iops_per_desktop"] = r["peak_iops"] / d
            r["plateau_iops_per_desktop"] = r["plateau_iops"] / d
            r["peak_to_plateau"] = t["peak_to_plateau"] * rnd.uniform(0.8, 2.0)
            r["read_share"] = min(1.0, t["read_share"] * rnd.uniform(0.6, 1.4))
            r["mean_await_ms"] = t["mean_await_ms"] * rnd.uniform(0.5, 50)
            rows.append(r)
        write_engagement(str(lib), {"engagement": f"synthetic{i:05d}", "synthetic": True, "workload": workload,
                                    "hypervisor": hyp, "desktops": d}, {"runs": pa.Table.from_pylist(rows)},
                         index=False)  # the index written once at the end (main), as a bulk load does
    return wsp, [{"workload": "boot_storm", "hypervisor": "vSphere"}]


def _stats(xs: list[float]) -> str:
    return (f"median {statistics.median(xs) * 1000:.0f} ms ({min(xs) * 1000:.0f}-{max(xs) * 1000:.0f} ms over "
            f"{len(xs)})")


def _figures(a) -> tuple:
    """An answer's figures as the report prints them, and every comparable value (the index path and the
    file-by-file path must give exactly these)."""
    res = a.evidence.results[0]
    return (a.reason, [f.text for f in a.figures], res.engagements_in_library, res.comparable_engagements,
            [(m.key, m.value, m.percentile, m.median, sorted(m.peers)) for m in res.metrics])


def main() -> None:
    import os

    import duckdb

    from app.analysis import questions as Q
    from app.analysis.library import run_figures
    from app.workspace import Workspace

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory(prefix="bench_library_") as tmp:
        t0 = time.perf_counter()
        wsp, _ = build(Path(tmp), n)
        lib = Path(tmp) / "lib"
        print(f"built a synthetic library of {n:,} engagements ({2 * n:,} runs) in {time.perf_counter() - t0:.1f} s "
              f"({sum(p.stat().st_size for p in lib.rglob('*') if p.is_file()) / 1e6:.1f} MB)")
        from app.store.library import INDEX, write_index

        t = time.perf_counter()
        done = write_index(str(lib))
        index_mb = sum(p.stat().st_size for p in (lib / INDEX).iterdir()) / 1e6
        print(f"  the library's index, first written (every file read): {done} ({index_mb:.2f} MB) in "
              f"{(time.perf_counter() - t) * 1000:.0f} ms")
        answer_s, engine_s, ws_s, cpu_s = [], [], [], []
        cold_s, cold_cpu, slow_s = [], [], []
        q = Q.LibraryQuestion(1, str(lib), 20, "boot_storm", "vSphere")

        def fresh_cache(name: str) -> None:  # a computer that never read this library
            os.environ["STORMSCOPE_LIBRARY_CACHE"] = str(Path(tmp) / "cache" / name)

        with Workspace(wsp, read_only=True) as ws:
            run_figures(ws, 1, 20, shares=False)  # the workspace side warmed, as in a running window
            # the old way: no index (a library of an older StormScope), every file read
            (lib / INDEX).rename(lib / "_index.aside")
            for i in range(max(1, rounds // 2)):
                fresh_cache(f"slow{i}")
                t = time.perf_counter()
                slow = Q.answer(ws, q)
                slow_s.append(time.perf_counter() - t)
            (lib / "_index.aside").rename(lib / INDEX)
            for i in range(rounds):  # cold: the index read, every manifest read, every runs file hashed
                fresh_cache(f"cold{i}")
                t, c = time.perf_counter(), time.process_time()
                cold = Q.answer(ws, q)
                cold_s.append(time.perf_counter() - t)
                cold_cpu.append(time.process_time() - c)
            for _ in range(rounds):  # warm: this computer's reading cache
                t, c = time.perf_counter(), time.process_time()
                a = Q.answer(ws, q)
                answer_s.append(time.perf_counter() - t)
                cpu_s.append(time.process_time() - c)
                t = time.perf_counter()
                run_figures(ws, 1, 20, shares=False)
                ws_s.append(time.perf_counter() - t)
                t = time.perf_counter()
                files = [str(p) for p in lib.glob("kind=runs/engagement=*/*.parquet")]
                con = duckdb.connect()
                con.sql(f"SELECT * FROM read_parquet({files!r}, hive_partitioning = true)").to_arrow_table()
                con.close()
                engine_s.append(time.perf_counter() - t)
        import pyarrow as pa

        from app.store.library import write_engagement

        t = time.perf_counter()
        write_engagement(str(lib), {"engagement": "synthetic-extra", "synthetic": True},
                         {"runs": pa.Table.from_pylist([{"run": "run 1", "peak_iops": 1.0}])}, index=False)
        t_publish = time.perf_counter() - t
        t = time.perf_counter()
        write_index(str(lib))
        t_index = time.perf_counter() - t
        res = a.evidence.results[0]
        same = _figures(slow) == _figures(cold) == _figures(a)
        med, cmed = statistics.median(answer_s), statistics.median(cold_s)
        print(f"compare with the library, cold without an index (every file read, as before): {_stats(slow_s)}")
        print(f"compare with the library, cold with the index (no reading cache on this computer): {_stats(cold_s)}, "
              f"goal < 1,000 ms: {'met' if cmed < 1 else 'NOT met'}; CPU median "
              f"{statistics.median(cold_cpu) * 1000:.0f} ms")
        print(f"compare with the library, warm (this computer's reading cache): {_stats(answer_s)}, goal < 1,000 ms: "
              f"{'met' if med < 1 else 'NOT met'}; CPU median {statistics.median(cpu_s) * 1000:.0f} ms; "
              f"{res.comparable_engagements} comparable of {res.engagements_in_library:,}; refused {len(res.refused)}")
        print(f"  the index's answer and the file-by-file answer: {'the same figures' if same else 'DIFFERENT'}")
        eng = statistics.median(engine_s)
        print(f"  yardstick, DuckDB read_parquet of the same {n:,} files alone: {_stats(engine_s)} (cold with the "
              f"index / yardstick {cmed / eng:.2f}, warm {med / eng:.2f}, cold without the index "
              f"{statistics.median(slow_s) / eng:.2f})")
        print(f"  of which the workspace side (the storm run's figures): "
              f"median {statistics.median(ws_s) * 1000:.0f} ms")
        print(f"  one more publish into the {n:,}-engagement library: {t_publish * 1000:.0f} ms, then its index "
              f"rewrite {t_index * 1000:.0f} ms (the index read, every manifest read, the new file read)")
        print(f"  load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"  answer: {a.figures[0].text}")
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
