#!/usr/bin/env bash
# What `pipx install .` gives a user, checked in a throwaway virtualenv (`make install-check`, .ci/run):
# `pip install .` from this checkout, then the installed `stormscope` run from / (nothing of the checkout on the
# path): --version, an import of the sample traces with --json, a report. Exit non-zero at the first failure.
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
# the installed packages, not the checkout's
where="$("$TMP/venv/bin/python" -c 'import app, reports; print(app.__file__, reports.__file__)')"
case "$where" in "$TMP/venv/"*" $TMP/venv/"*) ;; *) echo "install check FAILED: imported from $where"; exit 1;; esac
"$S" import "$ROOT/sample_traces" -w "$TMP/ws.duckdb" --json > "$TMP/import.json" || true  # exit 1: README.md etc.
imported=$(grep -c '"status": "imported"' "$TMP/import.json")
[ "$imported" -ge 5 ] || { echo "install check FAILED: $imported sample traces imported"; cat "$TMP/import.json"; exit 1; }
"$S" report -w "$TMP/ws.duckdb" --customer "ООО «Ромашка» · Αθηναϊκή Τράπεζα" -o "$TMP/report.pdf" > /dev/null
head -c 4 "$TMP/report.pdf" | grep -q '%PDF' || { echo "install check FAILED: no PDF"; exit 1; }
if command -v pdftotext > /dev/null; then
  pdftotext "$TMP/report.pdf" - | tr -s ' \n' '  ' | grep -q "Ромашка» · Αθηναϊκή" \
    || { echo "install check FAILED: the customer's name is not in the PDF"; exit 1; }
fi
echo "install check passed: pip install . in ${installed} s; from /: $got, $imported sample traces imported, a report"
