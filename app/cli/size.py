"""``main.py size``: VDI storage sizing -- front-end and back-end IOPS, disks -- from stated or measured inputs."""

from __future__ import annotations

import argparse

from app.analysis.text import for_cli
from app.cli.common import Command, UsageError, add_workspace_arg, open_workspace, print_json


def arguments(p: argparse.ArgumentParser) -> None:
    add_workspace_arg(p)
    p.add_argument("--users", type=int, metavar="N")
    p.add_argument("--iops-per-user", type=float, metavar="X")
    p.add_argument("--read-pct", type=float, metavar="P", help="reads in %% of I/O (default 40)")
    p.add_argument("--raid", metavar="LEVEL", help="0|1|10|5|6|50|60|dp (default 10)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--disk-iops", type=float, metavar="N")
    g.add_argument("--disk-type", metavar="TYPE", help="sata5k|sata7k|sas10k|sas15k|ssd|nvme (default sata7k)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--storm-multiplier", type=float, metavar="M")
    g.add_argument("--storm", metavar="PRESET", help="login-storm|worst-storm|domain-low|domain-high|none")
    p.add_argument("--gb-per-user", type=float, metavar="G")
    p.add_argument("--disk-gb", type=float, metavar="D")
    p.add_argument("--profile", metavar="NAME", help="user profile preset (office-8, office-25, ...)")
    p.add_argument("--presets", metavar="FILE", help="JSON file merged over the built-in presets")
    p.add_argument("--list-presets", action="store_true", help="print the presets (JSON) and exit")
    p.add_argument("--measured-run", type=int, metavar="ID", help="take IOPS per user, read share and storm "
                   "multiplier from this iostat run")
    p.add_argument("--vms", type=int, metavar="N", help="number of VMs in the measured run")
    p.add_argument("--steady-run", type=int, metavar="ID")
    p.add_argument("--steady-phase", metavar="NAME")
    p.add_argument("--every", type=float, metavar="S", help="resample the measured run first (e.g. 5)")
    p.add_argument("--device", metavar="D[,D...]")
    p.add_argument("--rt-run", type=int, metavar="ID", help="response-time check on this run")
    p.add_argument("--rt-threshold-ms", type=float, default=50.0, metavar="MS")
    p.add_argument("--rt-goal-pct", type=float, default=80.0, metavar="P")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    from app.analysis.sizing import measured_inputs, response_time_check, size_vdi
    from app.analysis.sizing_presets import load_presets
    from app.analysis.text import AnalysisError, format_sizing

    try:
        presets = load_presets(args.presets)
    except (OSError, ValueError) as e:
        raise UsageError(f"--presets: {e}") from e
    if args.list_presets:
        print_json(presets)
        return 0
    if args.users is None:
        raise UsageError("--users is required")
    if (args.measured_run is None) != (args.vms is None):
        raise UsageError("--measured-run and --vms go together")
    measured = rt = None
    if args.measured_run is not None or args.rt_run is not None:
        with open_workspace(args) as ws:
            if args.measured_run is not None:
                measured = measured_inputs(ws, args.measured_run, args.vms, device=args.device,
                                           steady_run=args.steady_run, steady_phase=args.steady_phase,
                                           every_s=args.every)
            if args.rt_run is not None:
                rt = response_time_check(ws, args.rt_run, threshold_ms=args.rt_threshold_ms,
                                         goal_pct=args.rt_goal_pct, device=args.device)
    try:
        res = size_vdi(args.users, args.iops_per_user, read_pct=args.read_pct, raid=args.raid,
                       disk_iops=args.disk_iops, disk_type=args.disk_type, storm_multiplier=args.storm_multiplier,
                       storm=args.storm, gb_per_user=args.gb_per_user, disk_gb=args.disk_gb, profile=args.profile,
                       presets=presets, measured=measured)
    except AnalysisError as e:
        raise UsageError(for_cli(e)) from e
    res.response_time = rt
    out = res.as_dict()
    if measured is not None:
        out["measured"] = measured
    if args.json:
        print_json(out)
    else:
        print(format_sizing(res))
        if measured is not None:
            m = measured
            print(f"measured (run {m['run_id']}, {m['vms']} VMs): peak {m['peak_iops']:,.1f} IOPS, steady "
                  f"{m['steady_iops']:,.1f} IOPS ({m['method']['steady']}); per user {m['iops_per_user']:.2f} IOPS, "
                  f"storm x{m['storm_multiplier']:.2f}")
    return 0


SIZE = Command("size", "VDI storage sizing: front-end, back-end IOPS, disks", arguments, run)
