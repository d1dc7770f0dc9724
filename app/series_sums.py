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
from typing import TYPE_CHECKING, Any

import polars as pl

from parsers.layers import LAYERS as LAYER_VOCABULARY
from parsers.layers import LINUX_NAMES

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection as Con

# bump whenever per_report_sql, the row rules or the device classification change what the stored sums hold
SUMS_VERSION = 2  # 2: a report where a summed device is missing mid-run is a gap (NULL sums), not a smaller sum
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
    chosen: bool = False  # the whole disks are the consultant's choice (Whole disks… in the run menu)

    def as_dict(self) -> dict[str, Any]:
        return {"requested": self.requested, "used": self.used, "excluded": self.excluded, "rule": self.rule,
                "chosen": self.chosen}


@dataclass(frozen=True)
class DeviceRules:
    """What a run's record says of its devices beyond their names and layers (``runs.meta``): the devices its own
    figures prove stacked on others (device -> the proof), and the whole disks the consultant chose (empty: the
    rules' choice)."""

    stacked: dict[str, str] = field(default_factory=dict)
    chosen: tuple[str, ...] = ()


NO_RULES = DeviceRules()


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
                   requested: str | None = None, rules: DeviceRules = NO_RULES) -> DeviceChoice:
    """The whole-disk choice from ``(name, is_group)`` or ``(name, is_group, layer)`` tuples: where the rows carry a
    ``layer`` (the format says what each device is), the physical disks; otherwise the name rules of
    :data:`parsers.layers.LINUX_NAMES` (partitions, stacked dm/md/loop/bcache/DRBD/zvol devices, ``-g`` groups).
    ``requested``: None or ``"disks"``, as asked. ``rules.stacked``: the devices the run's own figures prove stacked
    on others (:func:`find_stacked`, ``runs.meta.stacked_by_data``), left out with the proof as the reason.
    ``rules.chosen``: the whole disks the consultant chose (``runs.meta.whole_disks``, checked by
    :func:`check_whole_disks` when chosen): they are used instead, and the rules' own choice is named beside them."""
    choice = _by_rules(devices, requested)
    stacked = rules.stacked
    proven = [d for d in choice.used if d in stacked]
    if proven and len(proven) < len(choice.used):
        excluded = dict(sorted({**choice.excluded, **{d: stacked[d] for d in proven}}.items()))
        choice = DeviceChoice(choice.requested, [d for d in choice.used if d not in stacked], excluded,
                              f"{choice.rule}; devices whose figures are the sum of others' left out (stacked on them)")
    return _as_chosen(choice, devices, rules.chosen) if rules.chosen else choice


CHOSEN_LEFT_OUT = "a whole disk by StormScope's rules, left out by the consultant's choice"


def _as_chosen(rules_choice: DeviceChoice, devices: list[tuple[str, bool]] | list[tuple[str, bool, str | None]],
               chosen: tuple[str, ...]) -> DeviceChoice:
    """The consultant's whole disks in place of the rules' (which the rule names, so the report can say both)."""
    names = sorted({d[0] for d in devices})
    want = set(chosen)
    used = [n for n in names if n in want]
    if not used:  # a choice that names none of the run's devices (the run's rows were replaced): the rules'
        return rules_choice
    excluded = {n: rules_choice.excluded.get(n, CHOSEN_LEFT_OUT) for n in names if n not in want}
    own = rules_choice.used
    shown = ", ".join(own[:6]) + (f" and {len(own) - 6} more" if len(own) > 6 else "")
    return DeviceChoice(rules_choice.requested, used, excluded,
                        f"whole disks chosen by the consultant: {len(used)} of the run's {len(names)} devices; "
                        f"StormScope's own choice: {shown or 'none'}", chosen=True)


def run_devices(con: Con, run_id: int) -> list[tuple[str, bool, str | None]]:
    """The run's distinct devices (name, is_group, layer), by name."""
    return [(str(d), bool(g), la) for d, g, la in con.execute(
        "SELECT DISTINCT device, is_group, layer FROM iostat_samples WHERE run_id = ? ORDER BY 1", [run_id]).fetchall()]


def whole_disk_choice(con: Con, run_id: int) -> DeviceChoice:
    """The run's whole disks now: the consultant's choice where there is one, else the rules'."""
    return default_choice(run_devices(con, run_id), rules=device_rules(con, run_id))


