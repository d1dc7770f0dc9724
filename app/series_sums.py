"""The per-report sums of a run's default series, stored at import (no Qt, no analysis; below the workspace).

The overlay, the analyses and the report sum a run's ``iostat_samples`` per report over its whole disks
(:func:`default_choice`) with every request counted (``DEFAULT_OPS``). For a 10 M-row run that aggregation reads
every row, seconds each time. So the import stores it once, inside the file's transaction, in two derived tables
(docs/schema.md):

* ``series_devices``: the run's distinct devices (name, ``is_group``, ``layer``) and whether the default choice
  sums them (``summed``);
* ``series_sums``: per report and since-boot flag, the sums of :func:`per_report_sql` over the summed devices,
  its first clock time, and what they were computed for (``ops``, ``sums_version``).

There is ONE definition of the sums: the stored ones are made by the same SQL as the live ones
(``app.analysis.series`` runs :func:`per_report_sql` for any other device choice or ops), grouped by report and
since-boot flag instead of filtered on it -- a DECIMAL sum is exact, so the same rows give the same figures to
the bit. Whatever changes what they were computed from recomputes them in the same transaction
(``app.workspace``: the interval given after import rewrites ``t_s``, the first-report answer flips
``since_boot``). Whatever changes how they are computed -- this SQL, the row rules -- must raise
:data:`SUMS_VERSION`, with a migration step that calls :func:`store_sums` for every run (as the step to schema 4
does). Stored sums of another version, for other ops, or for a device list the device rules no longer choose
(a change of :func:`default_choice` is noticed by itself: the stored devices are classified again on every load)
are never used: the live SQL is, and gives today's figures.

They trust that ``iostat_samples`` changes only through StormScope (the import, the two answers above, run
delete): rows edited behind its back, with another DuckDB client, leave the sums as they were.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from parsers.layers import LAYERS as LAYER_VOCABULARY
from parsers.layers import LINUX_NAMES

# bump whenever per_report_sql, the row rules or the device classification change what the stored sums hold
SUMS_VERSION = 1
DEFAULT_OPS = ("r", "w", "d", "f")  # the series' default: every request the device saw


# the series' figures, each with the frame columns it fills and the per-report sums it needs
# (:func:`per_report_sql`); ``iops`` is always loaded (alignment on first activity and the I/O counts use it)
FIGURES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "iops": (("iops", "ios"), ("iops", "any_x", "any_p")),
    "read_write": (("read_iops", "write_iops", "other_iops"), ("rd", "wr", "oth", "have_rw")),
    "throughput": (("kbs", "read_kbs", "write_kbs"), ("rkb", "wkb", "kb", "kba", "rwa")),
    "await": (("await_ms",), ("awn", "awd", "awa", "aw_sum", "aw_n")),
}
ALL_FIGURES = frozenset(FIGURES)


# ---- devices ------------------------------------------------------------------------------------
@dataclass
class DeviceChoice:
    """Which devices a series sums, and why the others were left out."""

    requested: str | None  # None: the default (whole disks)
    used: list[str]
    excluded: dict[str, str] = field(default_factory=dict)  # device -> reason
    rule: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"requested": self.requested, "used": self.used, "excluded": self.excluded, "rule": self.rule}


_TRAILING_DIGITS = re.compile(r"\d+\Z")


def _parent_candidates(name: str) -> list[str]:
    """The whole devices ``name`` would be a partition of: ``sda`` of ``sda1``, ``nvme0n1`` of ``nvme0n1p2``,
    ``disk-part3``'s ``disk`` (at most three, whatever the number of devices)."""
    m = _TRAILING_DIGITS.search(name)
    stem = name[:m.start()] if m else ""
    if not stem:
        return []
    out = []
    if not stem[-1].isdigit():
        out.append(stem)  # sda1 -> sda
    if stem.endswith("p") and len(stem) > 1 and stem[-2].isdigit():
        out.append(stem[:-1])  # nvme0n1p2 -> nvme0n1
    if stem.endswith("-part") and len(stem) > 5:
        out.append(stem[:-5])  # by-id names: disk-part3 -> disk
    return out


