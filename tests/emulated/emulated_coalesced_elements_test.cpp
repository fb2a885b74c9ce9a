// Misaligned rows moved element by element, dealt one element to each thread in turn
// (EmitOptions::coalesced_elements, LowerOptions::max_run 1: a warp's accesses to a
// row cover one contiguous span). On the emulated cuda target, bit for bit against
// the interpreter: bf16 rows at every offset 5123 columns give, i8 rows at all 16
// byte offsets, padded strides whose bytes between rows keep their fill, and the
// plan that says so. ctest's kiln_emulated_tests_coalesced_elements runs these with
// KILN_CUDA_COALESCED_ELEMENTS=1 and KILN_CUDA_SHIFTED_RUNS=0: the emulator has no
// ptxas, so its spill ladder never gives the shifted runs up; the knob stands in for that.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "cuda_emulator.h"
#include "examples/row_kernels.h"
#include "interp_bytes.h"
#include "row_test_kernels.h"
#include "targets/common/target_impl.h"
#include "tests/unit/cpu_diff.h"
#include "trace/kernel_trace.h"

using namespace kiln;
using cpu_diff::Buffer;
using emulated::add_one_rows;
using emulated::expect_interp_bytes;
namespace rows = kiln::catalog::rows;

namespace {

bool env_is(const char* name, const char* value) {
    const char* v = std::getenv(name);
    return v && std::string(v) == value;
}
#define REQUIRE_COALESCED()                                                                                        \
    if (!env_is("KILN_CUDA_COALESCED_ELEMENTS", "1") || !env_is("KILN_CUDA_SHIFTED_RUNS", "0"))                    \
    GTEST_SKIP() << "KILN_CUDA_COALESCED_ELEMENTS=1 KILN_CUDA_SHIFTED_RUNS=0 run this (ctest: kiln_emulated_tests_coalesced_elements)"

std::string plan_of(const Kernel& k, const std::vector<Buffer>& bufs) {
    std::vector<detail::Arg> args;
    for (const auto& b : bufs) args.push_back(b.arg);
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    return emulated::cuda_emulated().impl().plan(*program, args, {.precision = Precision::exact});
}

}  // namespace

TEST(EmulatedCoalescedElements, Bf16RowsOver5123Columns) {
    REQUIRE_COALESCED();
    // 9 rows of 10246 bytes: row starts at byte offsets 0, 6, 12, 2, 8, 14, 4, 10, 0.
    std::vector<Buffer> soft = {cpu_diff::input(Kind::BF16, {9, 5123}, 51), cpu_diff::output(Kind::BF16, {9, 5123})};
    expect_interp_bytes(rows::softmax<bf16>(), soft);
    const std::string plan = plan_of(rows::softmax<bf16>(), soft);
    EXPECT_NE(plan.find("cyclic over"), std::string::npos) << plan;
    // Runs of one element, which go ahead of their instance like runs of 8.
    EXPECT_NE(plan.find("global load of elements dealt one a thread in turn, issued one instance ahead"), std::string::npos) << plan;
    // SwiGLU's two halves of a [rows, 2 x 5123] input (the second half 10246 bytes in).
    std::vector<Buffer> glu = {cpu_diff::input(Kind::BF16, {9, 2 * 5123}, 52), cpu_diff::output(Kind::BF16, {9, 5123})};
    expect_interp_bytes(rows::swiglu<bf16>(), glu);
    // LayerNorm with weight and bias: the vectors (aligned) dealt like the rows.
    std::vector<Buffer> ln = {cpu_diff::input(Kind::BF16, {9, 5123}, 53), cpu_diff::input(Kind::BF16, {5123}, 54),
                              cpu_diff::input(Kind::BF16, {5123}, 55), cpu_diff::output(Kind::BF16, {9, 5123})};
    expect_interp_bytes(rows::layernorm_affine<bf16>(), ln);
}

TEST(EmulatedCoalescedElements, I8RowsAtEveryByteOffsetAndNarrowRows) {
    REQUIRE_COALESCED();
    // 1003-byte rows: 16 consecutive rows start at all 16 offsets.
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::I8, {17, 1003}, 71, -100, 100), cpu_diff::output(Kind::I8, {17, 1003})};
    expect_interp_bytes(add_one_rows<i8>(), bufs);
    expect_interp_bytes(add_one_rows<i8>(), bufs, Precision::standard);  // (no float sum to reassociate)
    // 100 bf16 columns: several rows a warp, alternately aligned and 8 bytes off.
    std::vector<Buffer> narrow = {cpu_diff::input(Kind::BF16, {37, 100}, 81), cpu_diff::input(Kind::BF16, {100}, 82),
                                  cpu_diff::input(Kind::BF16, {100}, 83), cpu_diff::output(Kind::BF16, {37, 100})};
    expect_interp_bytes(rows::layernorm_affine<bf16>(), narrow);
}

TEST(EmulatedCoalescedElements, PaddedStridesKeepTheBytesBetweenRows) {
    REQUIRE_COALESCED();
    // Rows of 4096 bf16 elements 4099 apart: every row but the first is misaligned,
    // and the three elements after each row belong to no one (their fill must stay).
    const Buffer x = cpu_diff::input(Kind::BF16, {6, 4096}, 91, -4, 4, false, {4099, 1});
    const Buffer y = emulated::output_like(x);
    expect_interp_bytes(add_one_rows<bf16>(), {x, y});
    expect_interp_bytes(rows::rmsnorm_weighted<bf16>(), {x, cpu_diff::input(Kind::BF16, {4096}, 92), y});
}

TEST(EmulatedCoalescedElements, AlignedLaunchesKeepTheirVectorRuns) {
    REQUIRE_COALESCED();
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {3, 5120}, 67), cpu_diff::output(Kind::BF16, {3, 5120})};
    expect_interp_bytes(rows::softmax<bf16>(), bufs);
    const std::string plan = plan_of(rows::softmax<bf16>(), bufs);
    EXPECT_NE(plan.find("runs of 8 over"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("cyclic over"), std::string::npos) << plan;
}
