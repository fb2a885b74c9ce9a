// gemm_i8: C = A B with i8 inputs, i32 accumulation in the pipelined K loop and an
// i32 output (seed 004's gemm<int8_t, int32_t>). The kernel is the typed GEMM of
// typed_gemm.h. Inputs span the whole i8 range; every case keeps K * 128 * 128
// below 2^31, so no sum wraps and the result must be exact.
#include <cmath>

#include "typed_gemm.h"

namespace kiln::catalog {
namespace {

// Uniform integers in [-128, 127].
std::function<double(std::int64_t)> int8_values(std::uint64_t seed) {
    auto u = uniform(seed, -128, 128);
    return [u](std::int64_t i) { return std::floor(u(i)); };
}

Entry make_gemm_i8() {
    Entry e;
    e.name = "gemm_i8";
    e.description = "i8 matrix product, i32 accumulation and output, exact";
    e.cases = [](Size size, std::uint64_t seed) {
        return typed_gemm_cases<i8, i32, i32>("gemm_i8", size, seed, int8_values);
    };
    e.tune_space = typed_gemm_tune_space();
    e.tune_kernel = typed_gemm_tune_kernel<i8, i32, i32>("gemm_i8");
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_gemm_i8);

}  // namespace kiln::catalog
