"""Every file of the corpus, imported the way a consultant's folder drop imports it, with its outcome written out.

Each file is either imported (runs and rows stored) or refused with a message that names what the file is and
what to import instead -- none is skipped as "not a trace", none fails with an internal error. The outcome of every
file is listed in OUTCOMES, so a new corpus file fails until its outcome is written here, and a change of outcome is
a visible change of this list.
"""

from __future__ import annotations

import pytest

from app.importer import import_file
from parsers.base import ImportOptions
from tests.conftest import CORPUS

# refused files: the words their refusal must hold (what the file is, and what to do)
REFUSED = {
    "perfmon/snippet_preparePerfLog-pod_perfmon-csv_PhysicalDisk.csv": (":2:", "7.0625001143654654e", "looks cut"),
    "iostat-other/datadog-unix-agent_aix-iostat-Dsal.txt": ("AIX iostat", "nmon"),
    "sar/pkb_sar_output.txt": ("sar -d",),
    "sar/sysstat-tests_sar-cd.txt": ("sar -d",),
    "sar/vm_sysstat-12.6.1_sa23": ("sadf -d",),
    "sar/vm_sysstat-12.6.1_sadf-d_u.txt": ("sar -d",),
    "sar/vm_sysstat-12.6.1_sadf-j_d-p.json": ("sadf -d",),
    "sar/vm_sysstat-12.6.1_sadf-p_d-p.txt": ("sadf -d",),
    "sar/vm_sysstat-12.6.1_sadf-x_d-p.xml": ("sadf -d",),
    "nmon/snippet_atsd-doc_aix-topas_nmon-snapshot-T0009.nmon.txt": ("nmon", ":1:"),
    "fio/vm_fio-3.33_randrw-avg500_slat.1.log": ("_lat", "_clat"),
    # sysstat's test of a counter that went back: iostat printed 590,484,765,483,660,416 tps for sdb
    "iostat/sysstat-tests_iostat_2019-cbe5da01.txt": ("tps (requests/s) of 'sdb' in report 3 is 5.90485e+17",
                                                      "beyond any measurement"),
    "fio/vm_fio-3.33_clones-avg500_iops.log": ("per_job_logs=0", "per_job_logs=1"),
}


# imported, but with nothing to analyse: `iostat -d foo` names a device that does not exist (a header, no rows)
EMPTY = {"iostat/sysstat-tests_iostat-foo.txt"}
# notes beside the corpus, not traces: the search for public IOmark output (none exists); how the locale captures
# were made and the script deriving the locale table
NOTES = {"iomark/IOMARK_FINDINGS.md", "locales/make_captures.sh", "locales/derive_locale_formats.py",
         # the fio job files StormScope's replay wrote and fio ran (beside their captures): not traces
         *(f"replay/storm_fast_replay_{c}-linear_{r}.fio" for c in ("startdelay", "stonewall") for r in "ab")}


def _files() -> list[str]:
    return sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*")
                  if p.is_file() and p.name not in ("MANIFEST.md", "SHA256SUMS")
                  and p.relative_to(CORPUS).as_posix() not in NOTES)


@pytest.mark.parametrize("rel", _files())
def test_every_corpus_file_is_imported_or_refused_with_what_to_do(ws, rel):
    res = import_file(ws, str(CORPUS / rel), ImportOptions(), in_folder=True)
    assert res.status != "skipped", f"{rel}: skipped as not a trace: {res.error}"
    assert "internal error" not in (res.error or ""), res.error
    if rel in REFUSED:
        assert res.status == "failed", f"{rel} was {res.status}"
        for words in REFUSED[rel]:
            assert words in res.error, (words, res.error)
    else:
        assert res.status == "imported", f"{rel}: {res.error}"
        assert res.run_ids
        assert (res.rows == 0) == (rel in EMPTY), (rel, res.rows)


def test_the_lists_name_corpus_files_that_exist():
    assert set(REFUSED) | EMPTY <= set(_files())
    assert all((CORPUS / n).is_file() for n in NOTES)
