// Precision fast (docs/semantics.md): standard, and f32 exp on the hardware's
// approximation where a target has one (cuda: the special function unit, the
// FlashAttention lowering folding the row maximum into one fma), and f32 division
// as the hardware's full-range approximation (cuda: div.full.f32, within 2 ulp). Targets without one
// compute as in standard. Checked against f64 (the bound the docs give) on a device,
// and in the generated source without one.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>

#include "examples/attention_bf16.h"
#include "targets/cuda/emit.h"
#include "targets/cuda/nvrtc.h"
#include "tests/unit/cuda_test_util.h"

using namespace kiln;
using namespace kiln::cuda_test;


namespace {

constexpr std::int64_t kBlock = 256;

Kernel exp_kernel() {
    return kernel("exp_probe", [](View<const f32, 1> x, View<f32, 1> y) {
        auto n = axis("n", kBlock);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), kBlock))))) {
            auto i0 = nest.index() * kBlock;
            y(coord(i0), shape(n)).store(exp(x[coord(i0), shape(n)]));
        }
    });
}

Kernel softmax_kernel() {
    return kernel("softmax_fast", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto v = x[coord(nest.index(), 0), shape(r, c)];
            auto e = exp(v - reduce(v, c, maximum));
            y(coord(nest.index(), 0), shape(r, c)).store(e / reduce(e, c, add));
        }
    });
}

std::vector<float> softmax_input(std::int64_t rows, std::int64_t cols) {
    std::mt19937 g(11);
    std::uniform_real_distribution<float> d(-30, 30);
    std::vector<float> v(static_cast<std::size_t>(rows * cols));
    for (auto& x : v) x = d(g);
    return v;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<float> softmax_on(const Target& t, Precision p, const std::vector<float>& in, std::int64_t rows, std::int64_t cols) {
    Tensor<f32> x({rows, cols}), y({rows, cols});
    x.values() = in;
    softmax_kernel().launch(t, p, std::as_const(x).view(), y.view());
    return y.values();
}

}  // namespace

// interp and cpu have no approximation to use: fast computes what standard does.
TEST(FastPrecision, InterpAndCpuComputeAsInStandard) {
    const std::int64_t rows = 7, cols = 300;
    const auto in = softmax_input(rows, cols);
    EXPECT_TRUE(same_bits(softmax_on(interp(), Precision::fast, in, rows, cols), softmax_on(interp(), Precision::standard, in, rows, cols)));
    EXPECT_TRUE(same_bits(softmax_on(cpu(), Precision::fast, in, rows, cols), softmax_on(cpu(), Precision::standard, in, rows, cols)));
}

TEST(FastPrecision, NamesRoundTrip) {
    for (Precision p : {Precision::exact, Precision::standard, Precision::fast}) EXPECT_EQ(precision_named(precision_name(p)), p);
    EXPECT_FALSE(precision_named("relaxed").has_value());
}

