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
// ptxas's code (program 4500528), and so did a gather of a reversed bool row read
// as one `ld.shared.v4.u16` (program 6405128); the emitter reaches bools in shared
// memory through volatile pointers, one byte at a time (emitter.cpp: shared_element_type).
//
// CudaNegatedInt32MinMax: ptxas fuses two dependent signed 32-bit minimums (or
// maximums) into a VIMNMX3 and drops the negation of an operand it folds into it,
// min(min(a, -b), c) = min(a, b, c): a reduce_min of a negated i32 row gave -24
// for -13 on the device (program 3710388, bench/results/gpu-20261204-s20). The
// user's i8/i32 minimum and maximum compare in the unsigned order of the values
// with the sign bit flipped, and an i32 negation is a not and an add
// (prelude.cpp: "ptxas and negated int32 operands").
//
// CudaAbsAgainstNonPositive: ptxas folds setp.ge.f32 (or .gt) of an abs.f32 against
// a constant <= 0 to true, as if |x| could not be NaN: `-2.5 <= abs(x - x)` was 1 on
// the device for x = inf (program 5640584, bench/results/gpu-20261206-s33). The
// emitter clears the sign bit with an and.b32 instead (prelude.cpp: "ptxas and |x|
// against a constant <= 0").
//
// CudaBoolToF64: ptxas builds f64 selects of constants with zero low words (a bool
// cast to f64, and what it folds from it) as register pairs sharing one zero low
// register, and dropped four of eight f64 -> f32 narrowings of such pairs as repeats
// (program 6545841: an f16 2.0 where the interpreter stores 0.0; prelude.cpp: "ptxas
// and f64 values built from halves"). A bool reaches f64 through a cvt of an integer
// NVVM cannot see, never as a select.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>

#include "cuda_test_util.h"
#include "ptx_hazards.h"

using namespace kiln;
using namespace kiln::cuda_test;
using namespace kiln::ptx_hazards;

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

// The scan finds what it is for: the select NVVM wrote before the emitter's change.
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

namespace {

// Bool tiles moved through shared memory every way the emitter moves them: a row
// gathered reversed (fuzz program 6405128's reindex, whose seven reads NVVM merged
// into one `ld.shared.v4.u16` and ptxas compiled with byte 6 from a register the
// load never wrote), a transpose, and an argmax over the reversed rows.
Kernel bool_moves() {
    return kernel("bool_moves", [](View<const f32, 2> m, View<i32, 2> flipped, View<i32, 2> transposed, View<i64, 2> arg) {
        auto r = axis("r", 8), c = axis("c", 7), one = axis("one", 1);
        for (auto& nest : parallel(shape(axis("one_instance", 1)))) {
            (void)nest;
            auto b = m[coord(0, 0), shape(r, c)] >= 0.0f;
            auto f = reindex(b, shape(r, c), [&](const Nest& e) { return coord(e.index(r), Scalar<i64>(6) - e.index(c)); });
            flipped(coord(0, 0), shape(r, c)).store(cast<i32>(f));
            transposed(coord(0, 0), shape(c, r)).store(cast<i32>(reindex(b, shape(c, r), [&](const Nest& e) { return coord(e.index(r), e.index(c)); })));
            arg(coord(0, 0), shape(r, one)).store(reshape(argmax(f, c), shape(r, one)));
        }
    });
}

struct BoolMoveBuffers {
    Tensor<f32> m{{8, 7}};
    Tensor<i32> flipped{{8, 7}}, transposed{{7, 8}};
    Tensor<i64> arg{{8, 1}};
    std::vector<detail::Arg> args() { return args_of(std::as_const(m).view(), flipped.view(), transposed.view(), arg.view()); }
};

}  // namespace

TEST(CudaPtxasBoolBytes, BoolTilesMovedThroughSharedMemoryAreReadByteByByte) {
    REQUIRE_NVRTC();
    BoolMoveBuffers b;
    for (Precision p : {Precision::exact, Precision::standard}) {
        const std::string ptx = generic_ptx(bool_moves(), b.args(), p);
        const auto found = merged_shared_subword_loads(ptx);
        EXPECT_TRUE(found.empty()) << found.size() << " shared reads below a word, first: " << found[0];
        EXPECT_GE(count(ptx, "ld.volatile.shared.u8"), 7) << ptx.substr(0, 2000);
    }
}

