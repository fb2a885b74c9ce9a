// gemm_f16: C = A B with f16 inputs, f32 accumulation in the pipelined K loop, and an
// explicit cast<f16> of the result (seed 004's gemm<half>). The kernel is the typed
// GEMM of typed_gemm.h.
#include "typed_gemm.h"

namespace kiln::catalog {
namespace {

Entry make_gemm_f16() {
    Entry e;
    e.name = "gemm_f16";
    e.description = "f16 matrix product, f32 accumulation, f16 output (explicit cast)";
    e.cases = [](Size size, std::uint64_t seed) {
        // The f32 sums are far more accurate than the final f16 rounding, whose
        // relative error is at most 2^-11 (4.9e-4) per element; 1e-3 bounds the
        // relative L2 error with room for the accumulation.
        return typed_gemm_cases<f16, f32, f16>("gemm_f16", size, seed, [](std::uint64_t s) { return uniform(s, -1, 1); },
                                               Tolerance{1e-3});
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_gemm_f16);

}  // namespace kiln::catalog
