// Float division by a divisor shared along a thread's run (kc::fdiv_shared,
// EmitOptions::shared_divisor, off unless KILN_CUDA_SHARED_DIVISOR=1) on the
// emulated cuda target: the same bits as the interpreter's correctly rounded
// quotients, also where the dividend or the divisor leaves the helper's fast range
// (zeros, infinities, NaNs, 1e30, -3e38, tiny divisors). The ctest entry
// kiln_emulated_tests_shared_divisor runs these, and the whole emulated catalog,
// with the knob on; in the plain run these tests skip.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>

#include "cuda_emulator.h"
#include "interp_bytes.h"
#include "examples/row_kernels.h"
#include "tests/unit/cpu_diff.h"
#include "targets/common/target_impl.h"
#include "targets/cuda/prelude.h"
#include "trace/kernel_trace.h"
#include "tests/unit/division_kernels.h"

using namespace kiln;
using cpu_diff::Buffer;
using emulated::expect_interp_bytes;
namespace rows = kiln::catalog::rows;

namespace {

using division_tests::divide_rows;

bool knob_on() { return division_tests::knob_on("KILN_CUDA_SHARED_DIVISOR"); }

std::string source_of(const Kernel& k, const std::vector<Buffer>& bufs) {
    std::vector<detail::Arg> args;
    for (const auto& b : bufs) args.push_back(b.arg);
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    return emulated::cuda_emulated().impl().source(*program, args, {.precision = Precision::exact}, false);
}

// Each row divided by its sum of magnitudes (a divisor broadcast along the row).
Kernel divide_by_row_norm() {
    return kernel("divide_by_row_norm", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto origin = coord(nest.index(), 0);
            auto v = x[origin, shape(r, c)];
            y(origin, shape(r, c)).store(v / reduce(abs(v), c, add));
        }
    });
}

// Every element divided by a scalar argument (rank 0: shared by every element).
Kernel divide_by_scalar() {
    return kernel("divide_by_scalar", [](View<const f32, 2> x, View<f32, 2> y, Scalar<f32> s) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto origin = coord(nest.index(), 0);
            y(origin, shape(r, c)).store(x[origin, shape(r, c)] / s);
        }
    });
}

// The text of `float fdiv_shared(...) { ... }` in `text`, up to its closing brace at a line start.
std::string helper_text(const std::string& text) {
    const auto begin = text.find("__device__ __forceinline__ float fdiv_shared(");
    const auto end = begin == std::string::npos ? std::string::npos : text.find("\n}\n", begin);
    return end == std::string::npos ? "" : text.substr(begin, end + 3 - begin);
}

}  // namespace

TEST(EmulatedSharedDivisor, TheEmulatorRunsThePreludesOwnHelper) {
    // The emulator swaps the prelude's helpers for its own (emulation_header.h) but
    // for the plain C++ part, which holds this one: the source it compiles must carry
    // the prelude's code, or the tests below would check another function.
    const std::string prelude = helper_text(cu::prelude(false));
    ASSERT_FALSE(prelude.empty());
    const std::vector<Buffer> bufs = {cpu_diff::input(Kind::F32, {2, 64}, 300), cpu_diff::output(Kind::F32, {2, 64})};
    std::vector<detail::Arg> args;
    for (const Buffer& b : bufs) args.push_back(b.arg);
    EXPECT_EQ(prelude, helper_text(emulated::emulated_source(divide_by_row_norm(), args, Precision::exact)));
}

TEST(EmulatedSharedDivisor, RowNormsWithSpecialValuesMatchTheInterpreter) {
    if (!knob_on()) GTEST_SKIP() << "KILN_CUDA_SHARED_DIVISOR=1 runs this (ctest: kiln_emulated_tests_shared_divisor)";
    // Rows with NaN, infinities, -0, 1e30 and -3e38 among random values: divisors
    // inf or NaN where a row holds one, huge where it holds 1e30.
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::F32, {24, 1000}, 301, -4, 4, true), cpu_diff::output(Kind::F32, {24, 1000})};
    expect_interp_bytes(divide_by_row_norm(), bufs);
    expect_interp_bytes(divide_by_row_norm(), bufs, Precision::standard);
    EXPECT_NE(source_of(divide_by_row_norm(), bufs).find("= kc::fdiv_shared("), std::string::npos);
    // Dividends below the fast range: rows of values near 1e-30 (the quotients are not).
    std::vector<Buffer> tiny = {cpu_diff::input(Kind::F32, {8, 300}, 302, -1e-30, 1e-30), cpu_diff::output(Kind::F32, {8, 300})};
    expect_interp_bytes(divide_by_row_norm(), tiny);
}

TEST(EmulatedSharedDivisor, ScalarDivisorsInAndOutOfTheFastRange) {
    if (!knob_on()) GTEST_SKIP() << "KILN_CUDA_SHARED_DIVISOR=1 runs this (ctest: kiln_emulated_tests_shared_divisor)";
    for (double s : {3.0, -0.1, 1e-30, 1e30, 0.0, -0.0, std::numeric_limits<double>::infinity(), 1e-45}) {
        SCOPED_TRACE(s);
        std::vector<Buffer> bufs = {cpu_diff::input(Kind::F32, {5, 777}, 303, -4, 4, true), cpu_diff::output(Kind::F32, {5, 777}),
                                    cpu_diff::scalar(Kind::F32, s)};
        expect_interp_bytes(divide_by_scalar(), bufs);
    }
}

TEST(EmulatedSharedDivisor, SoftmaxRowsTakeItAndElementwiseDivisionDoesNot) {
    if (!knob_on()) GTEST_SKIP() << "KILN_CUDA_SHARED_DIVISOR=1 runs this (ctest: kiln_emulated_tests_shared_divisor)";
    std::vector<Buffer> soft = {cpu_diff::input(Kind::BF16, {9, 4000}, 304), cpu_diff::output(Kind::BF16, {9, 4000})};
    expect_interp_bytes(rows::softmax<bf16>(), soft);
    EXPECT_NE(source_of(rows::softmax<bf16>(), soft).find("= kc::fdiv_shared("), std::string::npos);
    std::vector<Buffer> two = {cpu_diff::input(Kind::F32, {4, 500}, 305, -4, 4, true), cpu_diff::input(Kind::F32, {4, 500}, 306, -4, 4, true),
                               cpu_diff::output(Kind::F32, {4, 500})};
    expect_interp_bytes(divide_rows(), two);
    EXPECT_EQ(source_of(divide_rows(), two).find("= kc::fdiv_shared("), std::string::npos);
}