def partition_parent(name: str, names: set[str] | list[str]) -> str | None:
    """The whole device ``name`` is a partition of, when that device is among ``names`` (the first in sorted
    order when several fit). Pass a set: the look-up is then constant per name, so classifying 100 k devices
    stays linear (it compared every pair, 16 k devices took 22 s)."""
    known = names if isinstance(names, (set, frozenset)) else set(names)
    found = [p for p in _parent_candidates(name) if p in known and p != name]
    return min(found) if found else None


# what a device of each ``iostat_samples.layer`` is, and why it is left out of the whole-disk total; in the order the
# default falls back to when a run has no row of the layers before (perfmon LogicalDisk only: its volumes). The
# vocabulary is the parsers' (parsers.layers), where each format declares which layers its rows have.
LAYERS: dict[str, str] = {v: la.left_out for v, la in LAYER_VOCABULARY.items()}
LAYER_NAMES = {v: la.noun for v, la in LAYER_VOCABULARY.items()}
VIRTUAL_FAMILIES = frozenset({"zram", "NBD", "Ceph RBD"})  # name-rule families that are no disk of this host
STACKED_WORDS = "device-mapper/md/loop"  # the stacked devices every run's rule names (more where a run has others)


def _classify_layers(layers: dict[str, str]) -> DeviceChoice:
    """The default choice for a run whose rows say what each device is (perfmon, esxtop)."""
    for layer in LAYERS:
        used = sorted(n for n, la in layers.items() if la == layer)
        if used:
            excluded = {n: LAYERS.get(la) or f"{la} row" for n, la in sorted(layers.items()) if la != layer}
            rule = "whole disks: the physical disks; volumes, adapters, VM disks and totals left out" \
                if layer == "disk" else f"no physical disk in the run: its {LAYER_NAMES[layer]}"
            return DeviceChoice(None, used, excluded, rule)
    return DeviceChoice(None, [], {}, "no device")


def default_choice(devices: list[tuple[str, bool]] | list[tuple[str, bool, str | None]],
                   requested: str | None = None, stacked: dict[str, str] | None = None) -> DeviceChoice:
    """The whole-disk choice from ``(name, is_group)`` or ``(name, is_group, layer)`` tuples: where the rows carry a
    ``layer`` (the format says what each device is), the physical disks; otherwise the name rules of
    :data:`parsers.layers.LINUX_NAMES` (partitions, stacked dm/md/loop/bcache/DRBD/zvol devices, ``-g`` groups).
    ``requested``: None or ``"disks"``, as asked. ``stacked``: the devices the run's own figures prove stacked on
    others (:func:`find_stacked`, ``runs.meta.stacked_by_data``), left out with the proof as the reason."""
    choice = _by_rules(devices, requested)
    proven = [d for d in choice.used if stacked and d in stacked]
    if not proven or len(proven) == len(choice.used):
        return choice
    assert stacked is not None
    excluded = dict(sorted({**choice.excluded, **{d: stacked[d] for d in proven}}.items()))
    return DeviceChoice(choice.requested, [d for d in choice.used if d not in stacked], excluded,
                        f"{choice.rule}; devices whose figures are the sum of others' left out (stacked on them)")


