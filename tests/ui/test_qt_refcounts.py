"""Signals must not leak references to None, True and False.

PySide6 6.12.0's ``SignalInstance.emit()`` returns ``True`` without a reference of its own: each emit lowers
``sys.getrefcount(True)`` by one, and the interpreter aborts ("Fatal Python error: bool_dealloc") once the count
reaches zero -- the window died that way after about half an hour of use. The pin in requirements.txt avoids that
release. This test emits every kind of signal the app uses thousands of times, from Python and from Qt's own
widgets, within one thread and across threads, and requires the three refcounts to be unchanged
(within a small slack for caches; a leak moves them by one per emit).

It runs in a subprocess so that a leaking release fails the test (with the abort in its output) instead of killing
pytest.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

N = 5000

PROBE = textwrap.dedent(
    f"""
    import sys
    from PySide6.QtCore import QObject, QThread, Signal
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QLineEdit, QSpinBox

    app = QApplication([])
    SLACK = 50  # a few references come and go with caches; a leak moves a count by one per emit ({N} here)

    class Emitter(QObject):
        b = Signal(bool)
        o = Signal(object)
        i = Signal(int)
        s = Signal(str)
        lst = Signal(list)
        fs = Signal(float, str)
        bare = Signal()

    e = Emitter()
    got = []
    for sig in (e.b, e.o, e.i, e.s, e.lst, e.fs, e.bare):
        sig.connect(lambda *a: got.append(len(a)))

    def refs():
        return sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False)

    box, combo, line, spin = QCheckBox(), QComboBox(), QLineEdit(), QSpinBox()
    combo.addItems(["a", "b"])
    action = QAction("x", checkable=True)
    for sig in (box.toggled, combo.currentIndexChanged, line.textChanged, spin.valueChanged, action.triggered):
        sig.connect(lambda *a: got.append(len(a)))

    cases = {{
        "Signal(bool) True": lambda: e.b.emit(True),
        "Signal(bool) False": lambda: e.b.emit(False),
        "Signal(object) None": lambda: e.o.emit(None),
        "Signal(object) True": lambda: e.o.emit(True),
        "Signal(int)": lambda: e.i.emit(7),
        "Signal(str)": lambda: e.s.emit("x"),
        "Signal(list)": lambda: e.lst.emit([1, None, True]),
        "Signal(float, str)": lambda: e.fs.emit(0.5, "m"),
        "Signal()": lambda: e.bare.emit(),
        "QCheckBox.toggled (bool from Qt)": box.toggle,
        "QComboBox.currentIndexChanged (int from Qt)": lambda: combo.setCurrentIndex(1 - combo.currentIndex()),
        "QLineEdit.textChanged (str from Qt)": lambda: line.setText("a" if line.text() != "a" else "b"),
        "QSpinBox.valueChanged (int from Qt)": lambda: spin.setValue(1 - spin.value()),
        "QAction.triggered (checked bool from Qt)": action.trigger,
    }}
    bad = []
    for name, fire in cases.items():
        for _ in range(10):
            fire()
        before = refs()
        for _ in range({N}):
            fire()
        got.clear()
        delta = [a - b for a, b in zip(refs(), before)]
        print(name, delta)
        if any(abs(d) > SLACK for d in delta):
            bad.append(name)

    class Worker(QThread):  # a job thread reporting progress and its result, as app.ui.workers does
        def run(self):
            for k in range({N}):
                e.fs.emit(k / {N}, "loading")
                e.o.emit(None if k % 2 else True)

    before = refs()
    w = Worker()
    w.start()
    while not w.wait(10):
        app.processEvents()
    app.processEvents()
    got.clear()
    delta = [a - b for a, b in zip(refs(), before)]
    print("queued across threads", delta)
    if any(abs(d) > SLACK for d in delta):
        bad.append("queued across threads")
    print("LEAKS:", ", ".join(bad) if bad else "none")
    sys.exit(1 if bad else 0)
    """
)


def test_signals_leave_the_refcounts_of_none_true_false_unchanged():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    out = r.stdout + r.stderr
    assert r.returncode == 0, f"signal emission leaks references (exit {r.returncode}):\n{out[-3000:]}"
    assert "LEAKS: none" in r.stdout
    assert r.stdout.count("\n") == 16, out  # 15 cases and the verdict
