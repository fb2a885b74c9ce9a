// i32 adds and subtracts of a constant NVVM knows (prelude.cpp: "NVVM and the i32 sign
// bit"): of INT_MIN the emitter flips the sign bit in PTX (kc::flip_sign32), of a
// constant NVVM would only know after folding it adds in PTX (kc::add32_opaque,
// kc::sub32_opaque). On the emulated cuda target, bit for bit against the
// interpreter over the i32 edge values, each result cast to i64 as the fuzz
// program 5521605 cast it; the device itself is checked by that program's replay
// (tests/fuzz/cuda_regression_test.cpp).
#include <gtest/gtest.h>

#include <climits>
#include <cstring>

#include "cuda_emulator.h"
#include "interp_bytes.h"
#include "targets/common/target_impl.h"
#include "tests/unit/cpu_diff.h"
#include "trace/kernel_trace.h"

using namespace kiln;
using cpu_diff::Buffer;
using emulated::expect_interp_bytes;

namespace {

constexpr std::int64_t kN = 12;

// Each output e = cast<i64>(its form of x[e]).
Kernel sign_bit_forms() {
    return kernel("sign_bit_forms", [](View<const i32, 1> x, View<i64, 1> o0, View<i64, 1> o1, View<i64, 1> o2, View<i64, 1> o3, View<i64, 1> o4,
                                       View<i64, 1> o5, View<i64, 1> o6) {
        auto e = axis("e", kN);
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            (void)nest;
            auto v = x[coord(0), shape(e)];
            const Scalar<i32> lo(INT_MIN), seven(7), three(3);
            o0(coord(0), shape(e)).store(cast<i64>(v - INT_MIN));
            o1(coord(0), shape(e)).store(cast<i64>(INT_MIN - v));
            o2(coord(0), shape(e)).store(cast<i64>(v + INT_MIN));
            o3(coord(0), shape(e)).store(cast<i64>(INT_MIN + v));
            o4(coord(0), shape(e)).store(cast<i64>(v - lo));
            o5(coord(0), shape(e)).store(cast<i64>(v + seven * three));
            o6(coord(0), shape(e)).store(cast<i64>(v - seven * three));
        }
    });
}

}  // namespace

TEST(EmulatedSignBit, Int32AddsAndSubtractsOfKnownConstantsMatchTheInterpreter) {
    const std::vector<std::int64_t> xs = {0, 1, -1, -31, 31, INT_MIN, INT_MAX, INT_MIN + 1, INT_MAX - 1, 1 << 30, -(1 << 30), 123456789};
    Buffer x = cpu_diff::input(Kind::I32, {kN}, 1);
    for (std::int64_t i = 0; i < kN; ++i) {
        const auto v = static_cast<std::int32_t>(xs[static_cast<std::size_t>(i)]);
        std::memcpy(x.bytes.data() + i * 4, &v, 4);
    }
    std::vector<Buffer> bufs = {x};
    for (int f = 0; f < 7; ++f) bufs.push_back(cpu_diff::output(Kind::I64, {kN}));
    expect_interp_bytes(sign_bit_forms(), bufs);
    std::vector<detail::Arg> args;
    for (const auto& b : bufs) args.push_back(b.arg);
    auto program = detail::specialize(*sign_bit_forms().shared_impl(), args, Loc::here());
    const std::string src = emulated::cuda_emulated().impl().source(*program, args, {.precision = Precision::exact}, false);
    EXPECT_NE(src.find("kc::flip_sign32("), std::string::npos) << src;
    EXPECT_NE(src.find("kc::flip_sign32(kc::sub32(0, "), std::string::npos) << "INT_MIN - x";
}
