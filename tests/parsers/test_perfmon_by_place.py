"""perfmon logs in a Windows display language StormScope has no counter names for (issue 28): a whole object's
counters, recognised by their place in the log (Windows lists them in the same order in every language), the shape of
the instance names and the values (sums that must hold), are read -- and the user is asked to confirm, on the command
line as in the window (tests/ui/test_perfmon_by_place_question.py); never a silent guess, never the whole file
refused. Before this, such a log failed with "no counter StormScope reads".

The values are checked against an independent reader: the csv module and the Windows order of PhysicalDisk's 21
counters, written out here."""

import csv
import json
import subprocess
import sys

import pytest

from parsers.pdh import norm
from parsers.perfmon import _DISK_COUNTERS, _OBJECTS, BY_PLACE, DISK_COUNTERS, OBJECTS
from tests.conftest import CORPUS, ROOT

UNKNOWN = CORPUS / "perfmon" / "derived_unknown-names_from_typeperf-si10_GORANS2.csv"
ENGLISH = CORPUS / "perfmon" / "snippet_typeperf-si10_PhysicalDisk-star_GORANS2.csv"
# the place (1-based, as "Counter NN") of each counter StormScope stores, in Windows' order of PhysicalDisk
PLACE = {"reads": 12, "writes": 13, "read_bytes": 15, "write_bytes": 16, "sec_read": 9, "sec_write": 10,
         "queue": 3, "idle": 20}


def cli(*args):
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def expected() -> dict[tuple[str, str], dict[str, float]]:
    """(device, time) -> the stored figures, read with a few lines of plain Python."""
    with open(UNKNOWN, newline="", encoding="utf-8") as fh:
        head, *rows = list(csv.reader(fh))
    out = {}
    for inst in ("0 C:", "_Total"):
        col = {q: head.index(f"\\\\GORANS2\\Object A({inst})\\Counter {k:02d}") for q, k in PLACE.items()}
        for row in rows:
            v = {q: float(row[i]) for q, i in col.items()}
            out[(f"PhysicalDisk({inst})", row[0])] = {
                "r_s": v["reads"], "w_s": v["writes"], "rkb_s": v["read_bytes"] / 1024,
                "wkb_s": v["write_bytes"] / 1024, "r_await_ms": round(v["sec_read"] * 1000, 9),
                "w_await_ms": round(v["sec_write"] * 1000, 9), "aqu_sz": v["queue"],
                "util_pct": round(min(100.0, max(0.0, 100 - v["idle"])), 9)}
    return out


def stored(ws_path) -> dict[tuple[str, str], dict[str, float]]:
    import duckdb

    con = duckdb.connect(str(ws_path), read_only=True)
    try:
        rows = con.execute("SELECT device, strftime(ts, '%m/%d/%Y %H:%M:%S.%g'), r_s, w_s, rkb_s, wkb_s, "
                           "r_await_ms, w_await_ms, aqu_sz, util_pct FROM iostat_samples ORDER BY device, ts"
                           ).fetchall()
    finally:
        con.close()
    names = ("r_s", "w_s", "rkb_s", "wkb_s", "r_await_ms", "w_await_ms", "aqu_sz", "util_pct")
    return {(r[0], r[1]): dict(zip(names, r[2:])) for r in rows}


def meta_of(ws_path) -> list[dict]:
    import duckdb

    con = duckdb.connect(str(ws_path), read_only=True)
    try:
        return [json.loads(m) for (m,) in con.execute("SELECT meta FROM runs ORDER BY run_id").fetchall()]
    finally:
        con.close()


def test_cli_import_reads_the_counters_by_place_and_asks_to_confirm(tmp_path):
    ws = tmp_path / "w.duckdb"
    p = cli("import", str(UNKNOWN), "-w", str(ws))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "counters?  run 1 (derived_unknown-names_from_typeperf-si10_GORANS2.csv): counter names StormScope " \
           "does not know, read by their place in the log as Object A\\Counter 02 = PhysicalDisk\\% Disk " \
           "Time; " in p.stdout
    assert "confirm with 'main.py run 1 --counters-by-place confirm' (or reject)" in p.stdout
    assert stored(ws) == expected()  # every stored value and time, against the plain reader
    [meta] = meta_of(ws)
    placed = meta["counters_by_place"]
    assert placed["state"] == "not confirmed"
    assert placed["names"]["Object A\\Counter 12"] == "PhysicalDisk\\Disk Reads/sec"
    assert placed["names"]["Object A\\Counter 20"] == "PhysicalDisk\\% Idle Time"
    assert "Object A\\Counter 21" not in placed["names"]  # Split IO/Sec: recognised, not stored
    # the same figures as the English log it was derived from
    en = tmp_path / "en.duckdb"
    assert cli("import", str(ENGLISH), "-w", str(en)).returncode == 0
    assert stored(en) == stored(ws)

    p = cli("run", "1", "-w", str(ws), "--counters-by-place", "confirm")
    assert p.returncode == 0, p.stderr
    [meta] = meta_of(ws)
    assert meta["counters_by_place"]["state"] == "confirmed by the user"
    assert stored(ws) == expected()


