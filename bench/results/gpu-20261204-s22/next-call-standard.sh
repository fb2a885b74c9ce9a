#!/usr/bin/env bash
# Written at the end of session 22 (not yet run): a standard-precision campaign for a
# whole call, two processes of 8 jobs (session 22's fastest layout), on seeds after
# this session's 4720001..4730352 and 4740001..4750224. With the shared divisor off (the
# default) the generic kernels are emitted as in a605f61: these add to 39,664.
source bench/results/gpu-20261204-s22/common.sh
build kiln_tool
campaigns standard 4760001 2 8 $(( $(left) - 20 )) standard
finish