def rules_choice(con: Con, run_id: int) -> DeviceChoice:
    """StormScope's own whole disks for the run, whatever the consultant chose (the report names both)."""
    return default_choice(run_devices(con, run_id), rules=DeviceRules(device_rules(con, run_id).stacked))


def device_roles(devices: list[tuple[str, bool, str | None]]) -> dict[str, str]:
    """What each device is, in words, by the same rules as :func:`default_choice`: its declared layer, else a
    ``-g`` group row, a partition of another device of the run, a stacked device by its name, or a disk."""
    names = {d[0] for d in devices}
    out: dict[str, str] = {}
    for name, group, layer in devices:
        if layer:
            la = LAYER_VOCABULARY.get(layer)
            out[name] = (la.left_out.split(" (")[0] or "physical disk") if la else layer
        elif group:
            out[name] = "-g group row"
        elif (parent := partition_parent(name, names)) is not None:
            out[name] = f"partition of {parent}"
        elif (rule := LINUX_NAMES.stacked_rule(name)) is not None:
            out[name] = f"{rule.family} device"
        else:
            out[name] = "disk"
    return out


def _kind_of_role(role: str) -> str:
    return "partition" if role.startswith("partition of ") else role


def check_whole_disks(con: Con, run_id: int, chosen: list[str]) -> str | None:
    """Why ``chosen`` cannot be the run's whole disks (None: it can): each device must be the run's; all of one
    kind (a disk beside a volume, a stacked device, a group row or its own partition would count some I/O twice);
    and none whose every report equals the sum of others chosen (:func:`find_stacked`: stacked on them)."""
    if not chosen:
        return "choose at least one device"
    roles = device_roles(run_devices(con, run_id))
    unknown = [d for d in chosen if d not in roles]
    if unknown:
        return f"the run has no device {', '.join(repr(d) for d in unknown[:5])}"
    kinds: dict[str, str] = {}
    for d in sorted(set(chosen)):
        kinds.setdefault(_kind_of_role(roles[d]), d)
    if len(kinds) > 1:
        (k1, d1), (k2, d2) = list(kinds.items())[:2]
        return (f"{d1} ({roles[d1]}) and {d2} ({roles[d2]}) are different kinds of device: one may hold the other's "
                "I/O, which would be counted twice; choose devices of one kind")
    parents = [(d, p) for d in chosen if (p := partition_parent(d, set(chosen))) is not None]
    if parents:
        d, p = parents[0]
        return f"{d} is a partition of {p}: its I/O is counted in {p}'s, so both would count it twice"
    if 2 <= len(set(chosen)) <= MAX_CHECKED:
        found = find_stacked(device_figures(con, run_id, sorted(set(chosen))), set(chosen))
        if found:
            d, why = sorted(found.items())[0]
            return f"{d}: {why}; summed with them, the same I/O would be counted twice"
    return None


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


# what a sum of a gap report is (typed as the sum would be)
_GAP = {**_EMPTY, "any_x": "NULL::BOOLEAN", "any_p": "NULL::BOOLEAN"}


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


def sums_select(figures: frozenset[str], stored: bool = False, gaps: list[int] | None = None) -> str:
    """The select list of the per-report sums of ``figures`` (IOPS always), the others NULL: aggregates over the
    rows of :func:`_rows_sql`, or (``stored``) the columns of ``series_sums`` typed as the aggregates are.
    ``gaps``: the reports (``sample_idx``) where a summed device is missing (:func:`find_gaps`): every sum of
    theirs is NULL -- missing, never the smaller sum of the devices that are there."""
    wanted = {a for f in figures | {"iops"} for a in FIGURES[f][1]}
    hole = f"list_contains({_int_list(gaps)}, sample_idx)" if gaps and not stored else ""

    def made(a: str) -> str:
        if not stored:
            typed = _GAP.get(a, "NULL::DOUBLE")
            return f"CASE WHEN {hole} THEN {typed} ELSE {AGGREGATES[a]} END" if hole else AGGREGATES[a]
        return "aw_n::HUGEINT" if a == "aw_n" else a  # stored as BIGINT (a count), summed as HUGEINT

    return ", ".join(f"{made(a) if a in wanted else _EMPTY.get(a, 'NULL::DOUBLE')} AS {a}" for a in AGGREGATES)


