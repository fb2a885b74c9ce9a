// The programs the cuda fuzz campaigns found differing, replayed on interp and
// cuda where a device is present (docs/fuzzing.md; bench/results/gpu-20261204-s19):
// 3100033, -0.0 where the contract gives +0.0 (ptxas compiling a select of -1.0
// against -0.0 as an integer select converted to float), and 4500528, an argmin
// over equal bools giving 1 (ptxas reading one byte from a stale register), and
// 3710388 (bench/results/gpu-20261204-s20), a row minimum of a negated i32 row
// giving -24 for -13 (ptxas fusing two signed minimums into a VIMNMX3 without the
// negation of one operand). All three are ptxas miscompiles the cuda emitter now
// steers around.
#include <gtest/gtest.h>

#include <string>

#include "fuzz/campaign.h"

using namespace kiln;
using namespace kiln::fuzz;

namespace {

void replay(std::uint64_t seed, Precision precision) {
    Target c = cuda();
    if (!c.available()) GTEST_SKIP() << "no CUDA device: " << c.unavailable_reason();
    CampaignOptions o;
    o.seed = seed;
    o.count = 1;
    o.targets = {interp(), c};
    o.compile = {.precision = precision};
    o.limits.device = true;  // as `kiln fuzz --targets interp,cuda` generates them
    const Summary s = run_campaign(o);
    for (const Result& f : s.failures) ADD_FAILURE() << "program " << f.seed << ": " << verdict_name(f.verdict) << ": " << f.detail;
    EXPECT_EQ(s.same, 1);
}

}  // namespace

TEST(CudaFuzzRegression, Seed3100033NegatedBoolCastTimesANegativeIsPlusZero) { replay(3100033, Precision::exact); }

TEST(CudaFuzzRegression, Seed4500528ArgminOfEqualBoolsIsZero) { replay(4500528, Precision::standard); }

TEST(CudaFuzzRegression, Seed3710388RowMinimumOfANegatedRowKeepsTheNegation) { replay(3710388, Precision::exact); }

// Found on the emulator, whose persistent grids have three CTAs: a misaligned row
// loaded once for every instance, shifted again by a CTA's second instance
// (emit_shifted_runs.cpp). On a device it meets that code with the grid capped
// (KILN_CUDA_MAX_CTAS=3: ctest's kiln_fuzz_tests_cuda_capped_grid).
TEST(CudaFuzzRegression, Seed7000248AMisalignedRowLoadedOnceIsShiftedOnce) { replay(7000248, Precision::exact); }

// An i32 `x - INT_MIN` cast to i64: 2^32 off for negative x on an H100 (session 31),
// NVVM widening the sign flip it had made of it as sext(x) - 2^31 (prelude.cpp:
// "NVVM and the i32 sign bit").
TEST(CudaFuzzRegression, Seed5521605AnInt32MinusIntMinWidensRight) { replay(5521605, Precision::exact); }

// ptxas (CUDA 13.0) folded `-2.5 <= abs(x - x)` to true, as if |x| could not be NaN:
// 1 for x = inf where the interpreter stores 0 (session 33, on an H100; prelude.cpp:
// "ptxas and |x| against a constant <= 0").
TEST(CudaFuzzRegression, Seed5640584AbsOfANaNIsAboveNoNegativeConstant) { replay(5640584, Precision::exact); }

// An i32 `(x + INT_MAX) / x` gave 0 for x = 29 where the interpreter gives -74051159
// (session 34, on an H100, standard precision): NVVM widened the divisor x as
// sext(x + INT_MAX) - INT_MAX, as if the sum could not wrap (prelude.cpp: "NVVM and
// i32 sums with a constant").
TEST(CudaFuzzRegression, Seed4962944AnInt32SumWithAConstantLeavesItsOperandWhole) { replay(4962944, Precision::standard); }

// ptxas (CUDA 13.0) dropped four of eight f64 -> f32 narrowings of bool-derived f64
// values it had built from a shared zero low register, reusing the first two: an f16
// 2.0 where the interpreter stores 0.0 (session 39, on an H100; prelude.cpp: "ptxas
// and f64 values built from halves").
TEST(CudaFuzzRegression, Seed6545841BoolDerivedDoublesAreEachNarrowed) { replay(6545841, Precision::exact); }

// ptxas (CUDA 13.0) took byte 6 of a reversed bool row gathered from shared memory
// from a register its load never wrote (NVVM had merged the row's reads into one
// `ld.shared.v4.u16`): an f16 cos(1) where the interpreter stores cos(0) (session 42,
// on an H100; emitter.cpp: shared_element_type).
TEST(CudaFuzzRegression, Seed6405128AGatheredBoolRowReadsItsOwnBytes) { replay(6405128, Precision::exact); }
