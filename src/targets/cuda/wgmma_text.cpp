#include "targets/cuda/wgmma_text.h"

namespace kiln::cu {

namespace {

// The accumulators as asm operands: "%0, %1, ..." and "+f"(d[0]), ... (eight a line);
// `constraint` "+r" for s32 accumulators.
void accumulators(int regs, std::string& list, std::string& operands, const char* constraint = "+f") {
    for (int i = 0; i < regs; ++i) {
        list += (i ? ", %" : "%") + std::to_string(i);
        operands += std::string(i ? ", " : "") + (i % 8 == 0 ? "\n          " : "") + "\"" + constraint + "\"(d[" + std::to_string(i) + "])";
    }
}

}  // namespace

std::string wgmma_kind(Kind in) { return in == Kind::BF16 ? "bf16" : in == Kind::I8 ? "s8" : in == Kind::F32 ? "tf32" : "f16"; }

std::string wgmma_smem_wrapper(const std::string& name, int n, Kind in, bool a_mmajor, bool b_kmajor, bool accumulate_operand) {
    const int regs = n / 2;
    const bool integer = in == Kind::I8;
    std::string list, operands;
    accumulators(regs, list, operands, integer ? "+r" : "+f");
    const std::string r = std::to_string(regs), k = wgmma_kind(in);
    // 8-bit operands: k32 steps into s32 accumulators that wrap (no .satfinite), both
    // operands K-major, and no scale or transpose immediates; tf32 (f32 in memory, its
    // low 13 bits unread): k8 steps, both K-major, scale immediates only (PTX takes
    // transposes for 16-bit types only).
    const bool tf32 = in == Kind::F32;
    const std::string shape = "m64n" + std::to_string(n) + (integer ? "k32.s32." : tf32 ? "k8.f32." : "k16.f32.") + k + "." + k;
    const std::string immediates = integer ? "" : tf32 ? ", 1, 1" : std::string(", 1, 1, ") + (a_mmajor ? "1" : "0") + ", " + (b_kmajor ? "0" : "1");
    return "struct " + name + " {\n"
           "    using Acc = " + (integer ? "int" : "float") + ";\n"
           "    static constexpr int elem_bytes = " + (integer ? "1" : tf32 ? "4" : "2") + ";\n"
           "    static __device__ __forceinline__ void run(Acc (&d)[" + r + "], unsigned long long a, unsigned long long b" +
           (accumulate_operand ? ", int accumulate" : "") + ") {\n"
           "        asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" + std::to_string(regs + 2) + ", 0;\\n\"\n"
           "            \"wgmma.mma_async.sync.aligned." + shape + " {" + list + "}, %" + r +
           ", %" + std::to_string(regs + 1) + ", p" + immediates + ";\\n}\\n\"\n"
           "            :" + operands + "\n"
           "            : \"l\"(a), \"l\"(b), \"r\"(" + (accumulate_operand ? "accumulate" : "1") + "));\n"
           "    }\n"
           "};\n";
}

std::string wgmma_register_a_wrapper(const std::string& name, int n, Kind in) {
    const int regs = n / 2;
    std::string list, operands;
    accumulators(regs, list, operands);
    auto at = [&](int i) { return "%" + std::to_string(regs + i); };
    const std::string k = wgmma_kind(in);
    return "struct " + name + " {\n"
           "    static __device__ __forceinline__ void run(float (&d)[" + std::to_string(regs) + "], const unsigned (&a)[4], unsigned long long b) {\n"
           "        asm volatile(\"wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32." + k + "." + k + " {" + list + "}, {" +
           at(0) + ", " + at(1) + ", " + at(2) + ", " + at(3) + "}, " + at(4) + ", 1, 1, 1, 1;\\n\"\n"
           "            :" + operands + "\n"
           "            : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(b));\n"
           "    }\n"
           "};\n";
}

}  // namespace kiln::cu
