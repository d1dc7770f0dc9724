"""Anonymising is airtight (issue 26): with anonymise on, no string that came from the customer's files or the
consultant's machine reaches any page, bookmark or metadata field of the PDF -- host and device names, file names
that hold them, run names made from file names, parts of host names typed into question titles, the customer's
name typed on the report, tag words, the folders the files came from (even with full paths asked for), and the
file names of a drop that failed. Checked on the PDF as a reader sees it: pdftotext, the outline's titles decoded,
pdfinfo's metadata."""

import re
import socket
import subprocess
from pathlib import Path

from app.analysis import questions as Q
from app.importer import import_file
from parsers.base import ImportOptions
from reports import ReportOptions, build_report
from tests.analysis_util import iops_log
from tests.reports.test_report_never_fails import PERFMON_TOTAL

SECRETS = ["acme", "contoso", "db01", "web02", "sdb", "nvme0n1", "sql7", "frankfurt", "CustomerACME", "db02"]


def outline_titles(pdf: bytes) -> list[str]:
    """Every /Title string of the PDF (document info and outline entries), literal or UTF-16 hex."""
    out = []
    for m in re.finditer(rb"/Title\s*(\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f\s]*>)", pdf):
        raw = m.group(1)
        if raw.startswith(b"<"):
            b = bytes.fromhex(raw[1:-1].decode().replace(" ", ""))
            out.append(b[2:].decode("utf-16-be") if b.startswith(b"\xfe\xff") else b.decode("latin-1"))
        else:
            out.append(raw[1:-1].decode("latin-1"))
    return out


def test_an_anonymised_report_of_files_and_titles_full_of_customer_names_holds_none(ws, tmp_path):
    d = tmp_path / "CustomerACME-engagement"
    d.mkdir()
    (d / "acme-db01_sdb_iostat.txt").write_text(
        iops_log([10, 200, 900, 1200, 800, 300, 50, 10], host="acme-db01").replace("sda", "sdb"))
    (d / "contoso-web02_nvme0n1_iostat.txt").write_text(
        iops_log([10, 100, 400, 600, 300, 20, 10, 10], host="web02").replace("sda", "nvme0n1"))
    (d / "contoso-sql7_perfmon.csv").write_text(PERFMON_TOTAL.replace("SRV01", "CONTOSO-SQL7"))
    ids = []
    for p in sorted(d.iterdir()):
        r = import_file(ws, str(p), ImportOptions(**({"tags": {"site": "ACME Frankfurt", "cap_iops": "500"}}
                                                     if "acme" in p.name else {})))
        assert r.status == "imported", r.error
        ids += r.run_ids
    Q.add_question(ws, Q.CapQuestion(run_id=ids[0], iops_cap=500, device="sdb"),
                   title="Did acme-db01 (disk sdb) hold 500 IOPS for ACME?")
    Q.add_question(ws, Q.CompareQuestion(run_ids=[ids[0], ids[2]], metric="peak_iops"),
                   title="ACME against Contoso web02: whose storm is worse?")
    Q.add_question(ws, Q.StormQuestion(run_id=ids[1]))
    opt = ReportOptions(title="ACME Corp boot storm review", customer="ACME Corp", consultant="Jane Doe",
                        company="StorageWorks", date="23 November 2026", anonymise=True, full_paths=True,
                        confidential="Confidential: ACME Corp only")
    out = tmp_path / "anon.pdf"
    build_report(ws, opt, str(out), not_imported=[("acme-db02_broken.txt", f"{d}/acme-db02_broken.txt:2: bad value")])
    text = subprocess.run(["pdftotext", str(out), "-"], capture_output=True, text=True, check=True).stdout
    info = subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True, check=True).stdout
    titles = outline_titles(out.read_bytes())
    assert len(titles) >= 6  # the document's title and a bookmark per section
    machine = [str(tmp_path), str(Path.home())] + ([socket.gethostname()] if len(socket.gethostname()) > 3 else [])
    for where, said in (("pages", text), ("metadata", info), ("bookmarks", "\n".join(titles))):
        low = said.lower()
        for s in SECRETS + machine:
            assert s.lower() not in low, f"{s!r} in the {where}"
    # what the reader gets instead: neutral names, the same figures
    assert "Did host 1 (disk device" in text
    assert "The customer boot storm review" in info
    assert "the file of run 1" in text
    assert "site = withheld" in text
    assert "cap_iops = 500" in text
    assert "1 file of the folder could not be read" in text
    # without anonymising, the names are there (the test's names are really in the files)
    plain = tmp_path / "plain.pdf"
    build_report(ws, opt.merged(anonymise=False), str(plain))
    ptext = subprocess.run(["pdftotext", str(plain), "-"], capture_output=True, text=True, check=True).stdout.lower()
    assert all(s in ptext for s in ("acme-db01", "contoso", "sdb", "frankfurt"))


def test_esxtop_vms_are_vm_n_never_device_n(ws, tmp_path):
    """An esxtop run's VMs print as "VM 1", "VM 2" with anonymising on (they printed as "device 13")."""
    from tests.conftest import ROOT

    r = import_file(ws, str(ROOT / "tests" / "fixtures" / "esxtop" / "esxtop_gen_10vms_1lun_queue.csv"),
                    ImportOptions())
    assert r.status == "imported", r.error
    Q.add_question(ws, Q.VmLoadQuestion(run_id=r.run_ids[0]))
    out = tmp_path / "a.pdf"
    build_report(ws, ReportOptions(date="x", anonymise=True), str(out))
    text = " ".join(subprocess.run(["pdftotext", str(out), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    vms = [v for (v,) in ws.con.execute("SELECT DISTINCT vm FROM iostat_samples WHERE vm IS NOT NULL").fetchall()]
    assert vms
    assert not any(v in text for v in vms)
    assert "Load and latency per VM VM Share of commands" in text
    assert re.search(r"VM \d+ \d+\.\d\d %", text)
    assert not re.search(r"device \d+ \d+\.\d\d %", text)
