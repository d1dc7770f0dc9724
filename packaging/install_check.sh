#!/usr/bin/env bash
# What `pipx install .` gives a user, checked in a throwaway virtualenv (`make install-check`, .ci/run):
# `pip install .` from this checkout, then the installed `stormscope` run from / (nothing of the checkout on the
# path): --version, an import of the sample traces with --json, a report; the wheel's one folder (stormscope/) and
# no generic top-level name, the pinned versions chosen, Help > User guide from the installed files. Exit non-zero at
# the first failure.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
TMP="$(mktemp -d /tmp/stormscope-install-check.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
start=$(date +%s)
"$PYTHON" -m venv "$TMP/venv"
"$TMP/venv/bin/python" -m pip install --quiet --upgrade pip
"$TMP/venv/bin/python" -m pip install --quiet "$ROOT"
installed=$(( $(date +%s) - start ))
S="$TMP/venv/bin/stormscope"
test -x "$TMP/venv/bin/stormscope-gui"
cd /
unset PYTHONPATH
expected="StormScope $(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/pyproject.toml" | head -1)"
got="$("$S" --version)"
[ "$got" = "$expected" ] || { echo "install check FAILED: --version printed '$got', expected '$expected'"; exit 1; }
V="$TMP/venv/bin/python"
# one folder in site-packages, stormscope/: no top-level name of the repository (app, parsers, reports, main) claimed
tops="$("$V" - <<'PY'
from importlib.metadata import distribution
d = distribution("stormscope")
print(" ".join(sorted({f.parts[0] for f in d.files if not f.parts[0].startswith("..")})))
PY
)"
[ "$tops" = "stormscope stormscope-${expected#StormScope }.dist-info" ] \
  || { echo "install check FAILED: the wheel installs these top-level names: $tops"; exit 1; }
"$V" -c 'import importlib.util as u, sys; sys.exit(any(u.find_spec(n) for n in ("app", "parsers", "reports", "main")))' \
  || { echo "install check FAILED: a top-level app, parsers, reports or main is importable"; exit 1; }
# the pinned versions, nothing else: what `pip install .` chose is exactly requirements.txt
chosen="$("$V" -m pip freeze --exclude pip --exclude stormscope | tr 'A-Z_' 'a-z-' | sort)"
pinned="$(sed -e 's/#.*//' -e 's/ //g' -e '/^$/d' "$ROOT/requirements.txt" | tr 'A-Z_' 'a-z-' | sort)"
[ "$chosen" = "$pinned" ] || { echo "install check FAILED: pip chose"; diff <(echo "$pinned") <(echo "$chosen"); exit 1; }
# Help > User guide: the window's guide opens from the installed files (offscreen)
QT_QPA_PLATFORM=offscreen "$V" - <<'PY' || { echo "install check FAILED: Help > User guide does not open"; exit 1; }
import stormscope.main  # puts its folder on sys.path, as the stormscope command does
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.ui.guide import GUIDE, GuideWindow
assert GUIDE.is_file() and "site-packages/stormscope/docs" in GUIDE.as_posix(), GUIDE
guide = GuideWindow()
assert "The window" in guide.browser.toPlainText()
PY
"$S" import "$ROOT/sample_traces" -w "$TMP/ws.duckdb" --json > "$TMP/import.json" || true  # exit 1: README.md etc.
imported=$(grep -c '"status": "imported"' "$TMP/import.json")
[ "$imported" -ge 5 ] || { echo "install check FAILED: $imported sample traces imported"; cat "$TMP/import.json"; exit 1; }
"$S" report -w "$TMP/ws.duckdb" --customer "ООО «Ромашка» · Αθηναϊκή Τράπεζα" -o "$TMP/report.pdf" > /dev/null
head -c 4 "$TMP/report.pdf" | grep -q '%PDF' || { echo "install check FAILED: no PDF"; exit 1; }
if command -v pdftotext > /dev/null; then
  pdftotext "$TMP/report.pdf" - | tr -s ' \n' '  ' | grep -q "Ромашка» · Αθηναϊκή" \
    || { echo "install check FAILED: the customer's name is not in the PDF"; exit 1; }
fi
echo "install check passed: pip install . in ${installed} s (pinned versions, one folder stormscope/); from /: $got," \
  "$imported sample traces imported, a report, the user guide"