TEST(CudaPtxasBoolBytes, BoolTilesMovedThroughSharedMemoryMatchTheInterpreter) {
    REQUIRE_DEVICE();
    for (unsigned seed : {1u, 2u, 3u}) {
        std::mt19937 g(seed);
        std::uniform_real_distribution<float> d(-1.0f, 1.0f);
        std::vector<float> mv(56);
        for (float& v : mv) v = d(g);
        BoolMoveBuffers want;
        want.m = Tensor<f32>({8, 7}, mv);
        run_kernel(bool_moves(), interp(), want.args(), {.precision = Precision::exact}, Loc::here());
        auto md = want.m.to(cuda());
        auto fd = Tensor<i32>({8, 7}).to(cuda()), td = Tensor<i32>({7, 8}).to(cuda());
        auto ad = Tensor<i64>({8, 1}).to(cuda());
        run_kernel(bool_moves(), cuda(), args_of(std::as_const(md), fd, td, ad), {.precision = Precision::exact}, Loc::here());
        EXPECT_EQ(fd.to(host()).values(), want.flipped.values()) << "seed " << seed << ": the reversed rows";
        EXPECT_EQ(td.to(host()).values(), want.transposed.values()) << "seed " << seed << ": the transpose";
        EXPECT_EQ(ad.to(host()).values(), want.arg.values()) << "seed " << seed << ": argmax of the reversed rows";
    }
}

// The scan finds what it is for: program 6405128's load before the change and a
// pair of bytes, and not a volatile byte, a word, or one byte of a wider value.
TEST(CudaPtxasBoolBytes, TheScanFindsMergedSubwordLoads) {
    const std::string ptx = "\tld.shared.v4.u16 \t{%rs119, %rs120, %rs121, %rs122}, [kiln_smem];\n\tld.volatile.shared.u8 \t%rs1, [%rd3];\n"
                            "\tld.shared.f32 \t%f37, [%rd6];\n\tld.shared.v2.u64 \t{%rd194, %rd195}, [kiln_smem];\n\tld.shared.u8 \t%rd637, [%rd521+112];\n"
                            "\tld.shared.v2.u8 \t{%rs9, %rs10}, [%rd4];\n";
    const auto found = merged_shared_subword_loads(ptx);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].rfind("ld.shared.v4.u16", 0), 0u) << found[0];
    EXPECT_EQ(found[1].rfind("ld.shared.v2.u8", 0), 0u) << found[1];
}

namespace {

// Three ways the user's code meets the fault: a row minimum of a negated row (the
// fuzz program's), a chain of elementwise minimums and maximums over negations,
// and an argmin over a negated row (whose running minimum NVVM makes a min.s32).
template <Element T> Kernel negated_min_max(const char* name) {
    return kernel(name, [](View<const T, 2> a, View<const T, 2> b, View<T, 2> row_min, View<T, 2> chain, View<i64, 2> arg) {
        auto r = axis("r", 16), c = axis("c", 8), one = axis("one", 1);
        for (auto& nest : parallel(shape(axis("blocks", a.extent(0) / 16)))) {
            auto origin = coord(nest.index() * 16, 0);
            auto x = a[origin, shape(r, c)], y = b[origin, shape(r, c)];
            row_min(origin, shape(r, one)).store(reshape(reduce(-x, c, minimum), shape(r, one)));
            chain(origin, shape(r, c)).store(maximum(minimum(minimum(x, -y), -x), -(y + x)) + minimum(minimum(x, T(0) - y), y * T(-1)));
            arg(origin, shape(r, one)).store(reshape(argmin(-x, c), shape(r, one)));
        }
    });
}

template <Element T> struct NegatedBuffers {
    static constexpr std::int64_t rows = 64, cols = 8;
    Tensor<T> a{{rows, cols}}, b{{rows, cols}}, row_min{{rows, 1}}, chain{{rows, cols}};
    Tensor<i64> arg{{rows, 1}};
    std::vector<detail::Arg> args() { return args_of(std::as_const(a).view(), std::as_const(b).view(), row_min.view(), chain.view(), arg.view()); }
};

}  // namespace