def _by_rules(devices: list[tuple[str, bool]] | list[tuple[str, bool, str | None]],
              requested: str | None = None) -> DeviceChoice:
    names = sorted({d[0] for d in devices})
    groups = sorted({d[0] for d in devices if d[1]})
    group_set = set(groups)
    layers = {d[0]: d[2] for d in devices if len(d) > 2 and d[2]}  # 3-tuples only
    if layers:
        return replace(_classify_layers({n: layers.get(n, "disk") for n in names}), requested=requested)
    plain = [n for n in names if n not in group_set]
    plain_set = set(plain)
    parts = {n: p for n in plain if (p := partition_parent(n, plain_set)) is not None}
    rules = {n: r for n in plain if n not in parts and (r := LINUX_NAMES.stacked_rule(n)) is not None}
    stacked = [n for n in plain if n in rules]
    disks = [n for n in plain if n not in parts and n not in rules]
    excluded = {n: f"partition of {p} (counted in {p})" for n, p in parts.items()}
    excluded.update({g: "-g group summary row (the sum of its members)" for g in groups})
    extra = [r.family for r in rules.values() if r.family != "dm/md/loop"]  # bcache, DRBD, zvol: named where present
    virtual = [f for f in dict.fromkeys(extra) if f in VIRTUAL_FAMILIES]  # zram, NBD, RBD: not this host's disks
    families = "/".join(dict.fromkeys(["dm/md/loop", *[f for f in extra if f not in virtual]]))
    if disks:
        excluded.update({s: rules[s].left_out for s in stacked})
        also = f", virtual {'/'.join(virtual)} devices" if virtual else ""
        return DeviceChoice(requested, disks, dict(sorted(excluded.items())),
                            f"whole disks: partitions, stacked {families} devices{also} and -g group rows left out")
    if stacked:
        words = "/".join(dict.fromkeys([STACKED_WORDS, *extra]))
        return DeviceChoice(requested, stacked, dict(sorted(excluded.items())),
                            f"no whole disk in the run: the {words} devices it has")
    if groups:
        excluded = {n: f"partition of {p} (counted in {p})" for n, p in parts.items()}
        return DeviceChoice(requested, groups, excluded, "only -g group rows in the run: the groups")
    return DeviceChoice(requested, [], excluded, "no device")



# ---- the per-report sums ------------------------------------------------------------------------
_PART = {"r": "r_s", "w": "w_s", "d": "d_s", "f": "f_s"}
_WAIT = {"r": "r_await_ms", "w": "w_await_ms", "d": "d_await_ms", "f": "f_await_ms"}


def _exact_sum(expr: str) -> str:
    """A sum that is exact and the same on every run: each value rounded to 12 decimals and added as a DECIMAL
    (a sum of doubles over DuckDB's threads adds in a varying order, and its last bits would vary with it; the
    report promises the same figures, to the byte, for the same files).

    The rounding is ``round(x, 12)`` written out as DuckDB computes it for a DOUBLE (``std::round(x * 10^12) /
    10^12``, RoundOperatorPrecision): the same value, without a ``pow`` per value -- the sums of a 5 M-row run
    take 40 % less time. tests/analysis/test_series_sums.py checks that both give the same decimal for every value
    of the corpus and a million random ones."""
    return f"sum((round(({expr}) * 1e12) / 1e12)::DECIMAL(38, 12))::DOUBLE"


# each per-report sum (alias -> aggregate over the rows of :func:`_rows_sql`), in the order of the sums frame
AGGREGATES: dict[str, str] = {a: _exact_sum(c) for c, a in (
    ("n", "iops"), ("rd", "rd"), ("wr", "wr"), ("oth", "oth"), ("awn", "awn"), ("awd", "awd"), ("rkb", "rkb"),
    ("wkb", "wkb"), ("kb", "kb"), ("aw_plain", "aw_sum"))}
AGGREGATES.update(have_rw="bool_and(x)", awa="bool_or(awa)", kba="bool_or(kba)", any_x="bool_or(x)",
                  any_p="bool_or(p)", rwa="bool_or(rw_kb)", aw_n="sum(aw_count)")
# what a sum of a figure not asked for is instead (typed as the sum would be)
_EMPTY = {"have_rw": "NULL::BOOLEAN", "awa": "NULL::BOOLEAN", "kba": "NULL::BOOLEAN", "rwa": "NULL::BOOLEAN",
          "aw_n": "NULL::HUGEINT"}