def test_cli_import_option_confirms_at_once(tmp_path):
    ws = tmp_path / "w.duckdb"
    p = cli("import", str(UNKNOWN), "-w", str(ws), "--counters-by-place", "read")
    assert p.returncode == 0, p.stderr
    assert "counters?" not in p.stdout
    [meta] = meta_of(ws)
    assert meta["counters_by_place"]["state"] == "confirmed when imported"
    assert stored(ws) == expected()


def test_rejected_counters_are_left_out_not_zero(tmp_path):
    ws = tmp_path / "w.duckdb"
    assert cli("import", str(UNKNOWN), "-w", str(ws)).returncode == 0
    p = cli("run", "1", "-w", str(ws), "--counters-by-place", "reject")
    assert p.returncode == 0, p.stderr
    [meta] = meta_of(ws)
    assert meta["counters_by_place"]["state"] == "rejected by the user: their values left out"
    assert {v for fig in stored(ws).values() for v in fig.values()} == {None}
    p = cli("run", "1", "-w", str(ws), "--counters-by-place", "confirm")
    assert p.returncode == 1
    assert "import the file again" in p.stderr


def test_values_that_contradict_the_place_are_refused_naming_the_sum(tmp_path):
    """Two columns swapped (transfers where reads should be): the place says reads + writes = transfers, the values
    say otherwise -- not read by place, and the file fails with the reason."""
    with open(UNKNOWN, newline="", encoding="utf-8") as fh:
        head, *rows = list(csv.reader(fh))
    a = head.index("\\\\GORANS2\\Object A(0 C:)\\Counter 11")
    b = head.index("\\\\GORANS2\\Object A(0 C:)\\Counter 12")
    for row in rows:
        row[a], row[b] = row[b], row[a]
    bad = tmp_path / "swapped.csv"
    with open(bad, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\r\n").writerows([head, *rows])
    p = cli("import", str(bad), "-w", str(tmp_path / "w.duckdb"), "--json")
    assert p.returncode == 1
    [r] = json.loads(p.stdout)
    assert "the counters of PhysicalDisk(0 C:) have names StormScope does not know, and their values do not match " \
           "what their place in the log says they are: at sample 1, transfers/s is 0.199608, not reads/s + " \
           "writes/s = 33.9333" in r["error"]


def test_a_log_missing_counters_of_the_object_is_not_read_by_place(tmp_path):
    """Only a whole object's counters, the same for every instance, give their places: one column fewer and the
    file is not guessed at (it fails naming its objects, as before)."""
    with open(UNKNOWN, newline="", encoding="utf-8") as fh:
        head, *rows = list(csv.reader(fh))
    drop = head.index("\\\\GORANS2\\Object A(0 C:)\\Counter 05")
    part = tmp_path / "part.csv"
    with open(part, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, quoting=csv.QUOTE_ALL).writerows([r[:drop] + r[drop + 1:] for r in [head, *rows]])
    p = cli("import", str(part), "-w", str(tmp_path / "w.duckdb"), "--json")
    [r] = json.loads(p.stdout)
    assert r["status"] == "failed"  # the instances no longer list the same counters: no place is certain
    assert "no counter StormScope reads (41 columns; objects: Object A)" in r["error"]


CPU_UNKNOWN = CORPUS / "perfmon" / "derived_unknown-names_from_typeperf-si10_Processor-star_GS-1-WIN.csv"
CPU_ENGLISH = CORPUS / "perfmon" / "snippet_typeperf-si10_Processor-star_GS-1-WIN.csv"


def test_the_processor_object_read_by_place(tmp_path):
    """Processor(*)\\* in unknown names: _Total's % User Time, % Privileged Time and % Idle Time (places 2, 3, 9 of
    15) go to the CPU figures, as from the English capture."""
    import duckdb

    with open(CPU_UNKNOWN, newline="", encoding="utf-8") as fh:
        head, *rows = list(csv.reader(fh))
    col = {q: head.index(f"\\\\GS-1-WIN\\Object B(_Total)\\Counter {k:02d}")
           for q, k in (("user", 2), ("system", 3), ("idle", 9))}
    want = [(r[0], float(r[col["user"]]), float(r[col["system"]]), float(r[col["idle"]])) for r in rows]
    got = {}
    for name, path in (("unknown", CPU_UNKNOWN), ("english", CPU_ENGLISH)):
        ws = tmp_path / f"{name}.duckdb"
        p = cli("import", str(path), "-w", str(ws))
        assert p.returncode == 0, p.stdout + p.stderr
        con = duckdb.connect(str(ws), read_only=True)
        got[name] = con.execute("SELECT strftime(ts, '%m/%d/%Y %H:%M:%S.%g'), user, system, idle FROM cpu_samples "
                                "ORDER BY ts").fetchall()
        con.close()
    assert got["unknown"] == want
    assert got["english"] == want
    [meta] = meta_of(tmp_path / "unknown.duckdb")
    assert meta["counters_by_place"]["names"] == {"Object B\\Counter 02": "Processor\\% User Time",
                                                   "Object B\\Counter 03": "Processor\\% Privileged Time",
                                                   "Object B\\Counter 09": "Processor\\% Idle Time"}
    assert meta["counters_by_place"]["columns"] == {"cpu": ["idle", "system", "user"]}


def test_a_known_object_with_a_name_not_known_reads_that_one_by_place(tmp_path):
    """A German log whose idle-time counter is spelled in a way StormScope does not know (the spellings differ by
    Windows version): that column alone is read by its place (20 of 21), the rest by name; util_pct as from the
    English capture."""
    german = CORPUS / "perfmon" / "derived_de-DE_cp1252_from_typeperf-si10_GORANS2.csv"
    raw = german.read_bytes()
    assert raw.count("\\Leerlaufzeit (%)\"".encode("cp1252")) == 2
    odd = tmp_path / "de_other-spelling.csv"
    odd.write_bytes(raw.replace("\\Leerlaufzeit (%)\"".encode("cp1252"), "\\Zeit im Leerlauf\"".encode("cp1252")))
    ws = tmp_path / "w.duckdb"
    p = cli("import", str(odd), "-w", str(ws))
    assert p.returncode == 0, p.stdout + p.stderr
    [meta] = meta_of(ws)
    assert meta["counters_by_place"]["names"] == {"Physikalischer Datenträger\\Zeit im Leerlauf":
                                                  "PhysicalDisk\\% Idle Time"}
    assert meta["counters_by_place"]["columns"] == {"PhysicalDisk(0 C:)": ["util_pct"],
                                                    "PhysicalDisk(_Total)": ["util_pct"]}
    assert stored(ws) == expected()


def test_a_known_name_at_another_place_rules_the_order_out(tmp_path):
    """One column named as a counter StormScope knows, but at another counter's place: the log is not in Windows'
    order, so nothing is read by place (the file fails naming its objects, as before)."""
    text = UNKNOWN.read_text(encoding="utf-8").replace("\\Counter 05\"", "\\Disk Reads/sec\"")
    odd = tmp_path / "odd.csv"
    odd.write_text(text, encoding="utf-8")
    p = cli("import", str(odd), "-w", str(tmp_path / "w.duckdb"), "--json")
    [r] = json.loads(p.stdout)
    assert r["status"] == "failed"
    assert "no counter StormScope reads" in r["error"]


# ---- the translation tables ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("spelled", "canon"), [
    ("Disco fisico", "PhysicalDisk"), ("Физический диск", "PhysicalDisk"), ("Dysk fizyczny", "PhysicalDisk"),
    ("Fysisk disk", "PhysicalDisk"), ("FizikselDisk", "PhysicalDisk"), ("Fizikai lemez", "PhysicalDisk"),
    ("Fysieke schijf", "PhysicalDisk"), ("Fyzický disk", "PhysicalDisk"), ("Disco logico", "LogicalDisk"),
    ("Логический диск", "LogicalDisk"), ("Logisk disk", "LogicalDisk"), ("Processador", "Processor"),
    ("Процессор", "Processor"), ("Procesor", "Processor")])
