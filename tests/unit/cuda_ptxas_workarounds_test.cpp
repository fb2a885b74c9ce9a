// Code ptxas (CUDA 13.0) compiles wrong, which the cuda emitter keeps out of
// what it hands NVRTC; both found by the cuda fuzz campaigns
// (bench/results/gpu-20261204-s19, docs/fuzzing.md).
//
// CudaNegativeZero: ptxas compiles `selp.f32 d, -1.0, -0.0, p` as an integer
// select of -1 and 0 converted to float (SEL + I2FP.F32.S32), which gives +0.0
// where the PTX says -0.0. NVVM writes that select when it folds a negation or a
// negative scale into the select a bool-to-float cast is (-(b ? 1 : 0) becomes
// b ? -1.0 : -0.0), so -cast<f32>(b) * y was -0.0 on the device where every other
// engine gives +0.0 (b false, y < 0): program 3100033. The emitter keeps such
// selects out of the PTX (scalar_ops.cpp: kc::fneg, kc::bool_to_float,
// kc::select_opaque); these tests read the PTX offline and, on a device, compare
// with the interpreter bit for bit.
//
// CudaPtxasBoolBytes: an argmin over bools staged in shared memory, whose reads
// NVVM had merged into 16-byte loads, took one byte from a stale register in
// ptxas's code (program 4500528); the emitter reads such bytes one at a time.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <regex>
#include <sstream>

#include "cuda_test_util.h"

using namespace kiln;
using namespace kiln::cuda_test;

namespace {

constexpr std::int64_t kN = 16;

// A kernel of one 16-element tile: out = f(b, y), b = m > 0.
template <Element T> Kernel tile_kernel(const char* name, std::function<Tile<T>(const Tile<bool>&, const Tile<T>&)> f) {
    return kernel(name, [f](View<const f32, 1> m, View<const T, 1> y, View<T, 1> out) {
        auto n = axis("n", kN);
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            (void)nest;
            out(coord(0), shape(n)).store(f(m[coord(0), shape(n)] > 0.0f, y[coord(0), shape(n)]));
        }
    });
}

struct Case {
    const char* name;
    bool bf16;  // the kernel's y and out are bf16, else f32
    std::function<Kernel()> make;
};

// The ways a kernel reaches the select: the fuzz program's negated cast, a cast
// scaled by a negative constant, the user's own -1 / -0 constants, and a bf16 one
// (held in float on the device, as f32 is).
std::vector<Case> cases() {
    return {
        {"negated_cast", false, [] { return tile_kernel<f32>("negated_cast", [](auto& b, auto& y) { return -cast<f32>(b) * y; }); }},
        {"cast_times_minus_one", false, [] { return tile_kernel<f32>("cast_times_minus_one", [](auto& b, auto& y) { return cast<f32>(b) * -1.0f * y; }); }},
        {"constant_arms", false, [] { return tile_kernel<f32>("constant_arms", [](auto& b, auto& y) { return ite(b, -1.0f, -0.0f) * y; }); }},
        {"negated_cast_bf16", true, [] { return tile_kernel<bf16>("negated_cast_bf16", [](auto& b, auto& y) { return -cast<bf16>(b) * y; }); }},
    };
}

// The PTX lines selecting between the immediates -1.0 and -0.0 (either order).
std::vector<std::string> hazardous_selects(const std::string& ptx) {
    static const std::regex line(R"(selp\.f32[^;]*;)");
    std::vector<std::string> found;
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), line); it != std::sregex_iterator(); ++it) {
        const std::string s = it->str();
        if (contains(s, "0fBF800000") && contains(s, "0f80000000")) found.push_back(s);
    }
    return found;
}

template <Element T> std::vector<detail::Arg> host_args(Tensor<f32>& m, Tensor<T>& y, Tensor<T>& out) {
    return args_of(std::as_const(m).view(), std::as_const(y).view(), out.view());
}

}  // namespace

TEST(CudaNegativeZero, PtxSelectsNoMinusOneAgainstMinusZero) {
    REQUIRE_NVRTC();
    for (const Case& c : cases()) {
        for (Precision p : {Precision::exact, Precision::standard}) {
            Tensor<f32> b({kN});
            std::string ptx;
            if (c.bf16) {
                Tensor<bf16> y({kN}), out({kN});
                ptx = generic_ptx(c.make(), host_args(b, y, out), p);
            } else {
                Tensor<f32> y({kN}), out({kN});
                ptx = generic_ptx(c.make(), host_args(b, y, out), p);
            }
            ASSERT_FALSE(ptx.empty()) << c.name;
            auto found = hazardous_selects(ptx);
            EXPECT_TRUE(found.empty()) << c.name << " (" << (p == Precision::exact ? "exact" : "standard") << "): " << found.size()
                                       << " select(s) ptxas turns into an integer select, losing -0.0, first: " << (found.empty() ? "" : found[0]);
        }
    }
}

