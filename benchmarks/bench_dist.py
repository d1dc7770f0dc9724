"""Start-up of desktop builds (make dist), against the checkout as the yardstick, in alternating rounds.

    python benchmarks/bench_dist.py ROUNDS BUILD [BUILD...]     # e.g. 5 dist/StormScope /tmp/old/StormScope

Each round starts, in turn for every build and then the checkout (``python main.py``): ``stormscope-cli --version``
(the command line's start), and the window on a workspace of the sample traces, offscreen, timed until it answers
on its local socket (as packaging/smoke_test.py does), then asked to quit. Prints the medians and each build's ratio
to the checkout; also the size of each build. Run with the build's virtualenv (PySide6 talks to the window). The page
cache is warm after the first round: these are warm starts.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
from smoke_test import Layout, check_window, system_of  # noqa: E402


def size_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink()) / 2**20


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - t


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    rounds = int(argv[0])
    builds = [Layout.of(Path(b).absolute(), system_of(sys.platform)) for b in argv[1:]]
    names = [str(b.root) for b in builds] + ["checkout (python main.py)"]
    cli = [[str(b.program("stormscope-cli"))] for b in builds] + [[sys.executable, str(ROOT / "main.py")]]
    window = [[str(b.program("StormScope"))] for b in builds] + [[sys.executable, str(ROOT / "main.py"), "gui"]]
    with tempfile.TemporaryDirectory(prefix="stormscope-bench-dist-") as tmp:
        work = Path(tmp)
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(work / "config"),
                   XDG_STATE_HOME=str(work / "state"), PYTHONUTF8="1")
        os.environ.update(XDG_STATE_HOME=env["XDG_STATE_HOME"])
        ws = work / "ws.duckdb"
        subprocess.run([*cli[-1], "import", str(ROOT / "sample_traces"), "-w", str(ws)], env=env,
                       capture_output=True, check=False)
        versions: list[list[float]] = [[] for _ in names]
        windows: list[list[float]] = [[] for _ in names]
        for r in range(rounds):
            for i in range(len(names)):
                versions[i].append(timed([*cli[i], "--version"], work, env))
                windows[i].append(_window(window[i], ws, work, env))
            print(f"round {r + 1}/{rounds} done", flush=True)
    base_v, base_w = statistics.median(versions[-1]), statistics.median(windows[-1])
    print(f"\n{'':48} {'--version':>10} {'ratio':>6} {'window':>8} {'ratio':>6} {'size':>8}")
    for i, name in enumerate(names):
        v, w = statistics.median(versions[i]), statistics.median(windows[i])
        size = f"{size_mb(builds[i].root):,.0f} MB" if i < len(builds) else ""
        print(f"{name[-48:]:48} {v:9.2f}s {v / base_v:6.2f} {w:7.2f}s {w / base_w:6.2f} {size:>8}")
    return 0


def _window(argv: list[str], ws: Path, work: Path, env: dict[str, str]) -> float:
    import contextlib
    import io

    if len(argv) == 1:  # a build: the smoke test's own check
        with contextlib.redirect_stdout(io.StringIO()):
            return check_window(Path(argv[0]), ws, work, env)
    wrapper = work / "checkout-window.sh"  # the checkout: ``python main.py gui`` as one program
    wrapper.write_text("#!/bin/sh\nexec " + " ".join(f"'{a}'" for a in argv) + ' "$@"\n')
    wrapper.chmod(0o755)
    with contextlib.redirect_stdout(io.StringIO()):
        return _checkout_window(wrapper, ws, work, env)


def _checkout_window(wrapper: Path, ws: Path, work: Path, env: dict[str, str]) -> float:
    """check_window wants the frozen build's log line; the checkout's window is timed the same way without it."""
    from PySide6.QtCore import QCoreApplication

    from app.ui.single_instance import send

    app = QCoreApplication.instance() or QCoreApplication([])
    t = time.perf_counter()
    proc = subprocess.Popen([str(wrapper), "-w", str(ws)], cwd=work, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        while send(ws, {"ping": True}) is None:
            if proc.poll() is not None:
                raise SystemExit("the checkout's window exited before it listened")
            time.sleep(0.05)
        started = time.perf_counter() - t
        send(ws, {"quit": True})
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    del app
    return started


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
