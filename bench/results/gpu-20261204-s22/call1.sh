#!/usr/bin/env bash
# Written at the end of session 21 for the next session's first device call (not yet run):
# where a cuda campaign's time goes, and whether several processes check more programs a
# second than one process of many jobs. Session 21's campaigns checked 27.5-34.7 programs a
# second with 16 jobs, where NVRTC takes 0.17 s a program on one core: about 6 cores' worth
# of 16. `kiln fuzz` now ends with where the jobs' time went (each target's runs, the batches
# compiled ahead, the rest); on the 2-core machine, idle, two jobs compile twice as fast as
# one (NVRTC scales: 4.38 -> 2.35 s for 32 programs, docs/fuzzing.md).
# Then exact campaigns with the fastest layout to the call's end. Seeds carry on from
# session 21's exact campaign (3801521..3817504): each process takes a range of its own.
source bench/results/gpu-20261204-s22/common.sh
build kiln_tool
# `procs` processes of `jobs` jobs each, for `secs` seconds, in precision $1, process i from
# seed $2 + i * 20000; prints the programs a second of all of them together.
campaigns() {
  local prec=$1 seed=$2 procs=$3 jobs=$4 secs=$5 name=$6
  el "fuzz $prec: $procs processes x $jobs jobs from $seed for $secs s ($name)"
  for ((i = 0; i < procs; i++)); do
    local s=$((seed + i * 20000))
    KILN_FUZZ_REPORT_SECONDS=60 $k fuzz --count 1000000 --seed $s --targets interp,cuda --precision $prec --jobs $jobs --batch 16 \
      --seconds $secs > $r/fuzz-$name-$s.log 2>&1 &
  done
  wait
  cat $r/fuzz-$name-*.log | grep -E "time budget|^[0-9]+ programs:|^time, summed|^program [0-9]+"
  cat $r/fuzz-$name-*.log | awk -v secs=$secs -v name=$name '/^[0-9]+ programs:/ { n += $1 } END { printf "%s: %d programs, %.1f a second\n", name, n, n / secs }' | tee -a $r/rates.txt
}
campaigns exact 3820001 1 16 60 p1x16
campaigns exact 3830001 2 8 60 p2x8
campaigns exact 3870001 4 4 60 p4x4
campaigns exact 3950001 1 32 60 p1x32
# The rest of the call with the layout that checked the most (each its own seeds again).
best=$(sort -n -k4 $r/rates.txt | tail -1 | cut -d: -f1)
el "best layout: $best"
case $best in
  p2x8) campaigns exact 5200001 2 8 $(( $(left) - 20 )) rest ;;
  p4x4) campaigns exact 5200001 4 4 $(( $(left) - 20 )) rest ;;
  p1x32) campaigns exact 5200001 1 32 $(( $(left) - 20 )) rest ;;
  *) campaigns exact 5200001 1 16 $(( $(left) - 20 )) rest ;;
esac
finish
