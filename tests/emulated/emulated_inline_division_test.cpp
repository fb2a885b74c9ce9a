// kc::fdiv (the cuda prelude's correctly rounded f32 division without a call,
// EmitOptions::inline_division, KILN_CUDA_INLINE_DIVISION=1) on the emulated cuda
// target: the prelude's own code, its wide path included, gives the interpreter's
// quotients bit for bit for random bit patterns (every exponent, subnormals,
// infinities, NaNs), for quotients on and beside the subnormal grid's midpoints,
// at the bounds of its fast path, and in the row kernels that divide (softmax,
// cross-entropy, SwiGLU). The emulator's reciprocal is the host's correctly rounded
// one; the hardware's is checked on a device (tests/unit/cuda_inline_division_test.cpp).
// The ctest entry kiln_emulated_tests_inline_division runs these with the knob on.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda_emulator.h"
#include "examples/row_kernels.h"
#include "interp_bytes.h"
#include "targets/cuda/prelude.h"
#include "tests/unit/division_kernels.h"

using namespace kiln;
using cpu_diff::Buffer;
using emulated::expect_interp_bytes;
namespace rows = kiln::catalog::rows;

namespace {

using division_tests::divide_rows;

bool knob_on() { return division_tests::knob_on("KILN_CUDA_INLINE_DIVISION"); }

// An f32 input of `rows` x `cols` holding `values` (then zeros).
Buffer floats(std::int64_t rows, std::int64_t cols, const std::vector<float>& values) {
    Buffer b = cpu_diff::input(Kind::F32, {rows, cols}, 1);
    std::memset(b.bytes.data(), 0, b.bytes.size());
    std::memcpy(b.bytes.data(), values.data(), std::min(b.bytes.size(), values.size() * sizeof(float)));
    return b;
}

float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }

// The text of kc::fdiv and its helpers in `text` (from fdiv_core to the end of fdiv).
std::string helper_text(const std::string& text) {
    const auto begin = text.find("__device__ __forceinline__ float fdiv_core(");
    const auto last = text.find("__device__ __forceinline__ float fdiv(", begin == std::string::npos ? 0 : begin);
    const auto end = last == std::string::npos ? std::string::npos : text.find("\n}\n", last);
    return begin == std::string::npos || end == std::string::npos ? "" : text.substr(begin, end + 3 - begin);
}

}  // namespace

TEST(EmulatedInlineDivision, TheEmulatorRunsThePreludesOwnHelper) {
    const std::string prelude = helper_text(cu::prelude(false));
    ASSERT_FALSE(prelude.empty());
    const std::vector<Buffer> bufs = {floats(2, 64, {}), floats(2, 64, {}), cpu_diff::output(Kind::F32, {2, 64})};
    std::vector<detail::Arg> args;
    for (const Buffer& b : bufs) args.push_back(b.arg);
    EXPECT_EQ(prelude, helper_text(emulated::emulated_source(divide_rows(), args, Precision::exact)));
}

TEST(EmulatedInlineDivision, RandomBitPatternsMatchTheInterpreter) {
    if (!knob_on()) GTEST_SKIP() << "KILN_CUDA_INLINE_DIVISION=1 runs this (ctest: kiln_emulated_tests_inline_division)";
    constexpr std::int64_t rows = 64, cols = 4096;
    std::mt19937 rng(20261206);
    std::vector<float> a, b;
    for (std::int64_t i = 0; i < rows * cols; ++i) a.push_back(from_bits(static_cast<std::uint32_t>(rng()))), b.push_back(from_bits(static_cast<std::uint32_t>(rng())));
    std::vector<Buffer> bufs = {floats(rows, cols, a), floats(rows, cols, b), cpu_diff::output(Kind::F32, {rows, cols})};
    expect_interp_bytes(divide_rows(), bufs);
    expect_interp_bytes(divide_rows(), bufs, Precision::standard);
    std::vector<detail::Arg> args;
    for (const Buffer& x : bufs) args.push_back(x.arg);
    EXPECT_NE(emulated::emulated_source(divide_rows(), args, Precision::exact).find("kc::fdiv("), std::string::npos);
}

