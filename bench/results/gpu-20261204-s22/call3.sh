#!/usr/bin/env bash
# Session 22's last device call: an exact campaign for the rest of the call, two processes
# of 8 jobs (call 1's fastest layout, 48.5 programs a second), each from seeds of its own.
source bench/results/gpu-20261204-s22/common.sh
build kiln_tool
el "fuzz exact: 2 processes x 8 jobs from 5240001"
secs=$(( $(left) - 20 ))
for s in 5240001 5260001; do
  KILN_FUZZ_REPORT_SECONDS=60 $k fuzz --count 1000000 --seed $s --targets interp,cuda --precision exact --jobs 8 --batch 16 \
    --seconds $secs > $r/fuzz-exact-$s.log 2>&1 &
done
wait
cat $r/fuzz-exact-*.log | grep -E "time budget|^[0-9]+ programs:|^time, summed|^program [0-9]+"
finish
