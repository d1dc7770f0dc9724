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
(and, partly, the languages of the second list below)
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

* Spanish, more spellings: ``Promedio de disco s/lectura``, ``s/escritura``, ``Longitud media de la cola de disco``
  (a public PowerShell script reading Spanish counters with Get-Counter), ``Bytes de escritura en disco/s`` (the
  replication-readiness script below), ``Longitud actual de la cola de disco`` (a public notes file:
  ``Get-Counter -Counter "\\\\lamiw81\\disco físico(_total)\\longitud actual de la cola de disco"``).

Other languages, from code written to run on those Windows (names it passes to Get-Counter, typeperf, logman or .NET's
``PerformanceCounter``, which exist only under that display language), never from machine-translated documentation
(Microsoft's localized pages often translate counter names freely, e.g. "Media letture disco/sec"): what each source
gives is all that is known; every other counter of these languages is read by its place (below) or listed as unknown.

* A public replication-readiness PowerShell script (``Get-DiskActivity``, a ``$PhysicalDisk_per_language`` table of
  ``\\PhysicalDisk(_Total)\\Disk Write Bytes/sec`` per system locale): Italian ``Disco fisico`` / ``Byte scritti su
  disco/sec``; Portuguese (Portugal) ``Disco físico`` / ``Bytes escritos em disco/seg``; Portuguese (Brazil)
  ``PhysicalDisk`` (not translated) / ``Bytes de gravação de disco/s``; Swedish ``Fysisk disk`` / ``Disk - skrivna
  byte/s``; Turkish ``FizikselDisk`` / ``Disk Yazma Bayt/sn``; Hungarian ``Fizikai lemez`` / ``Írási sebesség
  (bájt/s)``; Dutch ``Fysieke schijf`` / ``Geschreven bytes per seconde``; Polish ``Dysk fizyczny`` / ``Bajty zapisu
  dysku/s``; Czech ``Fyzický disk`` / ``Bajty zapisování na disk/s``; Russian ``Физический диск`` / ``Скорость записи
  на диск (байт/с)``.
* Italian: a public VB.NET program (``PerformanceCounter`` ``CategoryName = "Disco logico"``, ``CounterName =
  "Letture disco/sec"``); Microsoft's Italian Azure Monitor agent page listing guest counters by their Windows names
  (``Byte letti da disco/sec``, ``Scritture disco/sec``).
* Portuguese (Brazil): a public PowerShell script for pt-BR Windows (``\\Processador(_Total)\\…``,
  ``\\PhysicalDisk(_Total)\\Leituras de disco/s``, ``Gravações de disco/s``, ``Bytes de leitura de disco/s``,
  ``Bytes de gravação de disco/s``, ``Comprimento médio da fila de disco``, ``Média de disco s/transferência``,
  ``% Tempo de Disco``) -- its object name agrees with the script above.
* Russian: a public logman batch file (``\\Физический диск(*)\\Средняя длина очереди диска``, ``Среднее время записи
  на диск (с)``, ``Среднее время чтения с диска (с)``, ``\\Логический диск``, ``\\Процессор(_Total)``), a public 1C
  script calling typeperf (``\\Физический диск(_Total)\\% активности диска``), a public Java program calling typeperf
  (``Скорость чтения с диска (байт/с)``) and two public PowerShell scripts whose spellings differ from these by
  Windows version (``Байт чтения с диска/с`` / ``Байт записи на диск/с``; ``Байт чтений с диска/с`` / ``Байт
  записей на диск/с``): every spelling found is kept.
* Polish: a public C# service (``PerformanceCounter("Dysk fizyczny", "Średnia długość kolejki dysku", "_Total")``,
  ``"Procesor"``) and a public PowerShell script for pl-PL (the same counter).
* Swedish: a public PowerShell module (``\\Logisk disk(…)\\Disköverföringar/s``, ``Medel s/disköverföring``).

