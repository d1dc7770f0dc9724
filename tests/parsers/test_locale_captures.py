"""Real iostat and sar captures in 14 locales (tests/corpus/locales, made by make_captures.sh: midnight, a month end,
a year end, a day without a change of date), each read by a few lines of plain Python that know how the capture was
made -- its locale's date and time layout -- and compared with what StormScope stored: every value, every time.

Where the file itself cannot tell day from month (05/03/26 and nothing else), StormScope must not guess: the run is
stored as undecided, the question is asked (app.importer.open_questions), and once answered with the truth every time
is the true one. Everywhere else the evidence decides, and the decision is the truth.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from app.importer import import_file, open_questions
from parsers.base import ImportOptions
from tests.conftest import CORPUS

FOLDER = CORPUS / "locales"

# how each locale prints %x and %X (glibc 2.36's d_fmt and t_fmt, as the captures were made); the am/pm words of the
# 12-hour ones
LAYOUT = {
    "C": ("%m/%d/%y", "%H:%M:%S"), "en_US": ("%m/%d/%Y", "%I:%M:%S %p"), "en_GB": ("%d/%m/%y", "%H:%M:%S"),
    "de_DE": ("%d.%m.%Y", "%H:%M:%S"), "fr_FR": ("%d/%m/%Y", "%H:%M:%S"), "es_ES": ("%d/%m/%y", "%H:%M:%S"),
    "it_IT": ("%d/%m/%Y", "%H:%M:%S"), "pt_BR": ("%d/%m/%Y", "%H:%M:%S"), "ja_JP": ("%Y年%m月%d日", "%H時%M分%S秒"),
    "zh_CN": ("%Y年%m月%d日", "%H时%M分%S秒"), "ru_RU": ("%d.%m.%Y", "%H:%M:%S"),
    "ko_KR": ("%Y년 %m월 %d일", "%H시 %M분 %S초"), "el_GR": ("%d/%m/%Y", "%I:%M:%S %p"),
    "nl_NL": ("%d-%m-%y", "%H:%M:%S"), "tr_TR": ("%d-%m-%Y", "%H:%M:%S"),
}
AMPM = {"AM": 0, "PM": 12, "πμ": 0, "μμ": 12}
ORDER = {loc: "".join(c for c in d if c in "dmyY").upper().replace("YY", "Y") for loc, (d, _t) in LAYOUT.items()}

# the files whose dates read both ways: nothing in them decides (one date, 05/03, in a layout a month-first locale
# prints too -- C and en_GB alike; ka_GE prints 05/03/2026 with decimal commas month first)
UNDECIDED = {"C_iostat-x-t_day.txt", "C_sar-d-p_day.txt", "en_GB_iostat-x-t_day.txt", "en_GB_sar-d-p_day.txt",
             "en_GB_sar-d-p_midnight.txt", "fr_FR_iostat-x-t_day.txt", "it_IT_iostat-x-t_day.txt",
             "pt_BR_iostat-x-t_day.txt"}

IOSTAT = {"r/s": "r_s", "rkB/s": "rkb_s", "rrqm/s": "rrqm_s", "%rrqm": "rrqm_pct", "r_await": "r_await_ms",
          "rareq-sz": "rareq_kb", "w/s": "w_s", "wkB/s": "wkb_s", "wrqm/s": "wrqm_s", "%wrqm": "wrqm_pct",
          "w_await": "w_await_ms", "wareq-sz": "wareq_kb", "d/s": "d_s", "dkB/s": "dkb_s", "drqm/s": "drqm_s",
          "%drqm": "drqm_pct", "d_await": "d_await_ms", "dareq-sz": "dareq_kb", "f/s": "f_s", "f_await": "f_await_ms",
          "aqu-sz": "aqu_sz", "%util": "util_pct"}
JSON_KEYS = {**{k: v for k, v in IOSTAT.items() if not k.startswith("%")}, "rrqm": "rrqm_pct", "wrqm": "wrqm_pct",
             "drqm": "drqm_pct", "util": "util_pct"}
SAR = {"tps": "tps", "rkB/s": "rkb_s", "wkB/s": "wkb_s", "dkB/s": "dkb_s", "areq-sz": "areq_kb", "aqu-sz": "aqu_sz",
       "await": "await_ms", "%util": "util_pct"}
CPU = {"%user": "user", "%nice": "nice", "%system": "system", "%iowait": "iowait", "%steal": "steal", "%idle": "idle"}


# ---- the independent reader ---------------------------------------------------------------------------------------
def _locale(name: str) -> str:
    return "C" if name.startswith("C_") else "_".join(name.split("_")[:2])


def _num(text: str) -> float:
    return float(text.replace(",", "."))


def _time(text: str, loc: str) -> tuple[int, int, int]:
    fmt = LAYOUT[loc][1]
    if "%p" in fmt:
        clock, word = text.split()
        h, m, s = (int(x) for x in clock.split(":"))
        return h % 12 + AMPM[word], m, s
    t = datetime.strptime(text, fmt)
    return t.hour, t.minute, t.second


def _stamp(text: str, loc: str) -> datetime:
    dfmt = LAYOUT[loc][0]
    n = dfmt.count(" ") + 1  # the date's words
    words = text.split()
    day = datetime.strptime(" ".join(words[:n]), dfmt)
    return day.replace(hour=0) + timedelta(hours=_time(" ".join(words[n:]), loc)[0], minutes=_time(
        " ".join(words[n:]), loc)[1], seconds=_time(" ".join(words[n:]), loc)[2])


def read_iostat(path: Path) -> tuple[list[datetime], dict[tuple[int, str], dict[str, float]], list[dict[str, float]]]:
    loc = _locale(path.name)
    lines = path.read_text(encoding="utf-8").split("\n")
    times, rows, cpu = [], {}, []
    for i, line in enumerate(lines):
        if line.startswith("avg-cpu:"):
            times.append(_stamp(lines[i - 1], loc))
            cpu.append({CPU[h]: _num(v) for h, v in zip(line.split()[1:], lines[i + 1].split())})
        elif line.startswith("Device"):
            header = line.split()[1:]
            for row in lines[i + 1:]:
                if not row.strip():
                    break
                name, *values = row.split()
                rows[(len(times) - 1, name)] = {IOSTAT[h]: _num(v) for h, v in zip(header, values)}
    return times, rows, cpu


def read_iostat_json(path: Path) -> tuple[list[datetime], dict[tuple[int, str], dict[str, float]], list[dict]]:
    loc = _locale(path.name)
    stats = json.loads(path.read_text(encoding="utf-8"))["sysstat"]["hosts"][0]["statistics"]
    times, rows, cpu = [], {}, []
    for i, st in enumerate(stats):
        times.append(_stamp(st["timestamp"], loc))
        cpu.append({k: float(v) for k, v in st["avg-cpu"].items()})
        for d in st["disk"]:
            rows[(i, d["disk_device"])] = {JSON_KEYS[k]: float(v) for k, v in d.items() if k != "disk_device"}
    return times, rows, cpu


def read_sar(path: Path) -> tuple[list[datetime], dict[tuple[int, str], dict[str, float]], list]:
    loc = _locale(path.name)
    lines = path.read_text(encoding="utf-8").split("\n")
    banner = lines[0].split("\t")[1].strip()
    day = datetime.strptime(banner, LAYOUT[loc][0])
    n_time = LAYOUT[loc][1].count(" ") + 1  # the words of a printed time
    times: list[datetime] = []
    rows: dict[tuple[int, str], dict[str, float]] = {}
    header: list[str] = []
    for line in lines[2:]:
        words = line.split()
        if not words or not re.match(r"\d", words[0]):  # blank, or a summary (Average:, Moyenne : …)
            continue
        h, m, s = _time(" ".join(words[:n_time]), loc)
        rest = words[n_time:]
        if "DEV" in rest:
            header = rest
            continue
        t = day + timedelta(hours=h, minutes=m, seconds=s)
        if times and t < times[-1] - timedelta(hours=12):  # midnight
            day += timedelta(days=1)
            t += timedelta(days=1)
        if not times or t != times[-1]:
            times.append(t)
        rec = dict(zip(header, rest))
        device = rec.pop("DEV")
        rows[(len(times) - 1, device)] = {SAR[k]: _num(v) for k, v in rec.items()}
    return times, rows, []


# ---- what StormScope stored ------------------------------------------------------------------------------------------
def _stored(ws, rid: int, columns: set[str]) -> dict[tuple[int, str], dict]:
    cols = ", ".join(sorted(columns))
    out = {}
    for rec in ws.query(f"SELECT sample_idx, device, ts, t_s, since_boot, {cols} FROM iostat_samples "
                        "WHERE run_id = ?", [rid]).iter_rows(named=True):
        out[(rec.pop("sample_idx"), rec.pop("device"))] = rec
    return out


def _files() -> list[str]:
    return sorted(p.name for p in FOLDER.iterdir() if p.suffix in (".txt", ".json"))


@pytest.mark.parametrize("name", _files())
def test_every_value_and_time_is_the_one_the_capture_printed(ws, name):
    path = FOLDER / name
    reader = read_sar if "_sar-" in name else read_iostat_json if name.endswith(".json") else read_iostat
    times, rows, cpu = reader(path)
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "imported", r.error
    rid = r.run_ids[0]
    asked = [q for q in open_questions(ws, [rid]) if q.what == "date_order"]
    meta = ws.run(rid).meta.as_dict()
    truth = ORDER[_locale(name)]
    if name in UNDECIDED:  # never a silent guess: the question is asked, with both readings
        assert asked, f"{name}: its dates read both ways and nobody was asked"
        assert {o for o, _f, _l in asked[0].readings} == {"DMY", "MDY"}
        assert any("{fix:date_order}" in w for w in r.warnings)
        ws.set_date_order(rid, truth)  # the consultant answers with the truth
        meta = ws.run(rid).meta.as_dict()
        assert meta["date_order"].endswith("(set by the user: the file reads both ways)")
    else:
        assert not asked, f"{name}: asked, though {meta['date_order']}"
        assert "date_reading" not in meta
    assert meta["date_order"].startswith({"DMY": "day/month/year", "MDY": "month/day/year",
                                          "YMD": "year/month/day"}[truth]), meta["date_order"]
    columns = {c for v in rows.values() for c in v}
    stored = _stored(ws, rid, columns)
    assert set(stored) == set(rows)  # every device of every report, no other
    t0 = times[0]
    for key, values in rows.items():
        got = stored[key]
        assert got["ts"] == times[key[0]], (key, got["ts"], times[key[0]])
        assert got["t_s"] == (times[key[0]] - t0).total_seconds()
        assert got["since_boot"] == (key[0] == 0 and "_sar-" not in name)  # iostat without -y: since boot
        for c, v in values.items():
            assert got[c] == v, (key, c, got[c], v)
    run = ws.run(rid)
    assert (run.started_at, run.ended_at) == (times[0], times[-1])
    assert run.file_date == times[0].date()
    if cpu:
        got_cpu = ws.query("SELECT * FROM cpu_samples WHERE run_id = ? ORDER BY sample_idx", [rid]).to_dicts()
        assert [c["ts"] for c in got_cpu] == times
        assert [{k: c[k] for k in cpu[0]} for c in got_cpu] == cpu


def test_the_captures_cross_midnight_month_and_year_ends():
    """What the captures are made for (the independent reader's times): midnight, a month end, a year end."""
    spans = {n: read_sar(FOLDER / n)[0] if "_sar-" in n else read_iostat(FOLDER / n)[0]
             for n in _files() if not n.endswith(".json")}
    assert {(t[0].date().isoformat(), t[-1].date().isoformat()) for n, t in spans.items() if "year-end" in n} == {
        ("2026-12-31", "2027-01-01")}
    assert {(t[0].date().isoformat(), t[-1].date().isoformat()) for n, t in spans.items() if "month-end" in n} == {
        ("2026-04-30", "2026-05-01")}
    assert {(t[0].date().isoformat(), t[-1].date().isoformat()) for n, t in spans.items() if "midnight" in n} == {
        ("2026-03-05", "2026-03-06")}
    assert {_locale(n) for n in spans} >= {"en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "ja_JP",
                                           "zh_CN", "ru_RU"}