def _int_list(values: list[int] | None) -> str:
    """A literal list of integers for the SQL text (report numbers StormScope computed: never user text)."""
    return "[" + ",".join(str(int(v)) for v in sorted(set(values or ()))) + "]::BIGINT[]"


def _rows_where(every_device: bool, gaps: list[int] | None) -> str:
    """The device filter of the rows summed (``?``: the devices unless ``every_device``); a gap report keeps every
    row of its own, so that it is there (with its time) even when none of its rows is of a summed device."""
    if every_device:
        return ""
    if gaps:
        return f" AND (list_contains(?, device) OR list_contains({_int_list(gaps)}, sample_idx))"
    return " AND list_contains(?, device)"


# ---- gaps: a summed device missing from reports in the middle of the run ----------------------------------
def find_gaps(con: Con, run_id: int, devices: list[str] | None, idle_rule: bool = True) -> dict[str, list[int]]:
    """Per summed device (``devices``; None: every device of the run), the reports (``sample_idx``) of the run it is
    missing from between its first and its last report. Such a report has no figure of the device: its whole-disk
    sums are a gap (missing), not the sum of the others, which would pass for the disk going idle.

    A device that first appears after the run's start or is gone before its end (hot-plug, a disk added or removed)
    is no gap: the whole-disk figures are the devices there at each report (the warning says so,
    :func:`gap_warning`). The reports of the run are those any of its rows belongs to (a report where no summed
    device is there at all is a gap too, for every device present before and after it). Linear in the devices and
    rows: each device's first and last report are compared with how many reports lie between them, and only a
    device with fewer rows than that is looked at report by report.

    A file that lists only active devices (iostat -z, sar -z, HP-UX sar -d: no row of a summed device anywhere
    in it has zero I/O) leaves a device out of a report because it was idle: there (``idle_rule``), an absent
    device is no gap (:func:`omits_idle`; the import's warning says it was taken as idle)."""
    devs = "" if devices is None else " AND list_contains(?, device)"
    some = [] if devices is None else [devices]
    # one pass over the rows: each device's first and last report and its rows (a device is in a report once:
    # the import refuses a file that lists one twice), against the reports between them
    holed = con.execute(f"""
        WITH reps AS (SELECT sample_idx, row_number() OVER (ORDER BY sample_idx) AS k
                      FROM (SELECT DISTINCT sample_idx FROM iostat_samples WHERE run_id = ?)),
        span AS (SELECT device, min(sample_idx) AS lo, max(sample_idx) AS hi, count(*) AS n FROM iostat_samples
                 WHERE run_id = ?{devs} GROUP BY device)
        SELECT s.device FROM span s JOIN reps a ON a.sample_idx = s.lo JOIN reps b ON b.sample_idx = s.hi
        WHERE b.k - a.k + 1 > s.n ORDER BY 1""", [run_id, run_id, *some]).fetchall()
    if not holed:
        return {}
    rows = con.execute("""
        WITH d AS (SELECT DISTINCT sample_idx, device FROM iostat_samples
                   WHERE run_id = ? AND list_contains(?, device)),
        reps AS (SELECT DISTINCT sample_idx FROM iostat_samples WHERE run_id = ?),
        span AS (SELECT device, min(sample_idx) AS lo, max(sample_idx) AS hi FROM d GROUP BY device)
        SELECT h.device, r.sample_idx FROM span h JOIN reps r ON r.sample_idx BETWEEN h.lo AND h.hi
        WHERE NOT EXISTS (SELECT 1 FROM d WHERE d.device = h.device AND d.sample_idx = r.sample_idx)
        ORDER BY 1, 2""", [run_id, [h[0] for h in holed], run_id]).fetchall()
    out: dict[str, list[int]] = {}
    for device, idx in rows:
        out.setdefault(str(device), []).append(int(idx))
    if out and idle_rule and omits_idle(con, run_id):
        return {}
    return out


def omits_idle(con: Con, run_id: int) -> bool:
    """The run lists only active devices: no row of any of its devices is all zero -- requests,
    throughput, utilisation, queue and await (iostat -z, sar -z and HP-UX sar -d leave an idle device out of a
    report; HP-UX prints a device busy 0.05 % with 0 requests, rounded)."""
    n_zero = " + ".join(f"coalesce(abs({c}), 0)" for c in ("r_s", "w_s", "d_s", "f_s", "tps", "rkb_s", "wkb_s",
                                                              "wdkb_s", "kb_s", "util_pct", "aqu_sz", "await_ms"))
    found = con.execute(f"SELECT 1 FROM iostat_samples WHERE run_id = ? AND NOT since_boot AND ({n_zero}) = 0 LIMIT 1",
                        [run_id]).fetchall()
    return not found


