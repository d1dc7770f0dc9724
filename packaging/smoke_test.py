"""Smoke test of a desktop build (packaging/stormscope.spec), run by `make dist` and .github/workflows/dist.yml:

    .venv/bin/python packaging/smoke_test.py dist/StormScope               # Linux, Windows
    .venv/bin/python packaging/smoke_test.py dist/StormScope.app/Contents/MacOS

1. ``stormscope-cli --version`` says the checkout's version;
2. ``stormscope-cli import sample_traces --json`` gives the same answer as the checkout's ``main.py`` (a module,
   a font or a data file the build left out shows up as a difference);
3. ``stormscope-cli report`` writes a PDF for a Cyrillic and Greek customer name with the shipped font (read back
   with pdftotext / pdffonts where poppler is installed);
4. the window (the windowed ``StormScope`` program) opens offscreen on that workspace, answers on its local socket
   (app.ui.single_instance), is asked to quit and exits with 0, its log written in the user log folder.

Prints the cold start figures (first start after the build) and exits non-zero at the first failure. Runs with
the build's virtualenv (it needs PySide6 to talk to the window); the built app is run as a user runs it, from a
temporary folder outside the checkout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
EXE = ".exe" if sys.platform == "win32" else ""
CUSTOMER = "ООО «Ромашка» · Αθηναϊκή Τράπεζα"
TIMEOUT = 120


def fail(message: str) -> None:
    raise SystemExit(f"smoke test FAILED: {message}")


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, encoding="utf-8", timeout=TIMEOUT)
    if p.returncode != 0:
        fail(f"{' '.join(argv)} exited with {p.returncode}:\n{p.stdout[-2000:]}\n{p.stderr[-4000:]}")
    return p


def check_version(cli: Path, work: Path, env: dict[str, str]) -> float:
    expected = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    t = time.perf_counter()
    out = run([str(cli), "--version"], work, env).stdout
    took = time.perf_counter() - t
    if out.strip() != f"StormScope {expected}":
        fail(f"--version printed {out!r}, expected StormScope {expected}")
    print(f"ok  --version: {out.strip()} ({took:.2f} s)")
    return took


def _import(argv: list[str], ws: Path, work: Path, env: dict[str, str]) -> list[dict[str, object]]:
    result = json.loads(run([*argv, "import", str(ROOT / "sample_traces"), "-w", str(ws), "--json"], work,
                            env).stdout)
    for r in result:
        r.pop("path", None)  # the same files either way
    return result


def check_import(cli: Path, work: Path, env: dict[str, str]) -> Path:
    ws = work / "frozen.duckdb"
    frozen = _import([str(cli)], ws, work, env)
    source = _import([sys.executable, str(ROOT / "main.py")], work / "source.duckdb", work, env)
    if frozen != source:
        fail("the build's import differs from the checkout's:\n" + json.dumps(frozen, indent=1)[:3000])
    imported = sum(r["status"] == "imported" for r in frozen)
    if imported < 5:
        fail(f"only {imported} sample traces imported")
    print(f"ok  import sample_traces --json: {imported} imported, the same answer as the checkout")
    return ws


def check_report(cli: Path, ws: Path, work: Path, env: dict[str, str]) -> None:
    pdf = work / "report.pdf"
    run([str(cli), "report", "-w", str(ws), "--customer", CUSTOMER, "-o", str(pdf)], work, env)
    data = pdf.read_bytes()
    if not data.startswith(b"%PDF") or len(data) < 20_000:
        fail(f"{pdf} is not a report ({len(data)} bytes)")
    said = f"{len(data):,} bytes"
    if shutil.which("pdftotext") and shutil.which("pdffonts"):
        text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, encoding="utf-8",
                              check=True).stdout
        if CUSTOMER not in " ".join(text.split()):
            fail("the customer's Cyrillic / Greek name is not in the PDF's text")
        fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
        if "DejaVuSans" not in fonts:
            fail(f"the shipped DejaVu Sans is not embedded:\n{fonts}")
        said += ", the Cyrillic and Greek name read back, DejaVu Sans embedded"
    print(f"ok  report: {said}")


def check_window(window: Path, ws: Path, work: Path, env: dict[str, str]) -> float:
    from PySide6.QtCore import QCoreApplication

    from app.crashlog import LOG_FILE, log_dir
    from app.ui.single_instance import send

    app = QCoreApplication.instance() or QCoreApplication([])  # QLocalSocket's home
    t = time.perf_counter()
    proc = subprocess.Popen([str(window), "-w", str(ws)], cwd=work, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        while send(ws, {"ping": True}) is None:
            if proc.poll() is not None:
                out, err = proc.communicate()
                fail(f"the window exited with {proc.returncode} before it listened:\n{out[-2000:]}\n{err[-4000:]}")
            if time.perf_counter() - t > TIMEOUT:
                fail("the window did not listen within two minutes")
            time.sleep(0.05)
        started = time.perf_counter() - t
        if send(ws, {"quit": True}) is None:
            fail("the window did not take the quit message")
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    if proc.returncode != 0 or "Traceback" in err:
        fail(f"the window exited with {proc.returncode}:\n{err[-4000:]}")
    del app
    log = log_dir() / LOG_FILE
    if not log.is_file() or "(frozen build)" not in log.read_text(encoding="utf-8"):
        fail(f"the window wrote no log at {log}")
    print(f"ok  window: open and listening after {started:.2f} s, closed with exit code 0, log at {log}")
    return started


def check_guide(folder: Path) -> None:
    """Help > User guide reads docs/user-guide.md beside the packages: the build carries it beside pyproject.toml
    (which --version reads from the same place), unchanged."""
    found = [p.parent / "docs" / "user-guide.md" for p in folder.rglob("pyproject.toml")]
    if not found or not all(g.is_file() for g in found):
        fail(f"the user guide is not bundled beside pyproject.toml (looked for {[str(g) for g in found]})")
    if any(g.read_bytes() != (ROOT / "docs" / "user-guide.md").read_bytes() for g in found):
        fail("the bundled user guide differs from docs/user-guide.md")
    print("ok  the user guide is bundled where Help > User guide reads it")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    folder = Path(sys.argv[1]).resolve()
    cli, window = folder / f"stormscope-cli{EXE}", folder / f"StormScope{EXE}"
    for exe in (cli, window):
        if not exe.is_file():
            fail(f"no {exe}: build first (make dist)")
    check_guide(folder)
    with tempfile.TemporaryDirectory(prefix="stormscope-smoke-") as tmp:
        work = Path(tmp)
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(work / "config"),
                   XDG_STATE_HOME=str(work / "state"), PYTHONUTF8="1")
        os.environ.update(XDG_STATE_HOME=env["XDG_STATE_HOME"])  # where this script looks for the log (Linux)
        version_s = check_version(cli, work, env)
        ws = check_import(cli, work, env)
        check_report(cli, ws, work, env)
        window_s = check_window(window, ws, work, env)
    print(f"smoke test passed: command line --version {version_s:.2f} s, window listening after {window_s:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
