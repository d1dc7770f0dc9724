"""The real window, driven offscreen through 1,000 interactions in a subprocess, must close and exit 0.

An abort (a refcount bug in a C extension, say) kills only the subprocess and fails this test with its output;
an exception raised in a slot fails it too. `make soak` runs a longer one.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_window_survives_1000_interactions_and_exits_normally():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    r = subprocess.run([sys.executable, str(ROOT / "tests" / "soak_window.py"), "1000", "7"], capture_output=True,
                       text=True, timeout=900, cwd=ROOT, env=env)
    out = (r.stdout + r.stderr)[-4000:]
    assert r.returncode == 0, f"the window's process ended with {r.returncode}:\n{out}"
    assert "soak: 1000 interactions, exit 0" in r.stdout, out