def _rows_sql(ops: tuple[str, ...]) -> str:
    """Each row's contribution to its report's sums (``FROM iostat_samples``, without a WHERE).

    Row rules: an extended (-x) row counts the ``ops`` request columns (missing ones count 0); a plain
    row counts ``tps``; await is weighted by the requests it belongs to (per op where the file splits
    it, else the row's await x its requests); throughput is read + write (+ write+discard for -s), else
    the -s total.
    """
    is_x = "(r_s IS NOT NULL OR w_s IS NOT NULL)"
    is_tps = f"(NOT {is_x} AND tps IS NOT NULL)"
    n_x = " + ".join(f"coalesce({_PART[k]}, 0)" for k in ops) or "0.0"
    n = f"(CASE WHEN {is_x} THEN {n_x} WHEN {is_tps} THEN tps ELSE 0.0 END)"
    usable = {k: f"({_PART[k]} IS NOT NULL AND {_PART[k]} <> 0 AND {_WAIT[k]} IS NOT NULL)" for k in ops}
    split_num = " + ".join(f"(CASE WHEN {usable[k]} THEN {_PART[k]} * {_WAIT[k]} ELSE 0.0 END)" for k in ops) or "0.0"
    split_den = " + ".join(f"(CASE WHEN {usable[k]} THEN {_PART[k]} ELSE 0.0 END)" for k in ops) or "0.0"
    split = f"({is_x} AND ({' OR '.join(usable.values()) or 'false'}))"
    row_aw = f"(await_ms IS NOT NULL AND {n} <> 0)"
    w_kb = "coalesce(wkb_s, wdkb_s)"
    rw_kb = f"(rkb_s IS NOT NULL OR {w_kb} IS NOT NULL)"
    other = " + ".join(f"coalesce({_PART[k]}, 0)" for k in ops if k in "df") or "0.0"
    return f"""SELECT sample_idx, since_boot, t_s, ts, {is_x} AS x, {is_tps} AS p, {n} AS n,
        CASE WHEN {is_x} THEN coalesce(r_s, 0) ELSE 0.0 END AS rd,
        CASE WHEN {is_x} THEN coalesce(w_s, 0) ELSE 0.0 END AS wr,
        CASE WHEN {is_x} THEN {other} ELSE 0.0 END AS oth,
        CASE WHEN {split} THEN {split_num} WHEN {row_aw} THEN {n} * await_ms ELSE 0.0 END AS awn,
        CASE WHEN {split} THEN {split_den} WHEN {row_aw} THEN {n} ELSE 0.0 END AS awd,
        ({split} OR {row_aw}) AS awa,
        CASE WHEN {rw_kb} THEN coalesce(rkb_s, 0) ELSE 0.0 END AS rkb,
        CASE WHEN {rw_kb} THEN coalesce({w_kb}, 0) ELSE 0.0 END AS wkb,
        CASE WHEN {rw_kb} THEN coalesce(rkb_s, 0) + coalesce({w_kb}, 0) WHEN kb_s IS NOT NULL THEN kb_s ELSE 0.0 END
            AS kb,
        ({rw_kb} OR kb_s IS NOT NULL) AS kba, {rw_kb} AS rw_kb,
        CASE WHEN await_ms IS NOT NULL THEN await_ms ELSE {" + ".join(f"coalesce({w}, 0)" for w in _WAIT.values())}
            END AS aw_plain,
        CASE WHEN await_ms IS NOT NULL THEN 1 ELSE {" + ".join(f"({w} IS NOT NULL)::INTEGER" for w in _WAIT.values())}
            END AS aw_count
        FROM iostat_samples"""


