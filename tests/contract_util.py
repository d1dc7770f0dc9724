"""The format contract, checked on imported runs (tests/parsers/test_format_contract.py and the broken formats it is
shown to catch): what a format declares (parsers.semantics) against what its files store.

:func:`contract_problems` returns what is wrong with the runs one file gave, as sentences naming the run:

* the main table: ``runs.n_rows`` counts the rows of the table the format declares, and the run has rows there;
* layers: every ``iostat_samples.layer`` value a run has is declared (the workspace refuses the others at import;
  this is the net under it), and rows without one only where the format declares name rules;
* ``runs.meta``: every key declared, every value of its declared type;
* whole-disk figures never count a device twice: the devices the default series sums (``series_devices.summed``)
  are all of the layer the declaration says is summed first; none is a partition of another one; none is a
  stacked device of the name rules beside a whole disk; and -- from the data, whatever the declaration says --
  no summed device's requests equal, report after report, the sum of the other summed devices or of the summed
  devices named under it (``tank`` and ``tank/mirror-0`` and ``tank/mirror-0/sda``; ``PhysicalDisk(_Total)`` and
  its disks): that would be one device's I/O counted in another.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.series_sums import partition_parent
from app.workspace import Workspace
from parsers.kinds import get as get_kind

# requests per report of one device row, as the series counts them (r/s + w/s + d/s + f/s of -x rows, else tps)
REQUESTS = ("CASE WHEN r_s IS NOT NULL OR w_s IS NOT NULL THEN coalesce(r_s, 0) + coalesce(w_s, 0) + "
            "coalesce(d_s, 0) + coalesce(f_s, 0) ELSE tps END")
KB = "CASE WHEN rkb_s IS NOT NULL OR wkb_s IS NOT NULL THEN coalesce(rkb_s, 0) + coalesce(wkb_s, 0) ELSE kb_s END"
SAME = 0.01  # two series are "the same" when every report agrees within 1 %
CHILD_SEPARATORS = "/:(,"


def contract_problems(ws: Workspace, run_ids: list[int], fmt: Any) -> list[str]:
    out: list[str] = []
    sem = fmt.semantics
    caps = get_kind(fmt.kind).capabilities
    for rid in run_ids:
        run = ws.run(rid)
        assert run is not None
        where = f"run {run.name!r} ({fmt.id})"
        n = ws.con.execute(f"SELECT count(*) FROM {sem.main_table} WHERE run_id = ?", [rid]).fetchall()[0][0]
        if run.n_rows != n:
            out.append(f"{where}: runs.n_rows is {run.n_rows}, its main table {sem.main_table} has {n} rows")
        if n == 0 and not any(ws.con.execute(f"SELECT count(*) FROM {t} WHERE run_id = ?", [rid]).fetchall()[0][0]
                              for t in fmt.tables):  # iostat -c has CPU figures only
            out.append(f"{where}: no row in any of its tables")
        meta = run.meta.as_dict() if run.meta else {}
        out += [f"{where}: {p}" for p in sem.meta_problems(meta, caps)]
        if "iostat_samples" in fmt.tables:
            out += [f"{where}: {p}" for p in _device_problems(ws, rid, sem)]
    return out


def layers_of(ws: Workspace, run_ids: list[int]) -> set[str | None]:
    return {la for (la,) in ws.con.execute("SELECT DISTINCT layer FROM iostat_samples WHERE list_contains(?, run_id)",
                                            [run_ids]).fetchall()}


def _device_problems(ws: Workspace, rid: int, sem: Any) -> list[str]:
    out = []
    found = layers_of(ws, [rid])
    bad = sem.undeclared_layers(found)
    if bad:
        out.append(f"layers {bad} are not declared (declared: {list(sem.layers)}, by name: {sem.names is not None})")
    devices = ws.con.execute("SELECT device, layer, summed FROM series_devices WHERE run_id = ?", [rid]).fetchall()
    summed = {d: la for d, la, s in devices if s}
    layered = {la for _d, la, _s in devices if la is not None}
    if layered:
        first = next((la for la in sem.whole_disk if la in layered or (la == "disk" and None in found)), None)
        wrong = sorted(d for d, la in summed.items() if (la or "disk") != first)
        if wrong:
            out.append(f"whole-disk figures sum {wrong[:3]}, not only the declared first layer {first!r}")
    else:
        names = set(summed)
        parts = sorted(d for d in names if partition_parent(d, names) is not None)
        if parts:
            out.append(f"whole-disk figures sum partitions beside their disks: {parts[:3]}")
        if sem.names is not None:
            stacked = sorted(d for d in names if sem.names.stacked_rule(d) is not None)
            if stacked and len(stacked) < len(names):
                out.append(f"whole-disk figures sum stacked devices beside whole disks: {stacked[:3]}")
    out += _double_counts(ws, rid, sorted(summed))
    return out


def _double_counts(ws: Workspace, rid: int, summed: list[str]) -> list[str]:
    """Summed devices that contain other summed devices: by name (``tank`` and ``tank/mirror``), or by their figures
    (a device whose requests or kB/s equal, report after report, the sum of the other summed devices, or of those
    of its own object: ``PhysicalDisk(_Total)`` and the ``PhysicalDisk(…)`` disks)."""
    if len(summed) < 2:
        return []
    out = []
    for d in summed:
        inside = [e for e in summed if _under(e, d)]
        if inside:
            out.append(f"whole-disk figures sum {d!r} and devices named as its parts ({', '.join(inside[:3])}"
                       f"{' …' if len(inside) > 3 else ''}): the same I/O twice")
    frame = ws.query(f"SELECT sample_idx, device, ({REQUESTS}) AS n, ({KB}) AS kb FROM iostat_samples "
                     "WHERE run_id = ? AND NOT since_boot AND list_contains(?, device)", [rid, summed])
    for measure in ("n", "kb"):
        if frame.get_column(measure).null_count() == frame.height:
            continue
        wide = frame.pivot(on="device", index="sample_idx", values=measure).fill_null(0.0)
        cols = {d: wide.get_column(d).to_numpy() for d in summed if d in wide.columns}
        for d, values in cols.items():
            others = [e for e in cols if e != d]
            family = [e for e in others if "(" in d and e.split("(")[0] == d.split("(")[0]]
            for what, group in (("every other summed device", others), ("the other devices of its object", family)):
                if group and _same_series(values, sum(cols[e] for e in group)):
                    unit = "requests" if measure == "n" else "kB/s"
                    out.append(f"whole-disk figures count {d!r} beside {what} ({', '.join(group[:3])}"
                               f"{' …' if len(group) > 3 else ''}): its {unit} equal their sum in every report -- "
                               "the same I/O twice")
                    break
    return sorted(set(out))


def _under(name: str, parent: str) -> bool:
    """``name`` is named as a part of ``parent`` (``tank/mirror`` of ``tank``, ``sd4,a`` of ``sd4``)."""
    return len(name) > len(parent) and name.startswith(parent) and name[len(parent)] in CHILD_SEPARATORS


def _same_series(a: np.ndarray, b: np.ndarray) -> bool:
    active = (a > 0) | (b > 0)
    if int(active.sum()) < 2:  # a single busy report proves nothing
        return False
    x, y = a[active], b[active]
    return bool((np.abs(x - y) <= SAME * np.maximum(x, y)).all())