// The source: exp on the SFU only when asked for; the attention kernel folds the row
// maximum into one fma before it.
TEST(CudaFastPrecision, ExpIsTheApproximationOnlyWhenAskedFor) {
    REQUIRE_NVRTC();
    Tensor<f32> x({4, 512}), y({4, 512});
    auto args = args_of(std::as_const(x).view(), y.view());
    const std::string fast = cuda_text(softmax_kernel(), args, Precision::fast, What::source);
    const std::string standard = cuda_text(softmax_kernel(), args, Precision::standard, What::source);
    EXPECT_TRUE(contains(fast, "kc::exp_fast(")) << fast.substr(fast.size() > 3000 ? fast.size() - 3000 : 0);
    EXPECT_FALSE(contains(standard, "kc::exp_fast(")) << "standard promises exp within 2 ulp";
    EXPECT_TRUE(contains(standard, "expf("));
    EXPECT_TRUE(contains(cuda_text(softmax_kernel(), args, Precision::fast, What::plan), "fast precision"));
    EXPECT_TRUE(contains(cuda_text(softmax_kernel(), args, Precision::fast, What::ptx), "ex2.approx.ftz.f32"));

    Tensor<bf16> q({1, 2, 256, 64}), k({1, 2, 256, 64}), v({1, 2, 256, 64}), o({1, 2, 256, 64});
    auto qkv = args_of(std::as_const(q).view(), std::as_const(k).view(), std::as_const(v).view(), o.view());
    Kernel att = catalog::make_attention_kernel<bf16>("attention_fast", {64, 64, 1, false, 0.125f, 0});
    const std::string fa = cuda_text(att, qkv, Precision::fast, What::source);
    // The constant scale 0.125 folded (full attention): the maximum over S, scaled once
    // per row, and the probabilities 2^(S (0.125 log2 e) - m log2 e), one fma and the SFU.
    EXPECT_TRUE(contains(fa, "kc::exp_fast_scaled(kiln_s[j], 0x1.715476p-3f, ")) << "the probabilities: one fma and the SFU";
    EXPECT_TRUE(contains(fa, "[h] * 0x1p-3f;")) << "the row maximum scaled once";
    EXPECT_TRUE(contains(cuda_text(att, qkv, Precision::fast, What::plan), "score scale folded into the maximum"));
    EXPECT_FALSE(contains(cuda_text(att, qkv, Precision::standard, What::source), "kc::exp_fast"));
    EXPECT_FALSE(contains(cuda_text(att, qkv, Precision::standard, What::plan), "folded"));
    // Causal (the key range depends on the row; the fold measured slower there) and a
    // score that is not S times a constant (soft-capped) keep exp(x - m) as one fma.
    Kernel causal = catalog::make_attention_kernel<bf16>("attention_fast_causal", {64, 64, 1, true, 0.125f, 0});
    const std::string fcausal = cuda_text(causal, qkv, Precision::fast, What::source);
    EXPECT_TRUE(contains(fcausal, "kc::exp_fast_diff(kiln_s[j], "));
    EXPECT_FALSE(contains(fcausal, "kc::exp_fast_scaled("));
    // Folded on causal blocks too when asked (EmitOptions::attention_fold_scale = 2):
    // the masks select on S before one fma and one exp (never an exp a branch).
    {
        auto program = detail::specialize(*causal.shared_impl(), qkv, Loc::here());
        cu::EmitOptions o;
        o.precision = Precision::fast;
        o.attention_fold_scale = 2;
        const std::string folded = cu::emit_kernel(*program, o).source;
        EXPECT_TRUE(contains(folded, " ? kiln_s[j] : __uint_as_float(0xff800000u)), 0x1.715476p-3f, ")) << "the mask selects S";
        EXPECT_FALSE(contains(folded, "kc::exp_fast_diff(kiln_s[j], ")) << "no exp of the scaled score";
        EXPECT_FALSE(contains(folded, ": kc::exp_fast_diff(")) << "no exp in a mask's branch";
    }
    // By default the fold is taken on causal blocks where the program's query blocks
    // have 128 rows (measured faster there, slower with 64-row blocks: emit.h).
    Kernel causal128 = catalog::make_attention_kernel<bf16>("attention_fast_causal128", {128, 128, 1, true, 0.125f, 0});
    const std::string f128 = cuda_text(causal128, qkv, Precision::fast, What::source);
    EXPECT_TRUE(contains(f128, " ? kiln_s[j] : __uint_as_float(0xff800000u)), 0x1.715476p-3f, ")) << "the mask selects S";
    EXPECT_FALSE(contains(f128, "kc::exp_fast_diff(kiln_s[j], "));
    EXPECT_TRUE(contains(cuda_text(causal128, qkv, Precision::fast, What::plan), "(also where the keys or masks depend on the query row)"));
    Kernel capped = catalog::make_attention_kernel<bf16>("attention_fast_capped", {64, 64, 1, false, 0.125f, 30.0f});
    const std::string fc = cuda_text(capped, qkv, Precision::fast, What::source);
    EXPECT_TRUE(contains(fc, "kc::exp_fast_diff(kiln_s[j], "));
    EXPECT_FALSE(contains(fc, "kc::exp_fast_scaled("));
}