def gap_reports(gaps: dict[str, list[int]]) -> list[int]:
    """Every report (``sample_idx``) where a summed device is missing, sorted."""
    return sorted({i for v in gaps.values() for i in v})


def ranges(idx: list[int]) -> list[tuple[int, int]]:
    """Consecutive report numbers as (first, last) ranges: 39, 40, 41, 43 -> (39, 41), (43, 43)."""
    out: list[tuple[int, int]] = []
    for i in sorted(idx):
        if out and i == out[-1][1] + 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


GAP_DEVICES_NAMED = 5  # devices a gap warning names (then "and N more")


def gap_warning(gaps: dict[str, list[int]], times: dict[int, str] | None = None, idle: bool = False) -> str | None:
    """One line naming the devices missing from reports in the middle of the run, with the reports (1-based, as in
    the file) and their clock times where known; None without a gap."""
    if not gaps:
        return None
    times = times or {}

    def span(a: int, b: int) -> str:
        where = f"report {a + 1}" if a == b else f"reports {a + 1}–{b + 1}"
        ta, tb = times.get(a), times.get(b)
        when = "" if ta is None else f" ({ta})" if a == b or tb is None else f" ({ta} – {tb})"
        return where + when

    parts = []
    for d in sorted(gaps, key=lambda x: (-len(gaps[x]), x))[:GAP_DEVICES_NAMED]:
        rs = ranges(gaps[d])
        shown = ", ".join(span(a, b) for a, b in rs[:4]) + (f" and {len(rs) - 4} more ranges" if len(rs) > 4 else "")
        parts.append(f"{d[:60]} from {shown}")
    more = f"; and {len(gaps) - GAP_DEVICES_NAMED} more devices" if len(gaps) > GAP_DEVICES_NAMED else ""
    n = len(gap_reports(gaps))
    if idle:
        return (f"whole-disk figures take a disk absent from a report as idle: a disk is missing from {n} "
                f"report{'s' if n != 1 else ''} in the middle of the run ({'; '.join(parts)}{more}), and the file "
                "lists no idle disk anywhere, as iostat -z, sar -z and HP-UX sar print only the active ones: those "
                "reports count it as 0 I/O")
    return (f"whole-disk figures have a gap: a disk is missing from {n} report{'s' if n != 1 else ''} in the middle "
            f"of the run ({'; '.join(parts)}{more}); those reports are left out of the whole-disk figures "
            "(missing, not 0 IOPS)")


def per_report_sql(ops: tuple[str, ...], figures: frozenset[str] = ALL_FIGURES, every_device: bool = False,
                   gaps: list[int] | None = None) -> str:
    """Per analysed report, the sums over the chosen devices (``?`` 1: the run, ``?`` 2: the devices, left out with
    ``every_device``: the run has no other device), in DuckDB: a 10 M-row run is aggregated where it is stored,
    never pulled into memory row by row. Only the sums of ``figures`` are made (the others are NULL): DuckDB then
    reads only the columns they need -- the overlay's first curve (IOPS) reads a third of them. Since-boot
    reports are left out. Row rules: :func:`_rows_sql`. ``gaps``: the reports whose sums are missing
    (:func:`find_gaps`)."""
    return f"""SELECT sample_idx, min(t_s) AS t_s, bool_or(t_s IS NULL) AS t_missing, {sums_select(figures, gaps=gaps)}
        FROM ({_rows_sql(ops)} WHERE run_id = ? AND NOT since_boot{_rows_where(every_device, gaps)})
        GROUP BY sample_idx ORDER BY sample_idx"""


def _stored_sql(every_device: bool, some_reports: bool, gaps: list[int] | None = None) -> str:
    """The rows of ``series_sums`` for a run (``?``: the run, the run again, then the devices unless
    ``every_device``, then the reports with ``some_reports``): :func:`per_report_sql`'s sums of every figure for
    the default ops, per report AND since-boot flag (so that a flag turned later needs no other sums), with the
    clock time printed with the report's first chosen row."""
    reports = " AND list_contains(?, sample_idx)" if some_reports else ""
    return f"""SELECT ? AS run_id, sample_idx, since_boot, min(t_s) AS t_s, bool_or(t_s IS NULL) AS t_missing,
        min(ts) AS ts, {sums_select(ALL_FIGURES, gaps=gaps)}, '{",".join(DEFAULT_OPS)}' AS ops,
        {SUMS_VERSION} AS sums_version
        FROM ({_rows_sql(DEFAULT_OPS)} WHERE run_id = ?{_rows_where(every_device, gaps)}{reports})
        GROUP BY sample_idx, since_boot"""


