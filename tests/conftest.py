import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CORPUS = Path(os.environ.get("STORMSCOPE_CORPUS", ROOT.parent / "shared" / "corpus"))
SAMPLES = ROOT / "sample_traces"
GOLDEN = ROOT / "tests" / "golden"
REGEN = os.environ.get("STORMSCOPE_REGEN_GOLDEN") == "1"


# a small, valid `iostat -xt` log (two reports) for tests of import, CLI and window behaviour
GOOD = """Linux 5.15.0 (vdi-host) \t03/14/2024 \t_x86_64_\t(4 CPU)

03/14/2024 10:00:00 AM
Device            r/s     w/s     rkB/s     wkB/s  %util
sda             10.00   20.00     40.00     80.00   5.00

03/14/2024 10:00:05 AM
Device            r/s     w/s     rkB/s     wkB/s  %util
sda             11.00   21.00     44.00     84.00   6.00

"""


def corpus_files(folder: str) -> list[Path]:
    d = CORPUS / folder
    if not d.is_dir():
        return []
    return sorted(p for p in d.iterdir() if p.is_file())


needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not found at {CORPUS}")


@pytest.fixture
def ws(tmp_path):
    from app.workspace import Workspace

    w = Workspace(tmp_path / "ws.duckdb")
    yield w
    w.close()


@pytest.fixture
def write(tmp_path):
    """Write a text file into tmp_path and return its path."""

    def _write(name: str, text: str | bytes) -> str:
        p = tmp_path / name
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text)
        return str(p)

    return _write


@pytest.fixture(scope="session", autouse=True)
def _release_qt_objects_before_exit():
    """Delete every Qt object (and the DuckDB handles its slots hold) while the interpreter is whole:
    left to interpreter shutdown, their collection can crash inside the C extensions."""
    yield
    import gc
    import sys

    if "PySide6.QtWidgets" not in sys.modules:
        return
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is not None:
        for w in app.topLevelWidgets():
            w.close()
            w.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        app.processEvents()
    gc.collect()


def pytest_unconfigure(config):
    """Leave without the interpreter's final garbage collection once Qt has been used.

    With PySide6 6.12 and DuckDB 2.0 loaded together, collecting the last Qt wrappers during
    interpreter shutdown can abort the process ("bool_dealloc", a refcount bug in a C extension)
    after every test has passed. The results are already reported here, so exit at once with
    pytest's status; the window does the same after its event loop ends (app.ui.main_window).
    """
    import os
    import sys

    if "PySide6.QtWidgets" in sys.modules:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(config._stormscope_status if hasattr(config, "_stormscope_status") else 0)


def pytest_sessionfinish(session, exitstatus):
    session.config._stormscope_status = int(exitstatus)