TEST(CudaNegatedInt32MinMax, NoSignedMinimumOrMaximumReadsANegation) {
    REQUIRE_NVRTC();
    NegatedBuffers<i32> i32s;
    NegatedBuffers<i8> i8s;
    for (Precision p : {Precision::exact, Precision::standard}) {
        for (const std::string& ptx : {generic_ptx(negated_min_max<i32>("negated_i32"), i32s.args(), p),
                                       generic_ptx(negated_min_max<i8>("negated_i8"), i8s.args(), p)}) {
            ASSERT_FALSE(ptx.empty());
            const auto found = negated_signed_min_max(ptx);
            EXPECT_TRUE(found.empty()) << found.size() << " signed min/max of a negation, first: " << found[0];
            // The user's minimums and maximums, in the flipped unsigned order.
            EXPECT_GT(count(ptx, "min.u32"), 0);
            EXPECT_GT(count(ptx, "max.u32"), 0);
        }
    }
}

// The scan finds what it is for: the fuzz program's PTX before the change.
TEST(CudaNegatedInt32MinMax, TheScanFindsTheHazard) {
    const std::string ptx = "\tneg.s32 \t%r120, %r266;\n\tneg.s32 \t%r121, %r262;\n\tmin.s32 \t%r122, %r121, %r120;\n\tmin.s32 \t%r132, %r122, %r125;\n";
    const auto found = negated_signed_min_max(ptx);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0], "min.s32 \t%r122, %r121, %r120;");
}

// On the device: bit for bit as the interpreter computes them, over values that
// include the extremes (the negation of the smallest wraps to itself).
TEST(CudaNegatedInt32MinMax, DeviceAgreesWithTheInterpreter) {
    REQUIRE_DEVICE();
    auto compare = [](auto tag, const char* name, int lo, int hi) {
        using T = decltype(tag);
        std::mt19937 g(17);
        std::uniform_int_distribution<int> d(lo, hi);
        NegatedBuffers<T> in, want;
        std::vector<T> av, bv;
        for (std::int64_t i = 0; i < in.rows * in.cols; ++i) {
            av.push_back(static_cast<T>(i % 13 == 0 ? lo : i % 17 == 0 ? hi : d(g)));
            bv.push_back(static_cast<T>(i % 11 == 0 ? lo : d(g)));
        }
        in.a = Tensor<T>({in.rows, in.cols}, av);
        in.b = Tensor<T>({in.rows, in.cols}, bv);
        want.a = in.a;
        want.b = in.b;
        run_kernel(negated_min_max<T>(name), interp(), want.args(), {.precision = Precision::exact}, Loc::here());
        auto ad = in.a.to(cuda()), bd = in.b.to(cuda());
        auto rd = Tensor<T>({in.rows, 1}).to(cuda()), cd = Tensor<T>({in.rows, in.cols}).to(cuda());
        auto gd = Tensor<i64>({in.rows, 1}).to(cuda());
        run_kernel(negated_min_max<T>(name), cuda(), args_of(std::as_const(ad), std::as_const(bd), rd, cd, gd), {.precision = Precision::exact},
                   Loc::here());
        EXPECT_EQ(rd.to(host()).values(), want.row_min.values()) << name << ": row minimums";
        EXPECT_EQ(cd.to(host()).values(), want.chain.values()) << name << ": the chain";
        EXPECT_EQ(gd.to(host()).values(), want.arg.values()) << name << ": argmin";
    };
    compare(i32{}, "negated_i32", std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max());
    compare(i32{}, "negated_i32", -30, 30);
    compare(i8{}, "negated_i8", -128, 127);
}

namespace {

// The fuzz program's comparison and its neighbours, each stored as 0 or 1.
template <Element T> Kernel abs_compares(const char* name) {
    return kernel(name, [](View<const T, 1> x, View<i32, 2> out) {
        auto n = axis("n", kN), one = axis("one", 1);
        for (auto& nest : parallel(shape(axis("one_instance", 1)))) {
            (void)nest;
            auto v = x[coord(0), shape(n)];
            const std::vector<Tile<bool>> tests = {T(-2.5f) <= abs(v - v), abs(v) >= T(0.0f), abs(v) > T(-1.0f), T(0.0f) <= abs(v)};
            for (std::int64_t i = 0; i < static_cast<std::int64_t>(tests.size()); ++i)
                out(coord(i, 0), shape(one, n)).store(reshape(cast<i32>(tests[static_cast<std::size_t>(i)]), shape(one, n)));
        }
    });
}
constexpr std::int64_t kAbsTests = 4;

std::vector<float> abs_inputs() {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    return {inf, -inf, nan, -nan, 0.0f, -0.0f, 1.0f, -1.0f, 2.5f, -2.5f, 1e-45f, -1e-45f, 3e38f, -3e38f, 0.5f, -7.0f};
}

}  // namespace