def _store_reports(con: Con, run_id: int, summed: list[str], every_device: bool, reports: list[int] | None) -> None:
    """Insert the sums of the run's ``reports`` (None: all), and a row without sums for each since-boot report
    none of whose rows is of a summed device (the series still names it as left out)."""
    some = reports is not None
    params: list[Any] = [run_id, run_id] + ([] if every_device else [summed]) + ([reports] if some else [])
    gaps = gap_reports(find_gaps(con, run_id, None if every_device else summed))
    con.execute(f"INSERT INTO series_sums BY NAME {_stored_sql(every_device, some, gaps)}", params)
    if every_device:
        return
    con.execute(f"""INSERT INTO series_sums (run_id, sample_idx, since_boot, ops, sums_version)
        SELECT DISTINCT run_id, sample_idx, true, '{",".join(DEFAULT_OPS)}', {SUMS_VERSION} FROM iostat_samples
        WHERE run_id = ? AND since_boot{' AND list_contains(?, sample_idx)' if some else ''} AND sample_idx NOT IN
            (SELECT sample_idx FROM series_sums WHERE run_id = ? AND since_boot)""",
                [run_id, *([reports] if some else []), run_id])


def store_sums(con: Con, run_id: int, reports: list[int] | None = None) -> None:
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
    used = set(default_choice([(d, bool(g), la) for d, g, la in devices], rules=device_rules(con, run_id)).used)
    con.execute("INSERT INTO series_devices SELECT ?, unnest(?::VARCHAR[]), unnest(?::BOOLEAN[]), "
                "unnest(?::VARCHAR[]), unnest(?::BOOLEAN[])",
                [run_id, [d[0] for d in devices], [bool(d[1]) for d in devices], [d[2] for d in devices],
                 [d[0] in used for d in devices]])
    if used:
        _store_reports(con, run_id, sorted(used), used == {d[0] for d in devices}, None)


def stored_devices(con: Con, run_id: int) -> list[tuple[str, bool, str | None, bool]] | None:
    """The run's devices as stored (name, is_group, layer, summed); None when the run has none stored."""
    rows = con.execute("SELECT device, is_group, layer, summed FROM series_devices WHERE run_id = ?",
                       [run_id]).fetchall()
    return [(d, bool(g), la, bool(s)) for d, g, la, s in rows] or None


def current(con: Con, run_id: int, ops: tuple[str, ...] = DEFAULT_OPS) -> bool:
    """The run has stored sums, all of this :data:`SUMS_VERSION` and for ``ops``."""
    n, versions, kinds = con.execute(
        "SELECT count(*), list(DISTINCT sums_version), list(DISTINCT ops) FROM series_sums WHERE run_id = ?",
        [run_id]).fetchall()[0]
    return bool(n) and versions == [SUMS_VERSION] and kinds == [",".join(ops)]


def name_gaps(con: Con, run_id: int) -> list[str]:
    """The warning naming the whole disks missing from reports in the middle of the run (app.series_sums.find_gaps):
    those reports' whole-disk figures are a gap, not a smaller sum. Added to the run's warnings (once: a line of
    the same start is replaced); returns the line added ([] without a gap)."""
    devices = con.execute("SELECT DISTINCT device, is_group, layer FROM iostat_samples WHERE run_id = ?",
                          [run_id]).fetchall()
    used = default_choice([(d, bool(g), la) for d, g, la in devices], rules=device_rules(con, run_id)).used
    gaps = find_gaps(con, run_id, used, idle_rule=False) if used else {}
    idle = bool(gaps) and omits_idle(con, run_id)
    idx = gap_reports(gaps)
    times = {int(i): t.strftime("%Y-%m-%d %H:%M:%S") for i, t in con.execute(
        "SELECT sample_idx, min(ts) FROM iostat_samples WHERE run_id = ? AND list_contains(?, sample_idx) "
        "AND ts IS NOT NULL GROUP BY 1", [run_id, idx]).fetchall()} if idx else {}
    lines = [x for x in (gap_warning(gaps, times, idle), _hot_plug_line(con, run_id, used)) if x]
    con.execute("UPDATE runs SET warnings = list_filter(coalesce(warnings, []), lambda w: NOT starts_with(w, ?) "
                "AND NOT starts_with(w, ?) AND NOT starts_with(w, ?)) WHERE run_id = ?",
                [GAP_WARNING_START, HOT_PLUG_START, IDLE_START, run_id])
    if lines:
        con.execute("UPDATE runs SET warnings = list_concat(warnings, ?) WHERE run_id = ?", [lines, run_id])
    return lines