// Division: div.full.f32 only when asked for (and not with KILN_CUDA_FAST_DIVISION=0).
TEST(CudaFastPrecision, DivisionIsTheApproximationOnlyWhenAskedFor) {
    REQUIRE_NVRTC();
    Tensor<f32> x({4, 512}), y({4, 512});
    auto args = args_of(std::as_const(x).view(), y.view());
    EXPECT_TRUE(contains(cuda_text(softmax_kernel(), args, Precision::fast, What::source), "kc::fdiv_full("));
    EXPECT_TRUE(contains(cuda_text(softmax_kernel(), args, Precision::fast, What::ptx), "div.full.f32"));
    for (Precision p : {Precision::standard, Precision::exact}) {
        EXPECT_FALSE(contains(cuda_text(softmax_kernel(), args, p, What::source), "kc::fdiv_full(")) << "a correctly rounded quotient";
        EXPECT_TRUE(contains(cuda_text(softmax_kernel(), args, p, What::ptx), "div.rn.f32"));
    }
    auto program = detail::specialize(*softmax_kernel().shared_impl(), args, Loc::here());
    cu::EmitOptions o = cu::emit_options(args, CompileOptions{.precision = Precision::fast});
    o.fast_division = false;
    EXPECT_FALSE(contains(cu::emit_kernel(*program, o).source, "kc::fdiv_full("));
}

// Quotients of random bit patterns (every exponent, subnormals, infinities, NaN)
// against f64: within 2 ulp of the correctly rounded quotient where it is normal (the
// PTX ISA's bound; the first device run measured against the exact quotient found five
// of 2^24 just over 2 ulp of it, 2.00-2.07, each exactly 2 ulp from the correctly
// rounded one), within 2 ulp of 2^-149 or flushed to zero where it is subnormal; NaN
// where IEEE gives NaN, infinities and zeros where it gives them.
Kernel divide_kernel() {
    return kernel("divide_probe", [](View<const f32, 1> a, View<const f32, 1> b, View<f32, 1> y) {
        auto n = axis("n", kBlock);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(a.extent(0), kBlock))))) {
            auto i0 = nest.index() * kBlock;
            y(coord(i0), shape(n)).store(a[coord(i0), shape(n)] / b[coord(i0), shape(n)]);
        }
    });
}

TEST(CudaFastPrecisionDevice, DivisionIsWithinItsBound) {
    REQUIRE_DEVICE();
    const std::int64_t n = std::int64_t{1} << 24;
    Tensor<f32> a({n}), b({n}), y({n});
    std::mt19937 g(17);
    for (std::int64_t i = 0; i < n; ++i) {
        std::uint32_t ua = g(), ub = g();
        if (i % 2 == 0) ub = (ub & 0x807fffffu) | ((0x3f800000u + ((g() % 64u) << 23)) - (32u << 23));  // divisors near 1 too
        std::memcpy(&a.values()[static_cast<std::size_t>(i)], &ua, 4);
        std::memcpy(&b.values()[static_cast<std::size_t>(i)], &ub, 4);
    }
    auto ad = a.to(cuda()), bd = b.to(cuda());
    auto yd = y.to(cuda());
    divide_kernel().launch(cuda(), Precision::fast, std::as_const(ad).view(), std::as_const(bd).view(), yd.view());
    const std::vector<float> got = yd.to(host()).values();
    double worst = 0, worst_exact = 0;
    long flushed = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const float x = a.values()[i], z = b.values()[i], r = got[i];
        const double want = static_cast<double>(x) / static_cast<double>(z);
        const float rounded = static_cast<float>(want);
        if (std::isnan(rounded)) {
            EXPECT_TRUE(std::isnan(r)) << x << " / " << z << " = " << r;
            continue;
        }
        if (std::isinf(z) || x == 0.0f || std::isinf(x) || z == 0.0f) {  // exact results: zeros and infinities
            EXPECT_EQ(r, rounded) << x << " / " << z;
            continue;
        }
        if (std::abs(want) > static_cast<double>(FLT_MAX)) {  // overflows, or rounds to the largest float
            EXPECT_TRUE(std::isinf(r) || std::abs(r) >= FLT_MAX / 2) << x << " / " << z << " = " << r;
            continue;
        }
        if (std::abs(want) < FLT_MIN) {
            flushed += r == 0.0f && want != 0.0;
            EXPECT_TRUE(r == 0.0f || std::abs(static_cast<double>(r) - want) <= 0x1p-148) << x << " / " << z << " = " << r << ", want " << want;
            continue;
        }
        const double ulp = std::ldexp(1.0, std::ilogb(rounded) - 23);
        const double ulps = std::abs(static_cast<double>(r) - static_cast<double>(rounded)) / ulp;
        worst = std::max(worst, ulps);
        worst_exact = std::max(worst_exact, std::abs(static_cast<double>(r) - want) / std::ldexp(1.0, std::ilogb(want) - 23));
        EXPECT_LE(ulps, 2.0) << x << " / " << z << " = " << r << ", correctly rounded " << rounded;
    }
    std::printf("[ fast division ] %zu quotients, worst %.3f ulp of the correctly rounded quotient (%.3f of the exact one; normal results), %ld subnormal ones flushed to zero\n",
                got.size(), worst, worst_exact, flushed);
}

