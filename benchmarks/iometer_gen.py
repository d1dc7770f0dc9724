"""Write the two Iometer ``results.csv`` files of tests/fixtures/iometer: a KVM guest disk read without limits and
with libvirt limits of 200 IOPS and 10 MB/s (10 MiB/s: 10,240 kB/s), as in a public blog post that verified such
limits with Iometer (256 KB 100 % sequential reads against the bandwidth cap, 512 B 100 % sequential reads against
the IOPS cap). The post shows its Iometer figures only as screenshots; it gives hdparm 156.36 MB/s without limits,
"about 1800 IOPS" without limits and "exactly 200 IOPS avg" with them. No real Iometer result file is public
(tests/corpus/MANIFEST.md), so these are HAND-MADE in the layout Iometer's own source writes (the header of
sample_traces/example_iometer_results.csv, CRLF line ends as Iometer writes on Windows), and their test description
says so.

The figures hang together: MiB/s = IOPS x size / 2^20, MB/s = IOPS x size / 10^6, I/Os = IOPS x 60 s, bytes =
I/Os x size, and at one outstanding I/O the mean response time is 1,000 / IOPS ms (Little's law).

    python benchmarks/iometer_gen.py        # from the checkout's root; rewrites tests/fixtures/iometer/*.csv
"""

from __future__ import annotations

from pathlib import Path

# the 'Target Type,... header of the sample
HEADER = Path("sample_traces/example_iometer_results.csv").read_text().splitlines()[13]
names = [h.strip() for h in HEADER.lstrip("'").split(",")]
LEN = 60.0


def row(kind: str, name: str, spec: str, iops: float, size: int, mean: float, mx: float, qd: int) -> str:
    v = {n: "" for n in names}
    mib = iops * size / 2**20
    dec = iops * size / 1e6
    ios = round(iops * LEN)
    v.update({"Target Type": kind, "Target Name": name, "Access Specification Name": spec,
              "IOps": f"{iops:.2f}", "Read IOps": f"{iops:.2f}", "Write IOps": "0.00",
              "MiBps (Binary)": f"{mib:.6f}", "Read MiBps (Binary)": f"{mib:.6f}", "Write MiBps (Binary)": "0.000000",
              "MBps (Decimal)": f"{dec:.6f}", "Read MBps (Decimal)": f"{dec:.6f}", "Write MBps (Decimal)": "0.000000",
              "Transactions per Second": f"{iops:.2f}", "Connections per Second": "0",
              "Average Response Time": f"{mean:.4f}", "Average Read Response Time": f"{mean:.4f}",
              "Average Write Response Time": "0.0000", "Average Transaction Time": f"{mean:.4f}",
              "Average Connection Time": "0", "Maximum Response Time": f"{mx:.4f}",
              "Maximum Read Response Time": f"{mx:.4f}", "Maximum Write Response Time": "0.0000",
              "Maximum Transaction Time": f"{mx:.4f}", "Maximum Connection Time": "0",
              "Errors": "0", "Read Errors": "0", "Write Errors": "0", "Bytes Read": str(ios * size),
              "Bytes Written": "0", "Read I/Os": str(ios), "Write I/Os": "0", "Connections": "0",
              "Transactions per Connection": "-1", "Queue Depth": str(qd)})
    if kind == "ALL":
        v.update({"# Managers": "1", "# Workers": "1", "# Disks": "1"})
    elif kind == "MANAGER":
        v.update({"# Workers": "1", "# Disks": "1"})
    elif kind == "WORKER":
        v.update({"# Disks": "1"})
    if kind in ("DISK",):
        v["Access Specification Name"] = ""
    return ",".join(v[n] for n in names)


def result_set(desc: str, start: str, end: str, spec: str, size: int, iops: float, mean: float, mx: float) -> list[str]:
    out = ["'Test Type,Test Description", f"0,{desc}", "'Version", "1.1.0", "'Time Stamp", start,
           "'Access specifications", "'Access specification name,default assignment", f"{spec},0",
           "'size,% of size,% reads,% random,delay,burst,align,reply", f"{size},100,100,0,0,1,0,0",
           "'End access specifications", "'Results", HEADER]
    for kind, name in (("ALL", "All"), ("MANAGER", "kvm-guest"), ("WORKER", "Worker 1"), ("DISK", "vdb")):
        out.append(row(kind, name, spec, iops, size, mean, mx, 1))
    out += ["'Time Stamp", end, "'End Test"]
    return out


DESC = "HAND-MADE from Iometer's layout and the figures of a KVM I/O-limit test - not a capture"

def write(path: str, figs: list[tuple[float, float, float]], tag: str) -> None:
    lines: list[str] = []
    lines += result_set(f"{DESC} ({tag})", "2013-05-20 10:00:00:000", "2013-05-20 10:01:00:000",
                  "256K 100pct read 0pct random", 262144, *figs[0])
    lines += result_set(f"{DESC} ({tag})", "2013-05-20 10:01:05:000", "2013-05-20 10:02:05:000",
                  "512B 100pct read 0pct random", 512, *figs[1])
    Path(path).write_bytes(("\r\n".join(lines) + "\r\n").encode())


if __name__ == "__main__":
    write("tests/fixtures/iometer/kvm_unlimited_results.csv",
          [(625.44, 1000 / 625.44, 24.3), (1800.0, 1000 / 1800.0, 12.8)], "no limits")
    write("tests/fixtures/iometer/kvm_limited_results.csv",
          [(40.0, 25.0, 102.4), (200.0, 5.0, 31.6)], "limited to 200 IOPS and 10 MB/s")