GAP_WARNING_START = "whole-disk figures have a gap:"
HOT_PLUG_START = "the whole disks change during the run:"
IDLE_START = "whole-disk figures take a disk absent from a report as idle:"


def _hot_plug_line(con: Con, run_id: int, used: list[str]) -> str | None:
    """A line naming the whole disks that appear after the run's first report or are gone before its last (hot-plug,
    a disk added or removed): no gap -- the whole-disk figures are the disks there at each report --, but a total
    that changes what it covers is said."""
    if not used:
        return None
    rows = con.execute("""WITH r AS (SELECT min(sample_idx) AS lo, max(sample_idx) AS hi FROM iostat_samples
                                     WHERE run_id = ? AND NOT since_boot)
        SELECT device, min(sample_idx), max(sample_idx), any_value(r.lo), any_value(r.hi) FROM iostat_samples, r
        WHERE run_id = ? AND NOT since_boot AND list_contains(?, device) GROUP BY device ORDER BY device""",
                       [run_id, run_id, used]).fetchall()
    late = [(d, lo) for d, lo, _hi, rlo, _rhi in rows if lo > rlo]
    gone = [(d, hi) for d, _lo, hi, _rlo, rhi in rows if hi < rhi]
    if not late and not gone:
        return None
    words = [f"{d[:60]} from report {lo + 1}" for d, lo in late[:5]] + (
        [f"{len(late) - 5} more from later reports"] if len(late) > 5 else [])
    words += [f"{d[:60]} up to report {hi + 1}" for d, hi in gone[:5]] + (
        [f"{len(gone) - 5} more gone before the end"] if len(gone) > 5 else [])
    return (f"{HOT_PLUG_START} {'; '.join(words)} (the file lists them only there); each report's whole-disk "
            "figures are the sum of the disks it lists, so a total before a disk appears or after it is gone does "
            "not include it")


# ---- devices the figures prove stacked ----------------------------------------------------------------
MAX_CHECKED = 64  # whole-disk devices a run may have for the check (pairs and triples of them are tried)


def device_rules(con: Con, run_id: int) -> DeviceRules:
    """The run's :class:`DeviceRules` from ``runs.meta``: ``stacked_by_data`` (each device the run's figures prove
    stacked on others -> the proof) and ``whole_disks`` (the consultant's choice)."""
    rows = con.execute("SELECT meta FROM runs WHERE run_id = ?", [run_id]).fetchall()
    meta = rows[0][0] if rows else None
    meta = json.loads(meta) if isinstance(meta, str) else (meta or {})
    if not isinstance(meta, dict):
        return NO_RULES
    found = meta.get("stacked_by_data")
    chosen = meta.get("whole_disks")
    return DeviceRules({str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {},
                       tuple(str(d) for d in chosen) if isinstance(chosen, list) else ())


def device_figures(con: Con, run_id: int, devices: list[str]) -> pl.DataFrame:
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


def peak_iops(con: Con, run_ids: list[int]) -> dict[int, float]:
    """Run id -> the highest IOPS of one report of its stored default series, for each of ``run_ids`` that has sums
    of this version (the others are absent), in one query however many runs: the busiest runs of a workspace of
    100,000 are found without loading a series."""
    rows = con.execute(f"""SELECT run_id, max(iops) FROM series_sums WHERE NOT since_boot AND sums_version = ?
        AND ops = '{",".join(DEFAULT_OPS)}' AND run_id IN (SELECT unnest(?::BIGINT[])) AND iops IS NOT NULL
        GROUP BY run_id""", [SUMS_VERSION, run_ids]).fetchall()
    return {int(r): float(v) for r, v in rows if v is not None}
