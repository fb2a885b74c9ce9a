#!/usr/bin/env bash
# Session 31, device call 1b (chained on call 1's warm machine; from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261205-s31/call1b.sh
# With the rotated schedule the first key block takes the loop's forms, so two forms of the
# softmax (KILN_ATTENTION_BLOCK_FORMS=2: the interior one and the general one) no longer
# send it to the general form (offline: a further 600-900 SASS instructions fewer);
# session 17 measured two forms 2-10% slower at 1k-2k keys with the prologue. A/B of
# rotated + 3 forms against rotated + 2 forms at 1k, 2k and 4k keys; the overlapped
# schedule at d 256 (rotated) against today's serial one; then the exact campaign.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_attention_bench
el "A/B forms (rotated): 3 against 2, alternating"
for rep in 1 2; do
  for f in 3 2; do
    for shape in "bf16 16x32x1024x1024" "bf16 8x32x2048x2048" "bf16 4x32x4096x4096 d128"; do
      tag=$(echo $shape | tr ' ' '_')
      KILN_ATTENTION_ROTATED=1 KILN_ATTENTION_BLOCK_FORMS=$f timeout 60 build-gpu/bench/kiln_attention_bench $r/forms$f-$tag-$rep.json "$shape" fast > $r/forms$f-$tag-$rep.log 2>&1
      echo "forms=$f $shape rep $rep rc $?"; grep -E " ms " $r/forms$f-$tag-$rep.log | head -6
    done
  done
done
el "A/B at d 256: overlapped and rotated (KILN_ATTENTION_OVERLAP=2) against serial"
for rep in 1 2; do
  for v in 1 2; do
    KILN_ATTENTION_OVERLAP=$v KILN_ATTENTION_ROTATED=1 timeout 60 build-gpu/bench/kiln_attention_bench $r/att-d256-ovl$v-$rep.json "bf16 4x32x4096x4096 d256" fast > $r/att-d256-ovl$v-$rep.log 2>&1
    echo "overlap=$v rep $rep rc $?"; grep -E " ms " $r/att-d256-ovl$v-$rep.log | head -3
  done
done
s=$(( $(left) - 25 )); [ $s -gt 30 ] && campaigns exact 5520001 2 8 $s exact
finish