TEST(CudaAbsAgainstNonPositive, PtxClearsTheSignBitInsteadOfAbs) {
    REQUIRE_NVRTC();
    Tensor<f32> x({kN});
    Tensor<bf16> xb({kN});
    Tensor<i32> out({kAbsTests, kN});
    for (Precision p : {Precision::exact, Precision::standard}) {
        for (const std::string& ptx : {cuda_text(abs_compares<f32>("abs_compares_f32"), args_of(std::as_const(x).view(), out.view()), p, What::ptx),
                                       cuda_text(abs_compares<bf16>("abs_compares_bf16"), args_of(std::as_const(xb).view(), out.view()), p, What::ptx)}) {
            ASSERT_FALSE(ptx.empty());
            EXPECT_EQ(count(ptx, "abs.f32"), 0) << "an abs.f32 ptxas may compare as if it could not be NaN";
            EXPECT_GT(count(ptx, "and.b32"), 0);
        }
    }
}

// On the device: each comparison as the interpreter makes it, NaNs and infinities among the inputs.
TEST(CudaAbsAgainstNonPositive, DeviceAgreesWithTheInterpreter) {
    REQUIRE_DEVICE();
    auto compare = [](auto tag, const char* name) {
        using T = decltype(tag);
        std::vector<T> xs;
        for (float v : abs_inputs()) xs.push_back(T(v));
        Tensor<T> x({kN}, xs);
        Tensor<i32> want({kAbsTests, kN});
        for (Precision p : {Precision::exact, Precision::standard}) {
            run_kernel(abs_compares<T>(name), interp(), args_of(std::as_const(x).view(), want.view()), {.precision = p}, Loc::here());
            auto xd = x.to(cuda());
            auto od = Tensor<i32>({kAbsTests, kN}).to(cuda());
            run_kernel(abs_compares<T>(name), cuda(), args_of(std::as_const(xd), od), {.precision = p}, Loc::here());
            EXPECT_EQ(od.to(host()).values(), want.values()) << name << (p == Precision::exact ? " exact" : " standard");
        }
    };
    compare(f32{}, "abs_compares_f32");
    compare(bf16{}, "abs_compares_bf16");
}

// The interpreter's answers (what the device must match): NaN compares false, every
// other |x| is >= 0 and so above any negative constant.
TEST(CudaAbsAgainstNonPositive, TheInterpreterKeepsNaNFalse) {
    Tensor<f32> x({kN}, abs_inputs());
    Tensor<i32> out({kAbsTests, kN});
    run_kernel(abs_compares<f32>("abs_compares_f32"), interp(), args_of(std::as_const(x).view(), out.view()), {.precision = Precision::exact}, Loc::here());
    const auto v = out.values();
    const auto in = abs_inputs();
    for (std::int64_t i = 0; i < kN; ++i) {
        const bool nan = std::isnan(in[static_cast<std::size_t>(i)]), inf = std::isinf(in[static_cast<std::size_t>(i)]);
        EXPECT_EQ(v[static_cast<std::size_t>(i)], nan || inf ? 0 : 1) << "|x - x| >= -2.5 for x = " << in[static_cast<std::size_t>(i)];
        for (std::int64_t t = 1; t < kAbsTests; ++t) EXPECT_EQ(v[static_cast<std::size_t>(t * kN + i)], nan ? 0 : 1) << "test " << t << ", x = " << in[static_cast<std::size_t>(i)];
    }
}

namespace {

// The shape of program 6545841's arithmetic: a bool cast to f64, doubled, selected
// against itself by another comparison and narrowed to f16, eight elements a thread.
Kernel bool_to_f64_kernel() {
    return kernel("bool_to_f64", [](View<const f32, 1> m, View<const f32, 1> y, View<f16, 1> out) {
        auto n = axis("n", kN);
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            (void)nest;
            auto d = cast<f64>(m[coord(0), shape(n)] > 0.0f);
            out(coord(0), shape(n)).store(cast<f16>(ite(y[coord(0), shape(n)] > 0.0f, d, d + d)));
        }
    });
}

