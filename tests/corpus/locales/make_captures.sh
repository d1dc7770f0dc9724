#!/bin/sh
# How the captures in tests/corpus/locales/ were made (tests/corpus/MANIFEST.md, "locales").
#
# Debian 12 VM (Linux 6.18.44, 2 vCPUs), as root, with Debian's sysstat 12.6.1, faketime 0.9.10 (libfaketime) and
# the locales package (glibc 2.36), each locale generated with `localedef -i xx_YY -f UTF-8 xx_YY.UTF-8`.
# faketime starts the clock of iostat / sar (and sadc under sar) at the date given, then lets it run: the
# captures cross midnight and month or year ends on the days chosen, in real one-second intervals.
#
# Devices: vda (the VM's root disk, virtio, major 254), zram0 (major 253, 64 MiB) and the first free loop device
# (major 7; loop1 on the day: another job had loop0 on a file of vda) set up over zram0 with direct I/O -- every
# request to it reaches zram0: a real stacked device. A background load writes and reads it and writes a file on
# vda with O_DIRECT while the captures run.
set -eu
OUT=${1:-.}
LOCALES=${LOCALES:-"en_US en_GB de_DE fr_FR es_ES it_IT pt_BR ja_JP zh_CN ru_RU ko_KR el_GR nl_NL tr_TR"}
export TZ=UTC

echo 64M > /sys/block/zram0/disksize
LOOP=$(losetup --direct-io=on --show -f /dev/zram0)

( while :; do
    dd if=/dev/urandom of=$LOOP bs=64k count=32 seek=$(shuf -i 0-900 -n 1) oflag=direct 2>/dev/null
    dd if=$LOOP of=/dev/null bs=16k count=64 skip=$(shuf -i 0-3000 -n 1) iflag=direct 2>/dev/null
    dd if=/dev/zero of=/var/tmp/locales-load.bin bs=256k count=8 oflag=direct conv=notrunc 2>/dev/null
    sleep 0.2
  done ) &
LOAD=$!
trap 'kill $LOAD; losetup -d $LOOP; echo 1 > /sys/block/zram0/reset; rm -f /var/tmp/locales-load.bin' EXIT
sleep 2

for L in $LOCALES; do
  run() {  # run NAME START COMMAND...: the command in locale L, its clock started at START
    name=$1; start=$2; shift 2
    LC_ALL=$L.UTF-8 faketime "$start" "$@" > "$OUT/${L}_$name.txt"
  }
  run iostat-x-t_midnight  "2026-03-05 23:59:57" iostat -x -t 1 6
  run iostat-x-t_year-end  "2026-12-31 23:59:57" iostat -x -t 1 6
  run iostat-x-t_day       "2026-03-05 10:15:00" iostat -x -t 1 4
  run sar-d-p_midnight     "2026-03-05 23:59:57" sar -d -p 1 6
  run sar-d_month-end      "2026-04-30 23:59:57" sar -d 1 6
  run sar-d-p_day          "2026-03-05 10:15:00" sar -d -p 1 4
done
for L in en_GB de_DE ja_JP; do
  LC_ALL=$L.UTF-8 faketime "2026-03-05 23:59:57" iostat -x -t -o JSON 1 5 > "$OUT/${L}_iostat-x-t-JSON_midnight.json"
done
LC_ALL=C faketime "2026-03-05 10:15:00" iostat -x -t 1 4 > "$OUT/C_iostat-x-t_day.txt"
LC_ALL=C faketime "2026-03-05 10:15:00" sar -d -p 1 4 > "$OUT/C_sar-d-p_day.txt"