Not covered by name (no source found that a program used on such a Windows): Japanese, Chinese (Simplified and
Traditional), Korean, Finnish, Danish, Norwegian, Greek, Hebrew, Arabic, Thai, Ukrainian, and the counters of the
languages above that their sources do not name -- searched: public code and documentation for localized object and
counter names (``物理磁盘``, ``Физический диск(_Total)``, ``Disco fisico(_Total)``, …), Microsoft's localized docs.
Their logs are read by place when they hold a whole object (below); a log that names only some counters in such a
language fails naming its objects.

Counters known by their place (:func:`by_place`): a log of a whole object (``\\PhysicalDisk(*)\\*``,
``\\Processor(*)\\*``) lists each instance's counters in the order of their index numbers, the same in every
language. An object whose instance names have a disk's or a processor's shape, whose every instance lists exactly
that object's counters, and where every name StormScope does know stands at its own place, is read by that order --
after its values agree (:func:`verify`: transfers = reads + writes, bytes = read + write bytes, no negative figure,
no percentage above 100; else the file fails naming the sum that does not hold). The run says so
(``runs.meta.counters_by_place``: each name as printed with what it was read as, the stored columns that come from
them, and ``not confirmed`` / ``confirmed when imported`` / ``confirmed by the user`` / ``rejected by the user``),
a warning asks the user, the window asks once per drop, and the report's sources say whether it was confirmed.