std::vector<detail::Arg> bool_to_f64_args(Tensor<f32>& m, Tensor<f32>& y, Tensor<f16>& out) {
    return args_of(std::as_const(m).view(), std::as_const(y).view(), out.view());
}

}  // namespace

TEST(CudaBoolToF64, PtxConvertsAnIntInsteadOfSelectingDoubles) {
    REQUIRE_NVRTC();
    Tensor<f32> m({kN}), y({kN});
    Tensor<f16> out({kN});
    for (Precision p : {Precision::exact, Precision::standard}) {
        const std::string ptx = generic_ptx(bool_to_f64_kernel(), bool_to_f64_args(m, y, out), p);
        ASSERT_FALSE(ptx.empty());
        // selp.f64 of two computed values (the ite) is fine; of immediates, ptxas may build
        // them from a shared zero half.
        EXPECT_EQ(count(ptx, ", 0d"), 0) << "an f64 immediate (a select of constants?) in:\n" << ptx;
        EXPECT_GT(count(ptx, "cvt.rn.f64.s"), 0);  // from an integer
    }
}

// On the device: 0.0, 1.0 and 2.0 where the interpreter has them, every pairing of the
// two comparisons.
TEST(CudaBoolToF64, DeviceAgreesWithTheInterpreter) {
    REQUIRE_DEVICE();
    std::vector<float> ms, ys;
    for (std::int64_t i = 0; i < kN; ++i) {
        ms.push_back(i % 3 == 0 ? 1.0f : -1.0f);
        ys.push_back(i % 2 == 0 ? 1.0f : -1.0f);
    }
    for (Precision p : {Precision::exact, Precision::standard}) {
        Tensor<f32> m({kN}, ms), y({kN}, ys);
        Tensor<f16> want({kN});
        run_kernel(bool_to_f64_kernel(), interp(), bool_to_f64_args(m, y, want), {.precision = p}, Loc::here());
        auto md = m.to(cuda()), yd = y.to(cuda());
        auto od = Tensor<f16>({kN}).to(cuda());
        run_kernel(bool_to_f64_kernel(), cuda(), args_of(std::as_const(md), std::as_const(yd), od), {.precision = p}, Loc::here());
        const auto got = od.to(host()).values();
        for (std::size_t i = 0; i < got.size(); ++i) {
            const float expected = ys[i] > 0 ? (ms[i] > 0 ? 1.0f : 0.0f) : (ms[i] > 0 ? 2.0f : 0.0f);
            EXPECT_EQ(static_cast<float>(want.values()[i]), expected) << "the interpreter, element " << i;
            EXPECT_EQ(static_cast<float>(got[i]), expected) << (p == Precision::exact ? "exact" : "standard") << ", element " << i;
        }
    }
}

namespace {

// Conversions to f64 of values NVVM knows to be selects of constants: an i32 select of
// constants cast to f16 (through f64) and an f32 one cast to f64, then narrowed
// (program 6600205's PTX: an argmax index cast to f16 had become selects of 0.0 .. 4.0
// narrowed by cvt.rn.f16.f64).
Kernel conversions_to_f64_kernel() {
    return kernel("conversions_to_f64", [](View<const f32, 1> m, View<const f32, 1> y, View<f16, 1> out, View<f32, 1> out2) {
        auto n = axis("n", kN);
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            (void)nest;
            auto a = m[coord(0), shape(n)] > 0.0f, b = y[coord(0), shape(n)] > 0.0f;
            out(coord(0), shape(n)).store(cast<f16>(ite(a, 1, ite(b, 2, 0))));
            out2(coord(0), shape(n)).store(cast<f32>(cast<f16>(cast<f64>(ite(a, 1.0f, 2.0f)))));
        }
    });
}

}  // namespace

TEST(CudaBoolToF64, ConversionsToF64NarrowNoValueBuiltFromOneLowWord) {
    REQUIRE_NVRTC();
    Tensor<f32> m({kN}), y({kN}), out2({kN});
    Tensor<f16> out({kN});
    for (Precision p : {Precision::exact, Precision::standard}) {
        const std::string ptx =
            generic_ptx(conversions_to_f64_kernel(), args_of(std::as_const(m).view(), std::as_const(y).view(), out.view(), out2.view()), p);
        ASSERT_FALSE(ptx.empty());
        for (const auto& s : narrowed_f64_of_shared_low_words(ptx)) ADD_FAILURE() << (p == Precision::exact ? "exact: " : "standard: ") << s;
    }
}