// Every f32 input from below the subnormal results to the overflow, and the special
// values, against exp in f64: within 2 + 1.2|x| ulp, results below 2^-126 flushed to
// zero (or within the bound), exp(NaN) = NaN, exp(-inf) = 0, exp(inf) = inf, exp(+-0) = 1.
TEST(CudaFastPrecisionDevice, ExpIsWithinItsBound) {
    REQUIRE_DEVICE();
    std::vector<float> in;
    for (float x = -104.0f; x < 88.5f; x += 0.00390625f) in.push_back(x);
    for (float s : {std::nanf(""), -INFINITY, INFINITY, 0.0f, -0.0f, 1e-30f, -1e-30f}) in.push_back(s);
    std::mt19937 g(5);
    std::uniform_real_distribution<float> d(-1, 1);
    while (in.size() % kBlock) in.push_back(d(g));
    const auto n = static_cast<std::int64_t>(in.size());
    Tensor<f32> x({n}), y({n});
    x.values() = in;
    auto xd = x.to(cuda());
    auto yd = y.to(cuda());
    exp_kernel().launch(cuda(), Precision::fast, std::as_const(xd).view(), yd.view());
    const std::vector<float> got = yd.to(host()).values();
    double worst = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const float a = in[i], r = got[i];
        if (std::isnan(a)) {
            EXPECT_TRUE(std::isnan(r));
            continue;
        }
        const double want = std::exp(static_cast<double>(a));
        if (want > static_cast<double>(FLT_MAX) / 2) {  // at the overflow edge 2^(x log2 e) may round up to inf
            EXPECT_TRUE(r >= FLT_MAX / 4) << a;
            continue;
        }
        if (want < FLT_MIN) {  // flushed, or within the bound
            EXPECT_TRUE(r >= 0 && r <= FLT_MIN) << a << " -> " << r;
            continue;
        }
        const double ulp = std::ldexp(1.0, std::ilogb(want) - 23);
        const double ulps = std::abs(static_cast<double>(r) - want) / ulp;
        worst = std::max(worst, ulps / (2 + 1.2 * std::abs(a)));
        EXPECT_LE(ulps, 2 + 1.2 * std::abs(a)) << "exp(" << a << ") = " << r << ", want " << want;
    }
    std::printf("[ fast exp ] %zu inputs, worst error / bound %.3f\n", in.size(), worst);
}

// The FlashAttention kernel in fast precision (causal, a ragged length, grouped
// heads) against f64: as close as standard's, and within the bench's bar.
TEST(CudaFastPrecisionDevice, AttentionMatchesF64AsCloselyAsStandard) {
    REQUIRE_DEVICE();
    const std::int64_t b = 1, h = 4, hkv = 2, s = 333, d = 64;
    Tensor<bf16> q({b, h, s, d}), k({b, hkv, s, d}), v({b, hkv, s, d});
    std::mt19937 g(3);
    std::uniform_real_distribution<float> wide(-2, 2), unit(-1, 1);
    for (auto* t : {&q, &k}) for (auto& x : t->values()) x = bf16(wide(g));
    for (auto& x : v.values()) x = bf16(unit(g));
    const float scale = 0.125f;
    Kernel att = catalog::make_attention_kernel<bf16>("attention_fast", {64, 64, h / hkv, true, scale, 0});
    auto qd = q.to(cuda()), kd = k.to(cuda()), vd = v.to(cuda());
    auto run = [&](Precision p) {
        Tensor<bf16> o({b, h, s, d});
        auto od = o.to(cuda());
        att.launch(cuda(), p, std::as_const(qd).view(), std::as_const(kd).view(), std::as_const(vd).view(), od.view());
        return od.to(host()).values();
    };
    const auto fast = run(Precision::fast), standard = run(Precision::standard);
    double e_fast = 0, e_std = 0, norm = 0;
    for (std::int64_t hh = 0; hh < h; ++hh)
        for (std::int64_t i = 0; i < s; ++i) {
            const bf16* qi = q.values().data() + (hh * s + i) * d;
            const std::int64_t kvh = hh / (h / hkv);
            std::vector<double> w(static_cast<std::size_t>(i + 1));
            double peak = -INFINITY, total = 0;
            for (std::int64_t j = 0; j <= i; ++j) {
                double dot = 0;
                for (std::int64_t e = 0; e < d; ++e) dot += double(float(qi[e])) * double(float(k.values()[(kvh * s + j) * d + e]));
                peak = std::max(peak, w[j] = dot * scale);
            }
            for (auto& x : w) total += (x = std::exp(x - peak));
            for (std::int64_t e = 0; e < d; ++e) {
                double ref = 0;
                for (std::int64_t j = 0; j <= i; ++j) ref += w[j] * double(float(v.values()[(kvh * s + j) * d + e]));
                ref /= total;
                const std::size_t at = static_cast<std::size_t>((hh * s + i) * d + e);
                e_fast += std::pow(double(float(fast[at])) - ref, 2);
                e_std += std::pow(double(float(standard[at])) - ref, 2);
                norm += ref * ref;
            }
        }
    const double rel_fast = std::sqrt(e_fast / norm), rel_std = std::sqrt(e_std / norm);
    std::printf("[ fast attention ] relative L2 against f64: fast %.3e, standard %.3e\n", rel_fast, rel_std);
    EXPECT_LE(rel_fast, 1.1 * rel_std + 1e-4);
    EXPECT_LE(rel_fast, 1e-2);
}

