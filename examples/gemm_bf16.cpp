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
        // The final bf16 rounding (u = 2^-8 of the result) dominates the f32 sums'
        // error (typed_gemm.h): the bound is about 3.9e-3 |C| + 1e-5 at K = 21. A
        // product dropped or taken from the wrong k is off by ~0.25: 50 bounds at a
        // typical |C| ~ 1.3, 13 at the largest (|C| ~ 5). bf16 keeps 8 bits.
        return typed_gemm_cases<bf16, f32, bf16>("gemm_bf16", size, seed, [](std::uint64_t s) { return uniform(s, -1, 1); });
    };
    e.tune_space = typed_gemm_tune_space();
    e.tune_kernel = typed_gemm_tune_kernel<bf16, f32, bf16>("gemm_bf16");
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_gemm_bf16);

}  // namespace kiln::catalog