// The regex finds what it is for: the select NVVM wrote before the emitter's change.
TEST(CudaNegativeZero, TheScanFindsTheHazard) {
    const std::string ptx = "\tsetp.eq.s16 \t%p62, %rs31, 0;\n\tselp.f32 \t%f1, 0f80000000, 0fBF800000, %p62;\n\tselp.f32 \t%f2, 0f00000000, 0f3F800000, %p1;\n";
    auto found = hazardous_selects(ptx);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0], "selp.f32 \t%f1, 0f80000000, 0fBF800000, %p62;");
}

// On the device: every case bit for bit as the interpreter computes it, b both
// ways, y of both signs, zeros and infinities among them.
TEST(CudaNegativeZero, DeviceAgreesWithTheInterpreterBitForBit) {
    REQUIRE_DEVICE();
    const std::vector<float> ys = {-1.1754943508222875e-38f, 2.5f, -3.0f, 0.0f, -0.0f, 1e-45f, -1e-45f, 7.0f,
                                   -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(), -0.5f, 0.25f,
                                   -100.0f, 100.0f, -1e30f, 1e30f};
    std::vector<float> ms;
    for (std::int64_t i = 0; i < kN; ++i) ms.push_back(i % 3 == 0 ? 1.0f : -1.0f);  // b = m > 0
    for (const Case& c : cases()) {
        for (Precision p : {Precision::exact, Precision::standard}) {
            auto compare = [&](auto tag) {
                using T = decltype(tag);
                std::vector<T> y;
                for (float v : ys) y.push_back(T(v));
                Tensor<f32> m({kN}, ms);
                Tensor<T> yh({kN}, y), want({kN});
                run_kernel(c.make(), interp(), host_args(m, yh, want), {.precision = p}, Loc::here());
                auto md = m.to(cuda()), yd = yh.to(cuda());
                auto od = Tensor<T>({kN}).to(cuda());
                run_kernel(c.make(), cuda(), args_of(std::as_const(md), std::as_const(yd), od), {.precision = p}, Loc::here());
                auto got = od.to(host()).values();
                for (std::size_t i = 0; i < got.size(); ++i) {
                    const float g = static_cast<float>(got[i]), w = static_cast<float>(want.values()[i]);
                    // An f32 NaN's payload is not part of the contract (docs/semantics.md); 0 * inf is one here.
                    if (std::isnan(g) && std::isnan(w)) continue;
                    EXPECT_EQ(std::bit_cast<std::uint32_t>(g), std::bit_cast<std::uint32_t>(w))
                        << c.name << (p == Precision::exact ? " exact" : " standard") << " element " << i << " (b " << (ms[i] > 0)
                        << ", y " << ys[i] << "): cuda " << g << ", interp " << w;
                }
            };
            if (c.bf16) compare(bf16{});
            else compare(f32{});
        }
    }
}

// The argmin of a bool tile staged in shared memory reads its bytes one at a
// time (emit_reduction.cpp: arg_reduce): the 16-byte loads NVVM otherwise makes
// of them were where ptxas took a byte from a stale register (program 4500528).
TEST(CudaPtxasBoolBytes, ArgminOfBoolsReadsSharedMemoryByteByByte) {
    REQUIRE_NVRTC();
    auto k = kernel("bool_argmin", [](View<const f32, 2> m, View<i32, 1> out) {
        auto r = axis("r", 8), c = axis("c", 7);
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            (void)nest;
            auto b = m[coord(0, 0), shape(r, c)] >= 0.0f;
            out(coord(0), shape(c)).store(cast<i32>(argmin(b, r)));
        }
    });
    Tensor<f32> m({8, 7});
    Tensor<i32> out({7});
    const std::string ptx = generic_ptx(k, args_of(std::as_const(m).view(), out.view()), Precision::standard);
    EXPECT_GE(count(ptx, "ld.volatile.shared.u8") + count(ptx, "ld.volatile.shared.s8"), 8) << ptx.substr(0, 2000);
}