TEST(EmulatedInlineDivision, SubnormalTiesAndTheFastPathsBounds) {
    if (!knob_on()) GTEST_SKIP() << "KILN_CUDA_INLINE_DIVISION=1 runs this (ctest: kiln_emulated_tests_inline_division)";
    std::vector<float> a, b;
    // Quotients (2k + 1) 2^-150-s exactly (halfway on the subnormal grid when s = 0,
    // between its points otherwise) and their neighbours: a dividend an ulp either
    // side, a divisor an ulp up.
    std::mt19937 rng(7);
    for (int i = 0; i < 20000; ++i) {
        const float q = std::ldexp(static_cast<float>(2 * (rng() % (1u << 22)) + 1), -150 - static_cast<int>(rng() % 24));
        const float divisor = std::ldexp(1.0f, 1 + static_cast<int>(rng() % 100)) * (rng() & 1 ? -1.0f : 1.0f);
        const float dividend = q * divisor;
        for (std::uint32_t d : {0u, 1u, 0xffffffffu}) a.push_back(from_bits(std::bit_cast<std::uint32_t>(dividend) + d)), b.push_back(divisor);
        a.push_back(dividend), b.push_back(from_bits(std::bit_cast<std::uint32_t>(divisor) + 1));
    }
    // The fast path's bounds, a step inside and outside, against each other and against
    // zeros, the largest float, infinities and NaN; and random operands near them.
    const std::vector<float> edges = {0x1p-125f, 0x1.fffffep-126f, 0x1p125f, 0x1.000002p125f, 0x1p-100f, 0x1.fffffep-101f, 0x1.fffffep127f,
                                      0x1p-149f, 0x1p-126f, 0.0f, -0.0f, 1.0f, 3.0f, INFINITY, -INFINITY, NAN};
    for (float x : edges)
        for (float y : edges)
            for (float s : {1.0f, -1.0f}) a.push_back(x * s), b.push_back(y);
    for (int i = 0; i < 20000; ++i) {
        const float x = edges[rng() % edges.size()], y = edges[rng() % edges.size()];
        a.push_back(from_bits(std::bit_cast<std::uint32_t>(x) + (rng() % 64) - 32));
        b.push_back(from_bits(std::bit_cast<std::uint32_t>(y) + (rng() % 64) - 32));
    }
    const std::int64_t cols = 1024, rows = (static_cast<std::int64_t>(a.size()) + cols - 1) / cols;
    std::vector<Buffer> bufs = {floats(rows, cols, a), floats(rows, cols, b), cpu_diff::output(Kind::F32, {rows, cols})};
    expect_interp_bytes(divide_rows(), bufs);
}

TEST(EmulatedInlineDivision, RowKernelsThatDivideMatchTheInterpreter) {
    if (!knob_on()) GTEST_SKIP() << "KILN_CUDA_INLINE_DIVISION=1 runs this (ctest: kiln_emulated_tests_inline_division)";
    std::vector<Buffer> soft = {cpu_diff::input(Kind::BF16, {9, 1000}, 304, -8, 8, true), cpu_diff::output(Kind::BF16, {9, 1000})};
    expect_interp_bytes(rows::softmax<bf16>(), soft);
    std::vector<Buffer> glu = {cpu_diff::input(Kind::BF16, {7, 2000}, 305, -30, 30, true), cpu_diff::output(Kind::BF16, {7, 1000})};
    expect_interp_bytes(rows::swiglu<bf16>(), glu);
    expect_interp_bytes(rows::swiglu<f32>(), {cpu_diff::input(Kind::F32, {5, 2 * 777}, 306, -90, 90, true), cpu_diff::output(Kind::F32, {5, 777})});
}
