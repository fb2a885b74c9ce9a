#!/bin/bash
# Needs nvrtc_dump and nvrtc_time (../gpu-20261203-s17/nvrtc_time.cpp) built beside it, libatt.so from attention_library.cpp (build line in README.md).
# usage: lcheck.sh OUTNAME KERNEL SHAPE [env...]: the library kernel's source (q,k,v,o all SHAPE), NVRTC, SASS summary
name=$1; kern=$2; shape=$3; shift 3
ND=/root/.cache/kiln/python-venv/lib/python3.11/site-packages/triton/backends/nvidia/bin/nvdisasm
env "$@" ${KILN:-build/tools/kiln} source --library ${LIB:-./libatt.so} $kern --arg $shape --arg $shape --arg $shape --arg $shape --target cuda --precision ${PREC:-fast} 2>/dev/null > $name.cu && ./nvrtc_dump $name.cu > $name.time && ./nvrtc_time $name.cu 2>&1 | grep -i "C75\|spill\|Used" | grep -B1 -A1 "_fa\|C75" | tr '\n' ' '; $ND -c $name.cu.cubin > $name.sass; echo; echo "$name: $(grep -cE '^\s+/\*[0-9a-f]{4,}\*/' $name.sass) instrs, $(grep -c 'HGMMA' $name.sass) hgmma; $(cat $name.time | awk '{print $3}' | tr '\n' ' ') s"