// A launch the attention kernel refuses runs the generic kernel: keys whose rows are
// 130 bytes apart (TMA takes multiples of 16; the module is compiled with the generic
// kernel from the first), and keys in every other channel (rows aligned: the module
// without it first, then with it: EmitOptions::generic_kernel); the same keys packed
// run the attention kernel. The outputs against each other (the same blocks; only the
// order of the sums differs).
TEST(CudaFastPrecisionDevice, AttentionTheKernelRefusesRunsTheGenericKernelCompiledThen) {
    REQUIRE_DEVICE();
    const std::int64_t b = 1, h = 4, hkv = 2, s = 300, d = 64;
    Tensor<bf16> q({b, h, s, d}), k({b, hkv, s, d + 1}), v({b, hkv, s, d});
    std::mt19937 g(5);
    std::uniform_real_distribution<float> wide(-2, 2), unit(-1, 1);
    for (auto* t : {&q, &k}) for (auto& x : t->values()) x = bf16(wide(g));
    for (auto& x : v.values()) x = bf16(unit(g));
    Tensor<bf16> packed({b, hkv, s, d}), spread({b, hkv, s, 2 * d});
    for (std::int64_t r = 0; r < b * hkv * s; ++r)
        for (std::int64_t e = 0; e < d; ++e) spread.values()[r * 2 * d + 2 * e] = packed.values()[r * d + e] = k.values()[r * (d + 1) + e];
    Kernel att = catalog::make_attention_kernel<bf16>("attention_refused", {64, 64, h / hkv, true, 0.125f, 0});
    auto qd = q.to(cuda()), kd = k.to(cuda()), pd = packed.to(cuda()), sd = spread.to(cuda()), vd = v.to(cuda());
    const HostView<const bf16> strided{kd.data(), {b, hkv, s, d}, {hkv * s * (d + 1), s * (d + 1), d + 1, 1}, Device::cuda, kd.ordinal()};
    const HostView<const bf16> every_other{sd.data(), {b, hkv, s, d}, {hkv * s * 2 * d, s * 2 * d, 2 * d, 2}, Device::cuda, sd.ordinal()};
    auto run = [&](const HostView<const bf16>& keys) {
        Tensor<bf16> o({b, h, s, d});
        auto od = o.to(cuda());
        att.launch(cuda(), std::as_const(qd).view(), keys, std::as_const(vd).view(), od.view());
        return od.to(host()).values();
    };
    const auto fa = run(std::as_const(pd).view());
    for (const auto* keys : {&strided, &every_other}) {
        const auto generic = run(*keys);
        double e = 0, norm = 0;
        for (std::size_t i = 0; i < fa.size(); ++i) {
            e += std::pow(double(float(fa[i])) - double(float(generic[i])), 2);
            norm += std::pow(double(float(fa[i])), 2);
        }
        EXPECT_GT(norm, 0);
        EXPECT_LE(std::sqrt(e / norm), 1e-2) << (keys == &strided ? "rows 130 bytes apart" : "every other channel");
    }
}
