#!/bin/sh
# Run by the guest image's field-rig.service once the system is up: the suite, as root.
out=/mnt/rig/out
echo "field rig: suite starting" >/dev/console
python3 /mnt/rig/guest/suite.py /mnt/rig >"$out/suite.log" 2>&1
echo "field rig: suite finished ($?)" >/dev/console
sync
