#!/usr/bin/env bash
# Written at the end of session 22 (not yet run): a standard-precision campaign for a
# whole call, two processes of 8 jobs (session 22's fastest layout), on seeds after
# this session's 4720001..4730352 and 4740001..4750224. With the shared divisor off (the
# default) the generic kernels are emitted as in a605f61: these add to 39,664.
source bench/results/gpu-20261204-s22/common.sh
build kiln_tool
secs=$(( $(left) - 20 ))
el "fuzz standard: 2 processes x 8 jobs from 4760001 and 4780001 for $secs s"
for s in 4760001 4780001; do
  KILN_FUZZ_REPORT_SECONDS=60 $k fuzz --count 1000000 --seed $s --targets interp,cuda --precision standard --jobs 8 --batch 16 \
    --seconds $secs > $r/fuzz-standard-$s.log 2>&1 &
done
wait
cat $r/fuzz-standard-*.log | grep -E "time budget|^[0-9]+ programs:|^precision standard|^time, summed|^program [0-9]+"
finish