Binary logs (``.blg``) start with ``"(PDH-BIN 4.0)"`` (the header relog writes before its binary records; see
Windows' ``relog``): recognised from that content and refused with the command that converts them.
"""

from __future__ import annotations

import re
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

# object names -> canonical English (German, French, Spanish; then the languages of the module doc's second list)
_OBJECTS = {
    "PhysicalDisk": ("PhysicalDisk", "Physikalischer Datenträger", "Disque physique", "Disco físico",
                     "Disco fisico", "Физический диск", "Dysk fizyczny", "Fysisk disk", "FizikselDisk",
                     "Fizikai lemez", "Fysieke schijf", "Fyzický disk"),
    "LogicalDisk": ("LogicalDisk", "Logischer Datenträger", "Disque logique", "Disco lógico", "Disco logico",
                    "Логический диск", "Logisk disk"),
    "Processor": ("Processor", "Prozessor", "Processeur", "Procesador", "Processador", "Процессор", "Procesor"),
}
OBJECTS = {norm(alias): canon for canon, aliases in _OBJECTS.items() for alias in aliases}

# disk counters: canonical English -> (quantity, its spellings in German, French and Spanish, then the others)
_DISK_COUNTERS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "Disk Reads/sec": ("reads", ("Lesevorgänge/s", "Lesevorgänge/Sek.", "Lectures disque/s", "Lecturas de disco/s",
                                 "Letture disco/sec", "Leituras de disco/s")),
    "Disk Writes/sec": ("writes", ("Schreibvorgänge/s", "Schreibvorgänge/Sek.", "Écritures disque/s",
                                   "Escrituras de disco/s", "Scritture disco/sec", "Gravações de disco/s")),
    "Disk Transfers/sec": ("transfers", ("Übertragungen/s", "Übertragungen/Sek.", "Transferts disque/s",
                                         "Transferencias de disco/s", "Disköverföringar/s")),
    "Disk Read Bytes/sec": ("read_bytes", ("Bytes gelesen/s", "Byte gelesen/s", "Lectures disque, octets/s",
                                           "Bytes de lectura de disco/s", "Byte letti da disco/sec",
                                           "Bytes de leitura de disco/s", "Скорость чтения с диска (байт/с)",
                                           "Байт чтения с диска/с", "Байт чтений с диска/с")),
    "Disk Write Bytes/sec": ("write_bytes", ("Bytes geschrieben/s", "Byte geschrieben/s",
                                             "Écritures disque, octets/s", "Bytes de escritura de disco/s",
                                             "Bytes de escritura en disco/s", "Byte scritti su disco/sec",
                                             "Bytes de gravação de disco/s", "Bytes escritos em disco/seg",
                                             "Скорость записи на диск (байт/с)", "Байт записи на диск/с",
                                             "Байт записей на диск/с", "Bajty zapisu dysku/s", "Disk - skrivna byte/s",
                                             "Disk Yazma Bayt/sn", "Írási sebesség (bájt/s)",
                                             "Geschreven bytes per seconde", "Bajty zapisování na disk/s")),
    "Disk Bytes/sec": ("bytes", ("Bytes/s", "Datenträger Bytes/s", "Octets disque/s", "Bytes de disco/s")),
    "Avg. Disk sec/Read": ("sec_read", ("Mittlere Sek./Lesevorgänge", "Mittlere Sek./Lesevorgang",
                                        "Durchschn. Datenträger s/gelesen", "Moyenne disque s/lecture",
                                        "Promedio de disco s/lectura", "Среднее время чтения с диска (с)")),
    "Avg. Disk sec/Write": ("sec_write", ("Mittlere Sek./Schreibvorgänge", "Mittlere Sek./Schreibvorgang",
                                          "Durchschn. Datenträger s/geschrieben", "Durchschnittl. Sek./Schreibvorgang",
                                          "Moyenne disque s/écriture", "Promedio de disco s/escritura",
                                          "Среднее время записи на диск (с)")),
    "Avg. Disk sec/Transfer": ("sec_transfer", ("Mittlere Sek./Übertragung", "Durchschn. Datenträger s/übertragen",
                                                "Moyenne disque s/transfert", "Média de disco s/transferência",
                                                "Medel s/disköverföring")),
    "Avg. Disk Queue Length": ("queue", ("Durchschnittl. Warteschlangenlänge des Datenträgers",
                                         "Mittlere Warteschlangenlänge",
                                         "Longueur moyenne de file d'attente du disque",
                                         "Promedio Longitud de la cola de disco", "Longitud media de la cola de disco",
                                         "Comprimento médio da fila de disco", "Средняя длина очереди диска",
                                         "Średnia długość kolejki dysku")),
    "% Disk Time": ("disk_time", ("Zeit (%)", "%Zeit", "Pourcentage du temps disque", "% de tiempo de disco",
                                  "% Tempo de Disco", "% активности диска")),
    "% Idle Time": ("idle", ("Leerlaufzeit (%)", "% Leerlaufzeit", "% d'inactivité")),
    "Avg. Disk Bytes/Transfer": ("bytes_transfer", ("Mittlere Bytes/Übertragung",
                                                    "Moyenne disque, octets/transfert")),
    "Avg. Disk Bytes/Read": ("bytes_read", ("Mittlere Bytes/Lesevorgang", "Mittlere Bytes/Lesevorgänge",
                                            "Moyenne disque, octets/lecture")),
    "Avg. Disk Bytes/Write": ("bytes_write", ("Mittlere Bytes/Schreibvorgang", "Mittlere Bytes/Schreibvorgänge",
                                              "Moyenne disque, octets/écriture")),
    # recognised, not stored (see the module's doc)
    "Current Disk Queue Length": ("queue_now", ("Aktuelle Warteschlangenlänge",
                                                "Taille de file d'attente du disque actuelle",
                                                "Longitud actual de la cola de disco")),
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
    "% User Time": ("user", ("Benutzerzeit (%)", "%Benutzerzeit", "% temps utilisateur",
                             "% de tiempo de usuario")),
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
    table = CPU_COUNTERS if obj == "Processor" else DISK_COUNTERS
    hit = table.get(norm(cp.counter))
    return None if hit is None else _source(cp, obj, hit[1])


def _source(cp: CounterPath, obj: str, quantity: str | None, by_place: str | None = None) -> Source | None:
    """Where the column of ``cp`` goes, ``obj`` its object in English and ``quantity`` what it measures."""
    if quantity is None or cp.instance is None:
        return None
    host = cp.host or ""
    if obj == "Processor":
        return Source("cpu_samples", host, None, quantity, by_place=by_place) if cp.instance.strip() == "_Total" \
            else None
    total = cp.instance.strip() == "_Total"
    layer = "total" if total else "disk" if obj == "PhysicalDisk" else "volume"
    return Source("iostat_samples", host, f"{obj}({cp.instance})", quantity, layer, by_place=by_place)


# ---- counters known by their place, not their names ------------------------------------------------------------
# A log of a whole object (``\PhysicalDisk(*)\*``, perfmon's "all counters") lists each instance's counters in the
# order of their index numbers, which is the same in every display language. Where a Windows language's names are
# not known (no source gave them), such a log is still recognised: an object whose instances look like disks
# (``0 C:``, ``1``, ``_Total``) or processors (``0``, ``_Total``) and whose every instance has exactly the object's
# counters, with every name StormScope does know at its own place, is read by that order -- and only after the
# values agree with it (:func:`verify`: transfers = reads + writes, bytes = read + write bytes, queue = read +
# write queue, no negative rate, percentages within 0..100), and the user is asked to confirm.
# The orders: PhysicalDisk from the typeperf capture tests/corpus/perfmon/snippet_typeperf-si10_PhysicalDisk-star_
# GORANS2.csv (21 counters); Processor from the same author's typeperf "\Processor(*)\*" capture in the same Java
# source (DbxTune's WindowsTypePerfCsvReader, comment block: 15 counters, 12/29/2020). LogicalDisk's order has no
# such source yet: a volume object in an unknown language is not read by place.
BY_PLACE: dict[str, tuple[str, ...]] = {
    "PhysicalDisk": ("Current Disk Queue Length", "% Disk Time", "Avg. Disk Queue Length", "% Disk Read Time",
                     "Avg. Disk Read Queue Length", "% Disk Write Time", "Avg. Disk Write Queue Length",
                     "Avg. Disk sec/Transfer", "Avg. Disk sec/Read", "Avg. Disk sec/Write", "Disk Transfers/sec",
                     "Disk Reads/sec", "Disk Writes/sec", "Disk Bytes/sec", "Disk Read Bytes/sec",
                     "Disk Write Bytes/sec", "Avg. Disk Bytes/Transfer", "Avg. Disk Bytes/Read",
                     "Avg. Disk Bytes/Write", "% Idle Time", "Split IO/Sec"),
    "Processor": ("% Processor Time", "% User Time", "% Privileged Time", "Interrupts/sec", "% DPC Time",
                  "% Interrupt Time", "DPCs Queued/sec", "DPC Rate", "% Idle Time", "% C1 Time", "% C2 Time",
                  "% C3 Time", "C1 Transitions/sec", "C2 Transitions/sec", "C3 Transitions/sec"),
}
_DISK_INSTANCE = re.compile(r"^(?:_Total|\d+(?: [A-Za-z]:)*)$")
_CPU_INSTANCE = re.compile(r"^(?:_Total|\d+)$")


def by_place(paths: list[CounterPath]) -> dict[CounterPath, tuple[str, str]]:
    """The columns whose object or counter name is not known but whose place says what they are (see above):
    path -> (object, counter) in English. Names StormScope knows keep their own reading."""
    groups: dict[tuple[str, str], dict[str, list[CounterPath]]] = {}
    for p in paths:
        if p.instance is not None:
            groups.setdefault(((p.host or "").casefold(), p.obj), {}).setdefault(p.instance.strip(), []).append(p)
    out: dict[CounterPath, tuple[str, str]] = {}
    for (_host, obj), instances in groups.items():
        known = OBJECTS.get(norm(obj))
        for canon, order in BY_PLACE.items():
            if known not in (None, canon):
                continue
            shape = _CPU_INSTANCE if canon == "Processor" else _DISK_INSTANCE
            if not all(shape.match(i) for i in instances) or not any(i != "_Total" for i in instances):
                continue
            if canon == "Processor" and any(_DISK_INSTANCE.match(i) and not _CPU_INSTANCE.match(i)
                                            for i in instances):
                continue
            table = CPU_COUNTERS if canon == "Processor" else DISK_COUNTERS
            lists = [ps for i, ps in instances.items() if canon != "Processor" or i == "_Total"]
            if not lists or any(len(ps) != len(order) for ps in lists):
                continue
            names = [norm(p.counter) for p in lists[0]]
            if any([norm(p.counter) for p in ps] != names for ps in lists):
                continue  # every instance lists the same counters
            if any(n in table and table[n][0] != order[k] for k, n in enumerate(names)) or \
                    any(n in OBJECTS_ALL_COUNTERS and n not in table for n in names):
                continue  # a known name at another place: not that object's order
            if known is not None and all(n in table for n in names):
                continue  # every name known: nothing to read by place
            for ps in lists:
                for k, p in enumerate(ps):
                    if known is None or names[k] not in table:
                        out[p] = (canon, order[k])
    return out


# every counter name of the objects above that StormScope knows (a name known for another object rules a place out)
OBJECTS_ALL_COUNTERS = {**DISK_COUNTERS, **CPU_COUNTERS}
_QUANTITY = {(o, c): (CPU_COUNTERS if o == "Processor" else DISK_COUNTERS).get(norm(c), (c, None))[1]
             for o, order in BY_PLACE.items() for c in order}


def verify(q: dict[str, np.ndarray]) -> str | None:
    """The values of a device read by place, against what that place says: sums that must hold at every sample
    (perfmon computes both sides from the same counts; 6 printed decimals each) and ranges. None: they agree."""
    def off(total: str, a: str, b: str) -> str | None:
        if not {total, a, b} <= set(q):
            return None
        t, s = q[total], q[a] + q[b]
        bad = np.isfinite(t) & np.isfinite(s) & (np.abs(t - s) > 5e-6 + 1e-6 * np.abs(t))
        if bad.any():
            i = int(np.argmax(bad))
            return f"at sample {i + 1}, {WORDS[total]} is {t[i]:g}, not {WORDS[a]} + {WORDS[b]} = {s[i]:g}"
        return None

    for total, a, b in (("transfers", "reads", "writes"), ("bytes", "read_bytes", "write_bytes"),
                        ("queue", "queue_read", "queue_write")):
        if (problem := off(total, a, b)) is not None:
            return problem
    for k, v in q.items():
        low = np.isfinite(v) & (v < 0)
        if low.any():
            return f"{WORDS.get(k, k)} is negative ({v[int(np.argmax(low))]:g})"
        if k in ("idle", "user", "system") and (np.isfinite(v) & (v > 100.5)).any():
            return f"{WORDS.get(k, k)} is above 100 %"
    return None


WORDS = {"transfers": "transfers/s", "reads": "reads/s", "writes": "writes/s", "bytes": "bytes/s",
         "read_bytes": "read bytes/s", "write_bytes": "write bytes/s", "queue": "the average queue",
         "queue_read": "the read queue", "queue_write": "the write queue", "idle": "the idle time",
         "user": "the user time", "system": "the privileged time"}


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
    """The classifier of one log: names first, then the columns known by their place (:func:`by_place`); the parts
    of a queue length (read, write, current) are read only for a disk whose log has no better figure of it -- else
    they stay "recognised, not stored" (runs.meta.counters_not_stored)."""
    placed = by_place(paths)

    def named(cp: CounterPath) -> Source | None:
        src = classify(cp)
        if src is None and cp in placed:
            obj, counter = placed[cp]
            src = _source(cp, obj, _QUANTITY[(obj, counter)], f"{obj}\\{counter}")
        return src

    have: dict[tuple[str | None, str | None, str | None], set[str]] = {}
    for p in paths:
        src = named(p)
        if src is not None and src.table == "iostat_samples":
            have.setdefault((p.host, src.device, None), set()).add(src.quantity)

    def chosen(cp: CounterPath) -> Source | None:
        src = named(cp)
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
                  describe_unread=describe_unread, check=check, verify=verify)


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
