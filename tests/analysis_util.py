"""Small hand-made iostat logs for the analysis tests: every number in them is chosen so that the
expected results can be worked out by hand (the tests show the arithmetic)."""

from __future__ import annotations

from datetime import datetime, timedelta

XT_HEADER = ("Device            r/s     w/s     d/s     f/s   rkB/s   wkB/s r_await w_await d_await f_await  %util")

# (r/s, w/s, d/s, f/s, rkB/s, wkB/s, r_await, w_await, d_await, f_await)
Row = tuple[float, float, float, float, float, float, float, float, float, float]


def xt_log(reports: list[dict[str, Row]], interval: int = 5, host: str = "lab") -> str:
    """An `iostat -dxt INTERVAL` log (sysstat 12 columns); the first report is the since-boot one."""
    t0 = datetime(2026, 11, 22, 10, 0, 0)
    out = [f"Linux 5.15.0 ({host}) \t11/22/26 \t_x86_64_\t(4 CPU)", ""]
    for k, rep in enumerate(reports):
        out.append((t0 + timedelta(seconds=k * interval)).strftime("%m/%d/%y %H:%M:%S"))
        out.append(XT_HEADER)
        for dev, v in rep.items():
            out.append(f"{dev:<14}" + "".join(f"{x:8.2f}" for x in v[:10]) + "    5.00")
        out.append("")
    return "\n".join(out) + "\n"


def row(r: float = 0, w: float = 0, d: float = 0, f: float = 0, rkb: float = 0, wkb: float = 0, ra: float = 0,
        wa: float = 0, da: float = 0, fa: float = 0) -> Row:
    return (r, w, d, f, rkb, wkb, ra, wa, da, fa)


BOOT = {"sda": row(500, 500, rkb=2000, wkb=2000, ra=1, wa=1), "sda1": row(500, 500), "dm-0": row(500, 500),
        "sdb": row(50, 50)}

# sda + sdb are whole disks; sda1 is a partition of sda and dm-0 sits on top of them: both left out.
# total IOPS per report: 43, 150, 50 (5 s each: 215 + 750 + 250 = 1,215 I/Os)
THREE_REPORTS = [
    BOOT,
    {"sda": row(10, 20, 1, 2, 40, 80, 2, 4, 0, 1), "sda1": row(10, 20, 0, 0, 40, 80, 2, 4),
     "dm-0": row(10, 20, 0, 0, 40, 80, 2, 4), "sdb": row(5, 5, 0, 0, 20, 20, 3, 3)},
    {"sda": row(100, 50, 0, 0, 400, 200, 1, 10), "sda1": row(100, 50, 0, 0, 400, 200, 1, 10),
     "dm-0": row(100, 50, 0, 0, 400, 200, 1, 10), "sdb": row()},
    {"sda": row(), "sda1": row(), "dm-0": row(), "sdb": row(50, 0, 0, 0, 200, 0, 2)},
]

PLAIN_D = """Linux 5.15.0 (lab) \t11/22/26 \t_x86_64_\t(4 CPU)

Device             tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn
sda            3000.00       100.00        50.00    1000000     500000

Device             tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn
sda             200.00       800.00         0.00       1600          0

Device             tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn
sda             100.00       300.00       100.00        600        200

"""


def iops_log(values: list[float], interval: int = 5, read_share: float = 0.5, await_ms: list[float] | None = None,
             host: str = "lab") -> str:
    """One disk whose total IOPS per report are ``values`` (a since-boot report of 1 IOPS goes first)."""
    reps: list[dict[str, Row]] = [{"sda": row(1)}]
    for i, v in enumerate(values):
        a = 1.0 if await_ms is None else await_ms[i]
        reps.append({"sda": row(v * read_share, v * (1 - read_share), ra=a, wa=a)})
    return xt_log(reps, interval, host)
