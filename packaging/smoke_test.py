"""Smoke test of a desktop build (packaging/stormscope.spec), run by `make dist`, `make deb` and
.github/workflows/dist.yml, on the built app or on what an installer installed:

    .venv/bin/python packaging/smoke_test.py dist/StormScope          # Linux, Windows (StormScope.exe ...)
    .venv/bin/python packaging/smoke_test.py dist/StormScope.app      # macOS

0. the layout: both programs where the system looks for them, and every file StormScope reads at run time where
   the frozen code looks (``sys._MEIPASS``): ``_internal/`` beside the programs on Linux and Windows; on macOS the
   programs in ``Contents/MacOS``, the code's folder ``Contents/Frameworks`` and the data files in
   ``Contents/Resources``, reached from Frameworks through PyInstaller's links (:class:`Layout`);
1. ``stormscope-cli --version`` says the checkout's version;
2. ``stormscope-cli import sample_traces --json`` gives the same answer as the checkout's ``main.py`` (a module,
   a font or a data file the build left out shows up as a difference);
3. ``stormscope-cli report`` writes a PDF for a Cyrillic and Greek customer name with the shipped font (read back
   with pdftotext / pdffonts where poppler is installed), and ``export --parquet`` writes the same tables as the
   checkout (pyarrow's parts the build leaves out would show here);
4. the window (the windowed ``StormScope`` program) opens offscreen on that workspace, answers on its local socket
   (app.ui.single_instance), is asked to quit and exits with 0, its log written in the user log folder.

Prints the cold start figures (first start after the build) and exits non-zero at the first failure. Runs with
the build's virtualenv (it needs PySide6 to talk to the window); the built app is run as a user runs it, from a
temporary folder outside the checkout. The layout check runs against mocked Windows and macOS layouts in
`make test` (tests/test_packaging_layouts.py).
"""

from __future__ import annotations

import json
import os
import plistlib
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# what StormScope reads from beside its packages at run time, by path relative to them (stormscope.spec's datas)
DATA = ["pyproject.toml", "docs/user-guide.md", "docs/images/window-overlay.png", "reports/fonts/DejaVuSans.ttf",
        "reports/fonts/DejaVuSans-Bold.ttf", "reports/fonts/LICENSE-DejaVu.txt", "app/ui/icons/stormscope.svg",
        "app/ui/icons/stormscope.png"]
CUSTOMER = "ООО «Ромашка» · Αθηναϊκή Τράπεζα"
TIMEOUT = 120


def fail(message: str) -> NoReturn:
    raise SystemExit(f"smoke test FAILED: {message}")


def system_of(platform: str) -> str:
    return {"win32": "windows", "darwin": "macos"}.get(platform, "linux")


@dataclass(frozen=True)
class Layout:
    """Where a one-folder PyInstaller build (6.x) puts things on each system."""

    system: str  # linux | windows | macos
    root: Path  # dist/StormScope, or dist/StormScope.app
    programs: Path  # the folder of StormScope and stormscope-cli
    code: Path  # sys._MEIPASS: where the frozen code looks for its data
    resources: Path | None  # macOS: where the data files are (a signed bundle seals them there)

    @classmethod
    def of(cls, root: Path, system: str) -> Layout:
        if system == "macos":
            if root.suffix != ".app":
                fail(f"{root}: give the .app (dist/StormScope.app), not a folder inside it")
            c = root / "Contents"
            return cls(system, root, c / "MacOS", c / "Frameworks", c / "Resources")
        return cls(system, root, root, root / "_internal", None)

    def program(self, name: str) -> Path:
        return self.programs / (f"{name}.exe" if self.system == "windows" else name)


def check_layout(layout: Layout) -> None:
    """Both programs, and every file of DATA as the frozen code reads it, the same bytes as the checkout's; on
    macOS the data really in Contents/Resources and the bundle's Info.plist naming the window program."""
    for name in ("StormScope", "stormscope-cli"):
        exe = layout.program(name)
        if not exe.is_file():
            fail(f"no {exe}: build first (make dist)")
    for rel in DATA:
        f = layout.code / rel
        if not f.is_file():
            fail(f"{rel} is not where the frozen code reads it ({f})")
        if f.read_bytes() != (ROOT / rel).read_bytes():
            fail(f"the bundled {rel} differs from the checkout's")
        if layout.resources is not None and not f.resolve().is_relative_to(layout.resources.resolve()):
            fail(f"{rel} is not a resource of the bundle: {f.resolve()} (a data file outside Contents/Resources "
                 "breaks the signature)")
    if layout.system == "macos":
        info = plistlib.loads((layout.root / "Contents" / "Info.plist").read_bytes())
        if info.get("CFBundleExecutable") != "StormScope":
            fail(f"Info.plist starts {info.get('CFBundleExecutable')!r}, not the window program StormScope")
        types = [e for t in info.get("CFBundleDocumentTypes", []) for e in t.get("CFBundleTypeExtensions", [])]
        if "duckdb" not in types:
            fail("Info.plist does not declare StormScope workspaces (.duckdb)")
    print(f"ok  layout ({layout.system}): both programs in {layout.programs.relative_to(layout.root.parent)}, "
          f"{len(DATA)} data files where the code reads them (the user guide, the fonts, the icon, the version)")


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


def check_parquet(cli: Path, ws: Path, work: Path, env: dict[str, str]) -> None:
    """``export --parquet``: the same files, rows and columns as the checkout's export of the same workspace."""
    import pyarrow.parquet as pq

    def export(argv: list[str], out: Path) -> dict[str, tuple[int, list[str]]]:
        run([*argv, "export", "-w", str(ws), "--parquet", str(out)], work, env)
        return {str(f.relative_to(out)): (pq.read_metadata(f).num_rows, pq.read_schema(f).names)
                for f in sorted(out.rglob("*.parquet"))}

    frozen = export([str(cli)], work / "frozen-parquet")
    source = export([sys.executable, str(ROOT / "main.py")], work / "source-parquet")
    if not frozen or frozen != source:
        fail(f"the build's Parquet export differs from the checkout's: {frozen} against {source}")
    print(f"ok  export --parquet: {len(frozen)} files, {sum(n for n, _ in frozen.values()):,} rows, as the checkout")


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


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    layout = Layout.of(Path(argv[0]).absolute(), system_of(sys.platform))
    check_layout(layout)
    cli, window = layout.program("stormscope-cli"), layout.program("StormScope")
    with tempfile.TemporaryDirectory(prefix="stormscope-smoke-") as tmp:
        work = Path(tmp)
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(work / "config"),
                   XDG_STATE_HOME=str(work / "state"), PYTHONUTF8="1")
        os.environ.update(XDG_STATE_HOME=env["XDG_STATE_HOME"])  # where this script looks for the log (Linux)
        version_s = check_version(cli, work, env)
        ws = check_import(cli, work, env)
        check_report(cli, ws, work, env)
        check_parquet(cli, ws, work, env)
        window_s = check_window(window, ws, work, env)
    print(f"smoke test passed: command line --version {version_s:.2f} s, window listening after {window_s:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
