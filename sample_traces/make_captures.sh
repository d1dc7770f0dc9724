#!/usr/bin/env bash
# Re-make the StormScope sample captures (see README.md in this folder).
#
# Usage (as root, needs sysstat and fio: apt-get install -y sysstat fio):
#   ./make_captures.sh                 # all captures
#   ./make_captures.sh storm_fast capped_200iops   # only some of them
# Capture names: storm_fast storm_slow storm_json capped_200iops
#                fio_randrw_jsonplus fio_randread_lat_limited
#
# Environment:
#   SS_FIO_DIR   scratch directory for the fio data files (default /tmp/stormscope_fio;
#                must be on the block device you want to measure). 1 GiB is written there
#                and deleted again at the end.
#   IOSTAT_DEVS  devices iostat reports on (default "vda zram0": vda is the disk behind
#                / and /tmp on the capture machine, zram0 an idle second device).
#   OUT_DIR      where captures are written (default: the folder of this script).
#
# Not run by the tests: it takes about 6 minutes and needs a real block device.
set -euo pipefail

export LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd)
JOBS="$HERE/fio_jobs"
OUT_DIR=${OUT_DIR:-$HERE}
export SS_FIO_DIR=${SS_FIO_DIR:-/tmp/stormscope_fio}
read -r -a DEVS <<< "${IOSTAT_DEVS:-vda zram0}"
SCRATCH=$(mktemp -d /tmp/stormscope_scratch.XXXXXX)

cleanup() {
    rm -rf "$SCRATCH"
    rm -f "$SS_FIO_DIR"/storm?.dat "$SS_FIO_DIR"/capped.dat "$SS_FIO_DIR"/randrw.?.dat
    rmdir "$SS_FIO_DIR" 2>/dev/null || true
}
trap cleanup EXIT

settle() { sync; sleep "${1:-5}"; }

prepare() {
    mkdir -p "$SS_FIO_DIR"
    echo ">> laying out fio data files in $SS_FIO_DIR" >&2
    fio "$JOBS/prepare.fio" > "$SCRATCH/prepare.out"
    settle 10
}

# iostat in the background, fio in the foreground, started together.
# $1 = output file, $2 = fio job file, rest = iostat arguments (before the device list)
iostat_during_fio() {
    local out=$1 job=$2; shift 2
    echo ">> $(basename "$out"): iostat $* ${DEVS[*]}  +  fio $(basename "$job")" >&2
    iostat "$@" "${DEVS[@]}" > "$out" &
    local ipid=$!
    fio "$job" > "$SCRATCH/$(basename "$job").out"
    wait "$ipid"
    settle 5
}

storm_fast()     { iostat_during_fio "$OUT_DIR/storm_fast_iostat-xt.txt"   "$JOBS/storm_fast.fio"       -xt -y 1 60; }
storm_slow()     { iostat_during_fio "$OUT_DIR/storm_slow_iostat-xt.txt"   "$JOBS/storm_slow.fio"       -xt -y 1 95; }
storm_json()     { iostat_during_fio "$OUT_DIR/storm_fast_iostat-json.json" "$JOBS/storm_fast_short.fio" -o JSON -xt 1 20; }

capped_200iops() {
    # fio first (the capped job runs 64 s), iostat 2 s later for 30 reports (58 s).
    local out="$OUT_DIR/capped_200iops_iostat-d.txt"
    echo ">> $(basename "$out"): fio capped_200iops.fio  +  iostat -d 2 30 ${DEVS[*]}" >&2
    fio "$JOBS/capped_200iops.fio" > "$SCRATCH/capped.out" &
    local fpid=$!
    sleep 2
    iostat -d 2 30 "${DEVS[@]}" > "$out"
    wait "$fpid"
    settle 5
}

fio_randrw_jsonplus() {
    echo ">> fio_randrw_jsonplus.json" >&2
    fio --output-format=json+ "$JOBS/randrw_jsonplus.fio" > "$OUT_DIR/fio_randrw_jsonplus.json"
    settle 5
}

fio_randread_lat_limited() {
    echo ">> fio_randread_lat_limited.json" >&2
    fio --output-format=json "$JOBS/randread_lat_limited.fio" > "$OUT_DIR/fio_randread_lat_limited.json"
}

ALL=(storm_fast storm_slow storm_json capped_200iops fio_randrw_jsonplus fio_randread_lat_limited)
[ $# -gt 0 ] && ALL=("$@")

iostat -V >&2
fio --version >&2
prepare
for c in "${ALL[@]}"; do
    "$c"
done
echo ">> done" >&2