def sums_select(figures: frozenset[str], stored: bool = False) -> str:
    """The select list of the per-report sums of ``figures`` (IOPS always), the others NULL: aggregates over the
    rows of :func:`_rows_sql`, or (``stored``) the columns of ``series_sums`` typed as the aggregates are."""
    wanted = {a for f in figures | {"iops"} for a in FIGURES[f][1]}

    def made(a: str) -> str:
        if not stored:
            return AGGREGATES[a]
        return "aw_n::HUGEINT" if a == "aw_n" else a  # stored as BIGINT (a count), summed as HUGEINT

    return ", ".join(f"{made(a) if a in wanted else _EMPTY.get(a, 'NULL::DOUBLE')} AS {a}" for a in AGGREGATES)


def per_report_sql(ops: tuple[str, ...], figures: frozenset[str] = ALL_FIGURES, every_device: bool = False) -> str:
    """Per analysed report, the sums over the chosen devices (``?`` 1: the run, ``?`` 2: the devices, left out with
    ``every_device``: the run has no other device), in DuckDB: a 10 M-row run is aggregated where it is stored,
    never pulled into memory row by row. Only the sums of ``figures`` are made (the others are NULL): DuckDB then
    reads only the columns they need -- the overlay's first curve (IOPS) reads a third of them. Since-boot
    reports are left out. Row rules: :func:`_rows_sql`."""
    devices = "" if every_device else " AND list_contains(?, device)"
    return f"""SELECT sample_idx, min(t_s) AS t_s, bool_or(t_s IS NULL) AS t_missing, {sums_select(figures)}
        FROM ({_rows_sql(ops)} WHERE run_id = ? AND NOT since_boot{devices}) GROUP BY sample_idx ORDER BY sample_idx"""


def _stored_sql(every_device: bool, some_reports: bool) -> str:
    """The rows of ``series_sums`` for a run (``?``: the run, the run again, then the devices unless
    ``every_device``, then the reports with ``some_reports``): :func:`per_report_sql`'s sums of every figure for
    the default ops, per report AND since-boot flag (so that a flag turned later needs no other sums), with the
    clock time printed with the report's first chosen row."""
    devices = "" if every_device else " AND list_contains(?, device)"
    reports = " AND list_contains(?, sample_idx)" if some_reports else ""
    return f"""SELECT ? AS run_id, sample_idx, since_boot, min(t_s) AS t_s, bool_or(t_s IS NULL) AS t_missing,
        min(ts) AS ts, {sums_select(ALL_FIGURES)}, '{",".join(DEFAULT_OPS)}' AS ops, {SUMS_VERSION} AS sums_version
        FROM ({_rows_sql(DEFAULT_OPS)} WHERE run_id = ?{devices}{reports}) GROUP BY sample_idx, since_boot"""


def _store_reports(con: Any, run_id: int, summed: list[str], every_device: bool, reports: list[int] | None) -> None:
    """Insert the sums of the run's ``reports`` (None: all), and a row without sums for each since-boot report
    none of whose rows is of a summed device (the series still names it as left out)."""
    some = reports is not None
    params: list[Any] = [run_id, run_id] + ([] if every_device else [summed]) + ([reports] if some else [])
    con.execute(f"INSERT INTO series_sums BY NAME {_stored_sql(every_device, some)}", params)
    if every_device:
        return
    con.execute(f"""INSERT INTO series_sums (run_id, sample_idx, since_boot, ops, sums_version)
        SELECT DISTINCT run_id, sample_idx, true, '{",".join(DEFAULT_OPS)}', {SUMS_VERSION} FROM iostat_samples
        WHERE run_id = ? AND since_boot{' AND list_contains(?, sample_idx)' if some else ''} AND sample_idx NOT IN
            (SELECT sample_idx FROM series_sums WHERE run_id = ? AND since_boot)""",
                [run_id, *([reports] if some else []), run_id])