def test_object_names_of_more_languages(spelled, canon):
    assert OBJECTS[norm(spelled)] == canon


@pytest.mark.parametrize(("spelled", "canon"), [
    ("Letture disco/sec", "Disk Reads/sec"), ("Leituras de disco/s", "Disk Reads/sec"),
    ("Gravações de disco/s", "Disk Writes/sec"), ("Byte scritti su disco/sec", "Disk Write Bytes/sec"),
    ("Скорость записи на диск (байт/с)", "Disk Write Bytes/sec"), ("Disk Yazma Bayt/sn", "Disk Write Bytes/sec"),
    ("Среднее время чтения с диска (с)", "Avg. Disk sec/Read"), ("Średnia długość kolejki dysku",
                                                                "Avg. Disk Queue Length"),
    ("Medel s/disköverföring", "Avg. Disk sec/Transfer"), ("Longitud actual de la cola de disco",
                                                           "Current Disk Queue Length")])
def test_counter_names_of_more_languages(spelled, canon):
    assert DISK_COUNTERS[norm(spelled)][0] == canon


def test_no_spelling_reaches_two_counters_or_two_objects():
    seen: dict[str, str] = {}
    for canon, (_q, aliases) in _DISK_COUNTERS.items():
        for a in {norm(x) for x in (canon, *aliases)}:
            assert seen.setdefault(a, canon) == canon, a
    objs: dict[str, str] = {}
    for canon, aliases in _OBJECTS.items():
        for a in aliases:
            assert objs.setdefault(norm(a), canon) == canon, a
    assert len(BY_PLACE["PhysicalDisk"]) == 21
    assert len(BY_PLACE["Processor"]) == 15
