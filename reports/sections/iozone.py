"""IOzone throughput, answered: which run is faster in each test and by how much, from each run's best throughput
in the test over the file and record sizes both runs measured -- one row per test, never the dump of every matched
row, never a run against itself."""

from __future__ import annotations

from typing import Any

from parsers.kinds import THROUGHPUT_GRID, has
from reports.content import Section, Table, _ratio, fmt
from reports.context import ReportContext
from reports.sections import section

TEST_WORDS = {"write": "write", "rewrite": "rewrite", "read": "read", "reread": "re-read",
              "random_read": "random read", "random_write": "random write", "backward_read": "backward read",
              "record_rewrite": "record rewrite", "stride_read": "stride read", "fwrite": "fwrite",
              "frewrite": "frewrite", "fread": "fread", "freread": "freread", "random_mix": "random mix",
              "pwrite": "pwrite", "pread": "pread", "pwritev": "pwritev", "preadv": "preadv"}


def best_per_test(ioz: dict[str, Any], n_runs: int) -> dict[str, dict[str, Any]]:
    """Per test (and mode, when a run holds several), each run's best kB/s over the rows every run measured,
    and whether such a row measured the page cache."""
    out: dict[str, dict[str, Any]] = {}
    for row in ioz.get("rows", []):
        if row["metric"] != "kb_s" or any(v is None for v in row["values"][:n_runs]):
            continue
        key = row["key"]
        test = TEST_WORDS.get(str(key.get("test")), str(key.get("test", "")).replace("_", " "))
        if key.get("threads") not in (None, "", 1):
            test += f", {key['threads']} threads"
        if key.get("mode") not in (None, "", "auto"):
            test += f" ({key['mode']})"
        b = out.setdefault(test, {"best": [None] * n_runs, "cache": False, "rows": 0})
        b["best"] = [v if cur is None or v > cur else cur for cur, v in zip(b["best"], row["values"])]
        b["cache"] |= bool(row.get("page_cache_likely"))
        b["rows"] += 1
    return out


TITLE = "IOzone throughput"


@section("iozone", title=TITLE, order=70, in_answers=True)
def build(ctx: ReportContext) -> Section | None:
    from app.analysis.compare import compare_iozone

    runs, seen = [], set()
    for r in ctx.runs:  # the same file imported under two names is one measurement, never compared with itself
        if has(r.kind, THROUGHPUT_GRID) and r.source_sha256 not in seen:
            runs.append(r)
            seen.add(r.source_sha256)
    if len(runs) < 2:
        return None
    ioz = compare_iozone(ctx.ws, [r.run_id for r in runs])
    tests = best_per_test(ioz, len(runs))
    ctx.covered.update(r.run_id for r in runs)
    names = [ctx.name(r) for r in runs]
    sec = Section("iozone", TITLE)
    if not tests:
        sec.para(f"The IOzone runs {', '.join(names)} measured no test with the same file and record sizes, so "
                 "their throughput cannot be compared.")
        return sec
    ctx.values["iozone"] = {"runs": [r.run_id for r in runs], "best_kbs": {t: b["best"] for t, b in tests.items()}}
    rows = []
    wins = [0] * len(runs)
    ratios: list[float] = []
    for test, b in tests.items():
        best = b["best"]
        top = max(range(len(runs)), key=lambda i: best[i])
        wins[top] += 1
        row = [test, *[fmt(v) for v in best]]
        if len(runs) == 2:
            ratio = best[1] / best[0] if best[0] else None
            if ratio is not None:
                ratios.append(ratio)
            row.append(_ratio(ratio))
        row.append(names[top] + (" (page cache?)" if b["cache"] else ""))
        rows.append(row)
    header = ["Test", *[f"{n}: best kB/s" for n in names], *(["B ÷ A"] if len(runs) == 2 else []), "Faster"]
    answer = _answer(names, wins, ratios, len(tests))
    ctx.findings.append(("IOzone", answer))
    sec.para(answer)
    cache = any(b["cache"] for b in tests.values())
    sec.table(Table("", header, rows, note=(
        "Best kB/s: each run's highest throughput in the test over the file and record sizes both runs measured "
        "(IOzone's kB = 1,024 bytes)." + (" A = " + names[0] + ", B = " + names[1] + "." if len(runs) == 2 else "")
        + (" Page cache?: a file smaller than the host's memory was measured, so the figure may be the page cache's, "
           "not the disk's." if cache else "")), key_cols=1))
    return sec


def _answer(names: list[str], wins: list[int], ratios: list[float], n: int) -> str:
    if len(names) == 2:
        a, b = names
        if wins[1] == wins[0] == n / 2:
            lead = f"{a} and {b} are each faster in half of the {n} tests"
        else:
            fast, slow, k = (b, a, wins[1]) if wins[1] > wins[0] else (a, b, wins[0])
            lead = f"{fast} is faster than {slow} in {k} of the {n} tests"
        if ratios:
            lo, hi = min(ratios), max(ratios)
            med = sorted(ratios)[len(ratios) // 2]
            lead += (f": {b}'s best throughput is {lo:.2f}–{hi:.2f} times {a}'s (median {med:.2f} ×)")
        return lead + "."
    order = sorted(range(len(names)), key=lambda i: -wins[i])
    return ("Fastest per test: " + ", ".join(f"{names[i]} in {wins[i]} of {n}" for i in order if wins[i]) + ".")