def store_sums(con: Any, run_id: int, reports: list[int] | None = None) -> None:
    """(Re)compute the stored sums of a run's default series, inside the caller's transaction: every report, or
    only ``reports`` (their rows changed, the run's devices did not) when the run has sums of this version."""
    if reports is not None:
        summed = stored_devices(con, run_id)
        if summed is not None and current(con, run_id):
            con.execute("DELETE FROM series_sums WHERE run_id = ? AND list_contains(?, sample_idx)", [run_id, reports])
            names = sorted({d for d, _g, _la, s in summed if s})
            _store_reports(con, run_id, names, all(s for *_x, s in summed), reports)
            return
    con.execute("DELETE FROM series_sums WHERE run_id = ?", [run_id])
    con.execute("DELETE FROM series_devices WHERE run_id = ?", [run_id])
    devices = con.execute("SELECT DISTINCT device, is_group, layer FROM iostat_samples WHERE run_id = ?",
                          [run_id]).fetchall()
    if not devices:
        return
    used = set(default_choice([(d, bool(g), la) for d, g, la in devices], stacked=proven_stacked(con, run_id)).used)
    con.execute("INSERT INTO series_devices SELECT ?, unnest(?::VARCHAR[]), unnest(?::BOOLEAN[]), "
                "unnest(?::VARCHAR[]), unnest(?::BOOLEAN[])",
                [run_id, [d[0] for d in devices], [bool(d[1]) for d in devices], [d[2] for d in devices],
                 [d[0] in used for d in devices]])
    if used:
        _store_reports(con, run_id, sorted(used), used == {d[0] for d in devices}, None)


def stored_devices(con: Any, run_id: int) -> list[tuple[str, bool, str | None, bool]] | None:
    """The run's devices as stored (name, is_group, layer, summed); None when the run has none stored."""
    rows = con.execute("SELECT device, is_group, layer, summed FROM series_devices WHERE run_id = ?",
                       [run_id]).fetchall()
    return [(d, bool(g), la, bool(s)) for d, g, la, s in rows] or None


def current(con: Any, run_id: int, ops: tuple[str, ...] = DEFAULT_OPS) -> bool:
    """The run has stored sums, all of this :data:`SUMS_VERSION` and for ``ops``."""
    n, versions, kinds = con.execute(
        "SELECT count(*), list(DISTINCT sums_version), list(DISTINCT ops) FROM series_sums WHERE run_id = ?",
        [run_id]).fetchall()[0]
    return bool(n) and versions == [SUMS_VERSION] and kinds == [",".join(ops)]


# ---- devices the figures prove stacked ----------------------------------------------------------------
MAX_CHECKED = 64  # whole-disk devices a run may have for the check (pairs and triples of them are tried)


def proven_stacked(con: Any, run_id: int) -> dict[str, str]:
    """``runs.meta.stacked_by_data``: each device the run's figures prove stacked on others -> the proof."""
    rows = con.execute("SELECT meta FROM runs WHERE run_id = ?", [run_id]).fetchall()
    meta = rows[0][0] if rows else None
    meta = json.loads(meta) if isinstance(meta, str) else (meta or {})
    found = meta.get("stacked_by_data") if isinstance(meta, dict) else None
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def device_figures(con: Any, run_id: int, devices: list[str]) -> pl.DataFrame:
    """Per report and device: kB read, kB written (the total where the file does not split them) and requests."""
    rel = con.sql(
        "SELECT sample_idx, device, coalesce(rkb_s, 0.0) AS r, "
        "coalesce(wkb_s, CASE WHEN rkb_s IS NULL THEN kb_s END, 0.0) AS w, "
        "coalesce(r_s + w_s + coalesce(d_s, 0) + coalesce(f_s, 0), tps, 0.0) AS n "
        "FROM iostat_samples WHERE run_id = ? AND NOT since_boot AND list_contains(?, device) "
        "ORDER BY sample_idx, device", params=[run_id, devices])
    return pl.from_arrow(rel.to_arrow_table())  # type: ignore[return-value]  # a Table gives a DataFrame


