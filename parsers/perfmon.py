"""Windows perfmon / typeperf / relog counter logs in PDH-CSV (and PDH-TSV), read by :mod:`parsers.pdh`.

What is read, per host (one run per host when a log holds several computers):

``PhysicalDisk(<n> <letters>)`` → ``layer`` ``disk``, its ``_Total`` → ``total``; ``LogicalDisk(<volume>)`` →
``volume``, its ``_Total`` → ``total``. Devices are named ``PhysicalDisk(0 C:)``, ``LogicalDisk(C:)``,
``PhysicalDisk(_Total)`` (the English object name whatever the Windows language, so runs from a German and an
English desktop compare). Counters, into ``iostat_samples`` (kB = 1024 bytes):

==============================  =====================================================================
``Disk Reads/sec``              ``r_s``
``Disk Writes/sec``             ``w_s``
``Disk Transfers/sec``          ``tps``, only for a disk without ``Disk Reads/sec`` and ``Disk Writes/sec``
``Disk Read Bytes/sec``         ``rkb_s`` = bytes / 1024
``Disk Write Bytes/sec``        ``wkb_s`` = bytes / 1024
``Disk Bytes/sec``              ``kb_s`` = bytes / 1024, only for a disk without the read/write split
``Avg. Disk sec/Read``          ``r_await_ms`` = seconds × 1000 (likewise ``/Write`` → ``w_await_ms``,
                                ``/Transfer`` → ``await_ms``)
``Avg. Disk Queue Length``      ``aqu_sz``
``% Disk Time``                 ``aqu_sz`` = % / 100, only for a disk without ``Avg. Disk Queue Length``:
                                perfmon computes both from the same count (``% Disk Time`` = 100 ×
                                ``Avg. Disk Queue Length``, so it passes 100 % under load); the typeperf
                                corpus file shows it: 0.342941 % and 0.003429
``% Idle Time``                 ``util_pct`` = 100 − idle, clipped to 0..100: perfmon's idle time is
                                measured separately from the I/O counters and is seen above 100 (and the
                                difference below 0) on busy or multi-queue disks; such a value is stored as
                                0 or 100, never as a negative or over-full utilisation
``Avg. Disk Bytes/Transfer``    ``areq_kb`` = bytes / 1024 (``/Read`` → ``rareq_kb``, ``/Write`` →
                                ``wareq_kb``)
==============================  =====================================================================

Divisions by 1024 are exact in binary floating point; the other computed figures (× 1000, / 100, 100 − idle)
are rounded to 9 decimals to drop the arithmetic's binary noise (:func:`tidy`).

For a disk without ``Avg. Disk Queue Length``, ``aqu_sz`` is ``Avg. Disk Read Queue Length`` + ``Avg. Disk Write
Queue Length`` (perfmon's average is their sum), else ``% Disk Time`` / 100 (above), else ``Current Disk Queue
Length`` -- the requests outstanding at each sample, not an average over the interval: an estimate, said in a
warning. A read or
write queue length alone is not stored (said).

Recognised but not stored (their names are listed in ``runs.meta.counters_not_stored``): ``% Disk Read Time``,
``% Disk Write Time``, ``Split IO/Sec``, ``% Free Space``,
``Free Megabytes``. Counters of other objects (Memory, Network Interface, Process …) are counted per object in
``runs.meta.objects_not_read``. ``Processor(_Total)`` ``% User Time`` / ``% Privileged Time`` / ``% Idle Time``
go to ``cpu_samples`` (``user`` / ``system`` / ``idle``) when the log has them.

Non-English Windows writes translated object and counter names. German, French and Spanish are mapped name by name
(matching ignores case, spaces, dots, ``%`` and parentheses, typographic apostrophes, and German ``/Sek.`` =
``/s``); where Windows versions or sources spell a counter differently, every spelling found is listed.
Counters of a disk object that match no known name are listed in ``runs.meta.disk_counters_unknown``; an object
name of another language is not recognised at all (a log with nothing readable fails naming its objects).
Sources of the translated names:

* German: Microsoft's German documentation "Allgemeine Metriken für die automatische Skalierung in Azure
  Monitor" (guest counters ``\\Physikalischer Datenträger(_Total)\\Übertragungen/s``, ``Lesevorgänge/s``,
  ``Schreibvorgänge/s``, ``Bytes/s``, ``Byte gelesen/s``, ``Byte geschrieben/s``, ``%Zeit``, ``%Lesezeit``,
  ``%Schreibzeit``, ``Durchschnittl. Warteschlangenlänge des Datenträgers`` and its ``der Datenträger-Lese-/
  Schreibvorgänge`` forms; ``\\Processor(_Total)\\%Benutzerzeit``, ``%Privilegierte Zeit``), its page "Azure
  Monitor für VMs: aktivierte Leistungsindikatoren" (``Logischer Datenträger``: ``Durchschn. Datenträger
  s/gelesen``, ``s/geschrieben``, ``s/übertragen``, ``Datenträger Bytes/s``), and public PowerShell scripts
  reading German counters (``\\Physikalischer Datenträger(_Total)\\Bytes geschrieben/s``,
  ``\\Physikalischer Datenträger(* X:)\\Aktuelle Warteschlangenlänge``, ``Lesevorgänge/Sek.``). The
  ``Mittlere Sek./…``, ``Mittlere Bytes/…``, ``Leerlaufzeit (%)`` and ``Aufgeteilte E/A/s`` spellings are the
  ones German Windows 10 and Server 2016+ show in perfmon; no public file confirming them was found, so the
  documented spellings are kept beside them.
* French: a public PowerShell inventory script that lists, on a French Windows, every counter of ``Disque
  physique(*)`` and ``Disque logique(*)`` (``Lectures disque/s``, ``Écritures disque, octets/s``, ``Moyenne
  disque s/lecture``, ``Longueur moyenne de file d'attente du disque``, ``Pourcentage du temps disque``,
  ``% d'inactivité``, ``Moyenne disque, octets/transfert``, ``E/S partagées/s`` …) and of ``Processeur``
  (``% temps utilisateur``, ``% temps privilégié``); public scripts for ``Taille de file d’attente du disque
  actuelle`` and the typographic ``% d’inactivité``; the same multi-language script as above for ``Écritures
  disque, octets/s``.

* Spanish: Microsoft's Spanish documentation "Métricas comunes de escalado automático de Azure Monitor" (content
  locale es-ES; the same page as the German one above): ``\\Disco físico(_Total)\\Lecturas de disco/s``,
  ``Escrituras de disco/s``, ``Transferencias de disco/s``, ``Bytes de disco/s``, ``Bytes de lectura de disco/s``,
  ``Bytes de escritura de disco/s``, ``% de tiempo de disco``, ``%Tiempo de lectura de disco``, ``% de tiempo de
  escritura de disco``, ``Promedio Longitud de la cola de disco`` and its ``de lectura`` / ``de escritura``
  forms; ``\\Disco lógico(_Total)\\% de espacio disponible``, ``Megabytes disponibles``;
  ``\\Procesador(_Total)\\% de tiempo de usuario``, ``% de tiempo con privilegios``. The page names no latency,
  idle-time or request-size counter: a Spanish log's are listed as unknown (``runs.meta.disk_counters_unknown``).

Binary logs (``.blg``) start with ``"(PDH-BIN 4.0)"`` (the header relog writes before its binary records; see
Windows' ``relog``): recognised from that content and refused with the command that converts them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from parsers.base import Event, ImportOptions, JobState, ParseError, WarnFn
from parsers.esxtop import is_esxtop
from parsers.kinds import DEVICE_RATES, TIME_SERIES, register_kind
from parsers.pdh import (
    PDH_META,
    Classify,
    CounterPath,
    DeviceSpec,
    FormatSpec,
    PdhReader,
    Source,
    head_paths,
    norm,
    sniff_head,
)
from parsers.registry import register
from parsers.semantics import LIST, OBJ, REFUSED, Counts, MetaKey, Semantics, Span

KIND = register_kind("perfmon", "perfmon", {TIME_SERIES, DEVICE_RATES})

# object names (English, German, French, Spanish) -> canonical English
_OBJECTS = {
    "PhysicalDisk": ("PhysicalDisk", "Physikalischer Datenträger", "Disque physique", "Disco físico"),
    "LogicalDisk": ("LogicalDisk", "Logischer Datenträger", "Disque logique", "Disco lógico"),
    "Processor": ("Processor", "Prozessor", "Processeur", "Procesador"),
}
OBJECTS = {norm(alias): canon for canon, aliases in _OBJECTS.items() for alias in aliases}

# disk counters: canonical English -> (quantity, its spellings in German, French and Spanish)
_DISK_COUNTERS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "Disk Reads/sec": ("reads", ("Lesevorgänge/s", "Lesevorgänge/Sek.", "Lectures disque/s", "Lecturas de disco/s")),
    "Disk Writes/sec": ("writes", ("Schreibvorgänge/s", "Schreibvorgänge/Sek.", "Écritures disque/s",
                                   "Escrituras de disco/s")),
    "Disk Transfers/sec": ("transfers", ("Übertragungen/s", "Übertragungen/Sek.", "Transferts disque/s",
                                         "Transferencias de disco/s")),
    "Disk Read Bytes/sec": ("read_bytes", ("Bytes gelesen/s", "Byte gelesen/s", "Lectures disque, octets/s",
                                           "Bytes de lectura de disco/s")),
    "Disk Write Bytes/sec": ("write_bytes", ("Bytes geschrieben/s", "Byte geschrieben/s",
                                             "Écritures disque, octets/s", "Bytes de escritura de disco/s")),
    "Disk Bytes/sec": ("bytes", ("Bytes/s", "Datenträger Bytes/s", "Octets disque/s", "Bytes de disco/s")),
    "Avg. Disk sec/Read": ("sec_read", ("Mittlere Sek./Lesevorgänge", "Mittlere Sek./Lesevorgang",
                                        "Durchschn. Datenträger s/gelesen", "Moyenne disque s/lecture")),
    "Avg. Disk sec/Write": ("sec_write", ("Mittlere Sek./Schreibvorgänge", "Mittlere Sek./Schreibvorgang",
                                          "Durchschn. Datenträger s/geschrieben", "Durchschnittl. Sek./Schreibvorgang",
                                          "Moyenne disque s/écriture")),
    "Avg. Disk sec/Transfer": ("sec_transfer", ("Mittlere Sek./Übertragung", "Durchschn. Datenträger s/übertragen",
                                                "Moyenne disque s/transfert")),
    "Avg. Disk Queue Length": ("queue", ("Durchschnittl. Warteschlangenlänge des Datenträgers",
                                         "Mittlere Warteschlangenlänge",
                                         "Longueur moyenne de file d'attente du disque",
                                         "Promedio Longitud de la cola de disco")),
    "% Disk Time": ("disk_time", ("Zeit (%)", "%Zeit", "Pourcentage du temps disque", "% de tiempo de disco")),
    "% Idle Time": ("idle", ("Leerlaufzeit (%)", "% Leerlaufzeit", "% d'inactivité")),
    "Avg. Disk Bytes/Transfer": ("bytes_transfer", ("Mittlere Bytes/Übertragung",
                                                    "Moyenne disque, octets/transfert")),
    "Avg. Disk Bytes/Read": ("bytes_read", ("Mittlere Bytes/Lesevorgang", "Mittlere Bytes/Lesevorgänge",
                                            "Moyenne disque, octets/lecture")),
    "Avg. Disk Bytes/Write": ("bytes_write", ("Mittlere Bytes/Schreibvorgang", "Mittlere Bytes/Schreibvorgänge",
                                              "Moyenne disque, octets/écriture")),
    # recognised, not stored (see the module's doc)
    "Current Disk Queue Length": ("queue_now", ("Aktuelle Warteschlangenlänge",
                                         "Taille de file d'attente du disque actuelle")),
    "% Disk Read Time": (None, ("Lesezeit (%)", "%Lesezeit", "Pourcentage du temps de lecture du disque",
                                "%Tiempo de lectura de disco")),
    "% Disk Write Time": (None, ("Schreibzeit (%)", "%Schreibzeit", "Pourcentage du temps écriture du disque",
                                 "% de tiempo de escritura de disco")),
    "Avg. Disk Read Queue Length": ("queue_read", ("Durchschnittl. Warteschlangenlänge der Datenträger-Lesevorgänge",
                                           "Longueur moyenne de file d'attente lecture disque",
                                           "Promedio Longitud de la cola de lectura de disco")),
    "Avg. Disk Write Queue Length": ("queue_write", (
                                            "Durchschnittl. Warteschlangenlänge der Datenträger-Schreibvorgänge",
                                            "Longueur moyenne de file d'attente écriture disque",
                                            "Promedio Longitud de la cola de escritura de disco")),
    "Split IO/Sec": (None, ("Aufgeteilte E/A/s", "E/S partagées/s")),
    "% Free Space": (None, ("Freier Speicherplatz (%)", "%Freier Speicherplatz", "% d'espace libre",
                            "% de espacio disponible")),
    "Free Megabytes": (None, ("MB frei", "Mégaoctets libres", "Megabytes disponibles")),
}
_CPU_COUNTERS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "% User Time": ("user", ("Benutzerzeit (%)", "%Benutzerzeit", "% temps utilisateur", "% de tiempo de usuario")),
    "% Privileged Time": ("system", ("Privilegierte Zeit (%)", "%Privilegierte Zeit", "% temps privilégié",
                                     "% de tiempo con privilegios")),
    "% Idle Time": ("idle", ("Leerlaufzeit (%)", "% Leerlaufzeit", "% d'inactivité")),
}


def _index(table: dict[str, tuple[str | None, tuple[str, ...]]]) -> dict[str, tuple[str, str | None]]:
    """Every spelling (normalised) -> (canonical English name, quantity or None)."""
    out: dict[str, tuple[str, str | None]] = {}
    for canon, (quantity, aliases) in table.items():
        for alias in (canon, *aliases):
            out[norm(alias)] = (canon, quantity)
    return out


DISK_COUNTERS = _index(_DISK_COUNTERS)
CPU_COUNTERS = _index(_CPU_COUNTERS)
TRANSLATIONS = {canon: aliases for canon, (_q, aliases) in _DISK_COUNTERS.items()}  # for tests and docs


def classify(cp: CounterPath) -> Source | None:
    obj = OBJECTS.get(norm(cp.obj))
    if obj is None or cp.instance is None:
        return None
    host = cp.host or ""
    if obj == "Processor":
        hit = CPU_COUNTERS.get(norm(cp.counter))
        if cp.instance.strip() != "_Total" or hit is None or hit[1] is None:
            return None
        return Source("cpu_samples", host, None, hit[1])
    hit = DISK_COUNTERS.get(norm(cp.counter))
    if hit is None or hit[1] is None:
        return None
    total = cp.instance.strip() == "_Total"
    layer = "total" if total else "disk" if obj == "PhysicalDisk" else "volume"
    return Source("iostat_samples", host, f"{obj}({cp.instance})", hit[1], layer)


def _kb(a: np.ndarray) -> np.ndarray:
    return a / 1024.0


def derive_disk(q: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """The stored columns of one disk from its counters (see the table in the module's doc)."""
    out: dict[str, np.ndarray] = {}
    split = "reads" in q or "writes" in q
    for quantity, column in (("reads", "r_s"), ("writes", "w_s"), ("queue", "aqu_sz")):
        if quantity in q:
            out[column] = q[quantity]
    if not split and "transfers" in q:
        out["tps"] = q["transfers"]
    for quantity, column in (("read_bytes", "rkb_s"), ("write_bytes", "wkb_s"), ("bytes_transfer", "areq_kb"),
                             ("bytes_read", "rareq_kb"), ("bytes_write", "wareq_kb")):
        if quantity in q:
            out[column] = _kb(q[quantity])
    if "read_bytes" not in q and "write_bytes" not in q and "bytes" in q:
        out["kb_s"] = _kb(q["bytes"])
    for quantity, column in (("sec_read", "r_await_ms"), ("sec_write", "w_await_ms"), ("sec_transfer", "await_ms")):
        if quantity in q:
            out[column] = tidy(q[quantity] * 1000.0)
    if "queue" not in q and "queue_read" in q and "queue_write" in q:  # perfmon's average is their sum
        out["aqu_sz"] = tidy(q["queue_read"] + q["queue_write"])
    elif "queue" not in q and "disk_time" in q:
        out["aqu_sz"] = tidy(q["disk_time"] / 100.0)
    elif "queue" not in q and "queue_now" in q:  # the count at each sample: an estimate of the average (said)
        out["aqu_sz"] = q["queue_now"]
    if "idle" in q:
        out["util_pct"] = tidy(np.clip(100.0 - q["idle"], 0.0, 100.0))
    return out


def tidy(a: np.ndarray) -> np.ndarray:
    """A figure computed from decimal text, rounded to 9 decimals: drops the binary noise of the arithmetic
    (100 − 99.581332 is 0.4186679999999967 in floating point; stored: 0.418668). A nanosecond of a millisecond
    is far below the 100-ns resolution of Windows' disk timers, so nothing the log measured is lost."""
    return np.round(a, 9)


def derive_cpu(q: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    return dict(q)


def describe_unread(paths: list[CounterPath]) -> dict[str, Any]:
    """What the log holds that is not stored: disk counters by name, other objects with their column counts."""
    not_stored: set[str] = set()
    unknown: set[str] = set()
    objects: dict[str, int] = {}
    for p in paths:
        obj = OBJECTS.get(norm(p.obj))
        if obj in ("PhysicalDisk", "LogicalDisk"):
            hit = DISK_COUNTERS.get(norm(p.counter))
            (not_stored if hit is not None else unknown).add(hit[0] if hit is not None else p.counter)
        else:
            objects[p.obj] = objects.get(p.obj, 0) + 1
    out: dict[str, Any] = {}
    if not_stored:
        out["counters_not_stored"] = sorted(not_stored)
    if unknown:
        out["disk_counters_unknown"] = sorted(unknown)
    if objects:
        out["objects_not_read"] = dict(sorted(objects.items()))
    return out


def check(devices: dict[tuple[str, str], DeviceSpec], warn: WarnFn) -> None:
    """A disk without reads, writes or transfers has no IOPS; a queue length taken from Current Disk Queue Length is
    an estimate: each said once per host."""
    disks = [d for (t, _), d in devices.items() if t == "iostat_samples"]
    averaged = {"queue", "disk_time"}
    now = [d.device for d in disks if "queue_now" in d.quantities and not averaged & set(d.quantities)
           and not {"queue_read", "queue_write"} <= set(d.quantities)]
    if now:
        warn(f"the queue length of {', '.join(str(n) for n in now[:4])}{' …' if len(now) > 4 else ''} is estimated "
             "from Current Disk Queue Length, the requests outstanding at each sample, not the average over the "
             "interval (the log has no Avg. Disk Queue Length)", None)
    none = [d.device for d in disks if not {"reads", "writes", "transfers"} & set(d.quantities)]
    if none:
        warn(f"{len(none)} disk(s) have no Disk Reads/sec, Disk Writes/sec or Disk Transfers/sec counter, so no "
             f"IOPS: {', '.join(str(n) for n in none[:4])}{' …' if len(none) > 4 else ''}", None)


QUEUE_PARTS = ("queue_read", "queue_write", "queue_now")  # read only for a disk without Avg. Disk Queue Length


def prepare(paths: list[CounterPath]) -> Classify:
    """The classifier of one log: the parts of a queue length (read, write, current) are read only for a disk whose
    log has no better figure of it -- else they stay "recognised, not stored" (runs.meta.counters_not_stored)."""
    have: dict[tuple[str | None, str | None, str | None], set[str]] = {}
    for p in paths:
        src = classify(p)
        if src is not None and src.table == "iostat_samples":
            have.setdefault((p.host, src.device, None), set()).add(src.quantity)

    def chosen(cp: CounterPath) -> Source | None:
        src = classify(cp)
        if src is None or src.quantity not in QUEUE_PARTS:
            return src
        q = have.get((cp.host, src.device, None), set())
        both = {"queue_read", "queue_write"} <= q
        if "queue" in q or (src.quantity == "queue_now" and (both or "disk_time" in q)) \
                or (src.quantity != "queue_now" and not both):
            return None
        return src

    return chosen


SPEC = FormatSpec(kind=KIND.id, what="a perfmon CSV log", os="Windows", tool="perfmon / typeperf",
                  classify=classify, prepare=prepare,
                  derive={"iostat_samples": derive_disk, "cpu_samples": derive_cpu},
                  describe_unread=describe_unread, check=check)


# what perfmon's data means (parsers.semantics)
SEMANTICS = Semantics(
    main_table="iostat_samples", span=Span.SINCE_PREVIOUS, counts=Counts.RATES,
    layers={"disk": "PhysicalDisk(<n> <letters>)", "volume": "LogicalDisk(<volume>)",
            "total": "PhysicalDisk(_Total), LogicalDisk(_Total)"},
    wording={"r_s": "Disk Reads/sec", "w_s": "Disk Writes/sec", "tps": "Disk Transfers/sec",
             "rkb_s": "Disk Read Bytes/sec", "wkb_s": "Disk Write Bytes/sec", "kb_s": "Disk Bytes/sec",
             "r_await_ms": "Avg. Disk sec/Read", "w_await_ms": "Avg. Disk sec/Write",
             "await_ms": "Avg. Disk sec/Transfer",
             "aqu_sz": "Avg. Disk Queue Length (else Avg. Disk Read + Write Queue Length, % Disk Time / 100, or "
                       "Current Disk Queue Length: an estimate)",
             "util_pct": "100 - % Idle Time", "areq_kb": "Avg. Disk Bytes/Transfer",
             "rareq_kb": "Avg. Disk Bytes/Read", "wareq_kb": "Avg. Disk Bytes/Write",
             "user": "Processor(_Total) % User Time", "system": "Processor(_Total) % Privileged Time",
             "idle": "Processor(_Total) % Idle Time"},
    meta=(*PDH_META,
          MetaKey("counters_not_stored", LIST, "disk counters recognised and not stored"),
          MetaKey("disk_counters_unknown", LIST, "counters of a disk object that match no known name"),
          MetaKey("objects_not_read", OBJ, "other objects, with their column counts")))


class PerfmonCsvFormat:
    id = "perfmon-csv"
    kind = KIND.id
    label = "Windows perfmon / typeperf (PDH-CSV)"
    priority = 309
    tables = ("iostat_samples", "cpu_samples")
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        text = sniff_head(head)
        if not text:
            return 0.0
        paths = head_paths(text)
        if is_esxtop(paths):
            return 0.2
        known = any(norm(p.obj) in OBJECTS for p in paths)
        return 0.95 if known else 0.75

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        reader = PdhReader(path, SPEC, options, state, warn)
        yield from reader.events()


BLG_HINT = ("a binary perfmon log (.blg): StormScope reads perfmon's CSV; convert it with: "
            "relog file.blg -f csv -o file.csv")


class PerfmonBlgFormat:
    """perfmon's binary log: recognised from its ``"(PDH-BIN 4.0)"`` header, refused with the relog command."""

    id = "perfmon-blg"
    kind = KIND.id
    label = "Windows perfmon binary log (.blg, not read)"
    priority = 299
    tables = ()
    semantics = REFUSED
    unsupported = BLG_HINT
    sniffs_binary = True  # the registry asks it before refusing a file for its NUL bytes

    def sniff(self, head: bytes) -> float:
        h = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
        return 1.0 if h.lstrip(b'"').startswith(b"(PDH-BIN ") else 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from ()
        raise ParseError(BLG_HINT, 1)


CSV_FORMAT = register(PerfmonCsvFormat())
BLG_FORMAT = register(PerfmonBlgFormat())
