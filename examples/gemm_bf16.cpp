// gemm_bf16: C = A B with bf16 inputs, f32 accumulation in the pipelined K loop, and
// an explicit cast<bf16> of the result (seed 004's gemm<bf16>). The kernel is the
// typed GEMM of typed_gemm.h.
#include "typed_gemm.h"

namespace kiln::catalog {
namespace {

Entry make_gemm_bf16() {
    Entry e;
    e.name = "gemm_bf16";
    e.description = "bf16 matrix product, f32 accumulation, bf16 output (explicit cast)";
    e.cases = [](Size size, std::uint64_t seed) {
        // The f32 sums are far more accurate than the final bf16 rounding, whose
        // relative error is at most 2^-8 (3.9e-3) per element; 8e-3 bounds the
        // relative L2 error with room for the accumulation.
        return typed_gemm_cases<bf16, f32, bf16>("gemm_bf16", size, seed, [](std::uint64_t s) { return uniform(s, -1, 1); },
                                                 Tolerance{8e-3});
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_gemm_bf16);

}  // namespace kiln::catalog