def find_stacked(figures: pl.DataFrame, candidates: set[str], min_active: int = 3) -> dict[str, str]:
    """Which of ``candidates`` -- devices nothing declares physical: a number the kernel assigns at boot, a name no
    rule knows -- are stacked on others: their every report's kB read and written equal, to the printed digit,
    the sum of one, two or three other devices' (the I/O of a dm, md, bcache, loop ... device reaches the devices
    under it: counted twice if both are summed). Of two candidates equal to each other, the upper one is the one
    with more requests (requests merge on their way down), the later name when they have as many. A device needs
    I/O in ``min_active`` reports to prove anything.

    Equal means: every report within 2 %, and nine reports in ten to the printed digit (0.01 per device added).
    The two sides of a mirror do nearly the same writes, but not to the digit report after report; and a physical
    disk by name or by declaration is never a candidate. Returns device -> the proof, in words."""
    if figures.is_empty() or not candidates:
        return {}
    names = sorted(figures["device"].unique().to_list())
    if not 2 <= len(names) <= MAX_CHECKED:
        return {}
    wide = {c: figures.pivot(on="device", index="sample_idx", values=c).sort("sample_idx").fill_null(0.0)
            for c in ("r", "w", "n")}
    r = {d: wide["r"][d].to_numpy() for d in names}
    w = {d: wide["w"][d].to_numpy() for d in names}
    n = {d: float(wide["n"][d].sum()) for d in names}
    active = {d: int(((r[d] + w[d]) > 0.05).sum()) for d in names}
    tot = {d: float(r[d].sum() + w[d].sum()) for d in names}
    out: dict[str, str] = {}

    def equal(d: str, under: tuple[str, ...]) -> bool:
        exact = None
        for x in (r, w):
            diff = abs(x[d] - sum(x[u] for u in under))
            if not (diff <= 0.011 * (len(under) + 1) + 0.02 * abs(x[d])).all():
                return False
            hit = diff <= 0.011 * (len(under) + 1)
            exact = hit if exact is None else exact & hit
        busy = (r[d] + w[d]) > 0.05
        return exact is not None and int((exact & busy).sum()) >= 0.9 * int(busy.sum())

    for d in sorted(candidates & set(names)):
        if active[d] < min_active or d in out:
            continue
        pool = [u for u in names if u != d and u not in out and active[u] > 0 and tot[u] <= tot[d] * 1.02 + 1]
        for k in (1, 2, 3):
            hit = next((c for c in itertools.combinations(pool, k)
                        if abs(sum(tot[u] for u in c) - tot[d]) <= 0.02 * tot[d] + 0.02 * len(r[d]) and equal(d, c)),
                       None)
            if hit is None:
                continue
            upper = d
            if k == 1 and hit[0] in candidates and (n[hit[0]] > n[d] or (n[hit[0]] == n[d] and hit[0] > d)):
                upper, hit = hit[0], (d,)  # the same I/O: the upper device is the one with more requests
            if upper not in out:
                out[upper] = (f"its figures equal {' + '.join(hit)}'s in every report: stacked on "
                              f"{'it' if k == 1 else 'them'} (its I/O is counted there)")
            break
    return out


def peak_iops(con: Any, run_ids: list[int]) -> dict[int, float]:
    """Run id -> the highest IOPS of one report of its stored default series, for each of ``run_ids`` that has sums
    of this version (the others are absent), in one query however many runs: the busiest runs of a workspace of
    100,000 are found without loading a series."""
    rows = con.execute(f"""SELECT run_id, max(iops) FROM series_sums WHERE NOT since_boot AND sums_version = ?
        AND ops = '{",".join(DEFAULT_OPS)}' AND run_id IN (SELECT unnest(?::BIGINT[])) AND iops IS NOT NULL
        GROUP BY run_id""", [SUMS_VERSION, run_ids]).fetchall()
    return {int(r): float(v) for r, v in rows if v is not None}
