#include "/work/main/src/targets/cpu/cpu_abi.h"
extern "C" int kiln_run(const kiln_cpu::Arg* args, long long begin, long long end, long long total, kiln_cpu::Status* st) {
    const float* x = (const float*)args[0].view.data; const float* v = (const float*)args[1].view.data; float* y = (float*)args[2].view.data;
    long long cols = args[0].view.extent[1];
    for (long long r = begin * 4; r < end * 4; ++r)
        for (long long c = 0; c < cols; ++c) y[r * cols + c] = x[r * cols + c] + v[c];
    return 0;
}
