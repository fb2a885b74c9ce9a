// The cuda target on a device: kernels run and agree with the interpreter (bit for
// bit in exact mode). Without a device every test here skips, saying why; the
// availability messages themselves are checked in that case.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "cuda_test_util.h"

using namespace kiln;
using namespace kiln::cuda_test;


namespace {

template <class T> std::vector<T> random_values(std::size_t n, unsigned seed, double lo = -1, double hi = 1) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> d(lo, hi);
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(d(g));
    return v;
}

// Bit equality, NaN equal to NaN (payloads are not part of the contract).
template <class T> void expect_same_bits(const std::vector<T>& got, const std::vector<T>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        if constexpr (std::is_floating_point_v<T>)
            if (std::isnan(got[i]) && std::isnan(want[i])) continue;
        EXPECT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0) << "element " << i << ": " << double(got[i]) << " vs " << double(want[i]);
    }
}

Kernel softmax_kernel() {
    return kernel("softmax", [](View<const f32, 2> x, View<f32, 2> y) {
        auto rows = axis("rows", x.extent(0));
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(rows))) {
            auto v = x[coord(nest.index(), 0), shape(r, c)];
            auto e = exp(v - reduce(v, c, maximum));
            y(coord(nest.index(), 0), shape(r, c)).store(e / reduce(e, c, add));
        }
    });
}

}  // namespace

TEST(CudaDevice, UnavailableSaysPreciselyWhatIsMissing) {
    if (cuda().available()) GTEST_SKIP() << "a CUDA device is present";
    std::string why = cuda().unavailable_reason();
    EXPECT_TRUE(why == "no CUDA driver (libcuda.so.1 not found)" || why == "no CUDA device" || contains(why, "NVRTC") ||
                contains(why, "compute capability"))
        << why;
    Tensor<f32> x({4});
    try {
        auto d = x.to(cuda());
        FAIL() << "device memory without a device";
    } catch (const Error& e) {
        EXPECT_TRUE(contains(e.what(), why)) << e.what();
    }
    // Views that claim device memory (as a tensor's .to(cuda()) would give): host
    // memory is refused before availability is asked (tests/errors/argument_errors_test.cpp).
    std::vector<float> bytes(16);
    HostView<const f32> in{bytes.data(), {4, 4}, {4, 1}, Device::cuda};
    HostView<f32> out{bytes.data(), {4, 4}, {4, 1}, Device::cuda};
    try {
        softmax_kernel().launch(cuda(), in, out);
        FAIL() << "a launch without a device";
    } catch (const Error& e) {
        EXPECT_TRUE(contains(e.what(), "target 'cuda' is not available: " + why)) << e.what();
    }
}

TEST(CudaDevice, TensorsRoundTripThroughDeviceMemory) {
    REQUIRE_DEVICE();
    Tensor<f32> x({3, 5}, random_values<float>(15, 1));
    auto d = x.to(cuda());
    EXPECT_EQ(d.device(), Device::cuda);
    auto back = d.to(cuda()).to(host());
    EXPECT_EQ(back.values(), x.values());
}

TEST(CudaDevice, SoftmaxMatchesTheInterpreterBitForBitInExactMode) {
    REQUIRE_DEVICE();
    for (auto [rows, cols] : {std::pair{3, 7}, std::pair{37, 300}}) {
        Tensor<f32> x({rows, cols}, random_values<float>(static_cast<std::size_t>(rows * cols), 2, -8, 8)), want({rows, cols});
        softmax_kernel().launch(interp(), std::as_const(x).view(), want.view());
        auto xd = x.to(cuda());
        auto yd = Tensor<f32>({rows, cols}).to(cuda());
        run_kernel(softmax_kernel(), cuda(), args_of(std::as_const(xd), yd), {.precision = Precision::exact}, Loc::here());
        expect_same_bits(yd.to(host()).values(), want.values());
        run_kernel(softmax_kernel(), cuda(), args_of(std::as_const(xd), yd), {.precision = Precision::standard}, Loc::here());
        auto got = yd.to(host()).values();
        for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want.values()[i], 1e-6 + 1e-5 * want.values()[i]);
    }
}

TEST(CudaDevice, RaggedTailsReadTheFallbackAndDropStores) {
    REQUIRE_DEVICE();
    auto k = kernel("tail", [](View<const f32, 1> x, View<f32, 1> y) {
        auto b = axis("b", 4);
        for (auto& n : parallel(shape(axis("blocks", ceil_div(x.extent(0), 4))))) {
            auto v = x(coord(n.index() * 4), shape(b)).load(-1.0f);
            y(coord(n.index() * 4), shape(b)).store(v * 2.0f + reduce(v, b, add));
        }
    });
    Tensor<f32> x({6}, {1, 2, 3, 4, 5, 6});
    Tensor<f32> y({8}, {0, 0, 0, 0, 0, 0, 42, 43});
    auto xd = x.to(cuda()), yd = y.to(cuda());
    auto yv = HostView<f32>{yd.data(), {6}, {1}, Device::cuda};  // the kernel sees 6 of the 8 elements
    k.launch(cuda(), std::as_const(xd).view(), yv);
    EXPECT_EQ(yd.to(host()).values(), (std::vector<float>{12, 14, 16, 18, 19, 21, 42, 43}));
}

TEST(CudaDevice, F16GemmOnTensorCoresIsCloseAndExactModeIsExact) {
    REQUIRE_DEVICE();
    auto k = kernel("gemm", [](View<const f16, 2> A, View<const f16, 2> B, View<f32, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent(0), 32)), gn = axis("block_n", ceil_div(B.extent(1), 32));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), 16));
        auto m = axis("m", 32), n = axis("n", 32), kk = axis("k", 16);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 32, n0 = nest.index(gn) * 32;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt))) {
                auto k0 = step.index() * 16;
                acc = mma(A[coord(m0, k0), shape(m, kk)], B[coord(k0, n0), shape(kk, n)], acc);
            }
            C(coord(m0, n0), shape(m, n)).store(acc);
        }
    });
    const int M = 70, N = 45, K = 83;
    Tensor<f16> a({M, K}, random_values<f16>(M * K, 3)), b({K, N}, random_values<f16>(K * N, 4));
    Tensor<f32> want({M, N});
    k.launch(interp(), std::as_const(a).view(), std::as_const(b).view(), want.view());
    auto ad = a.to(cuda()), bd = b.to(cuda());
    auto cd = Tensor<f32>({M, N}).to(cuda());
    auto args = args_of(std::as_const(ad), std::as_const(bd), cd);
    run_kernel(k, cuda(), args, {.precision = Precision::exact}, Loc::here());
    expect_same_bits(cd.to(host()).values(), want.values());
    run_kernel(k, cuda(), args, {.precision = Precision::standard}, Loc::here());
    auto got = cd.to(host()).values();
    double num = 0, den = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        num += (got[i] - want.values()[i]) * (got[i] - want.values()[i]);
        den += want.values()[i] * want.values()[i];
    }
    EXPECT_LT(std::sqrt(num / den), 1e-5);
}

// Narrow stores write every NaN as the canonical quiet NaN of the kind (0x7fc0 bf16,
// 0x7e00 f16), whatever its sign and payload, and leave every other value as the
// interpreter rounds it: in pairs (eight elements a thread) and one by one.
TEST(CudaDevice, NarrowStoresWriteEveryNanAsTheCanonicalNan) {
    REQUIRE_DEVICE();
    const std::vector<std::uint32_t> bits = {
        0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fbfffffu, 0x7fffffffu, 0xffffffffu, 0x7fc12345u,
        0x7f800000u, 0xff800000u, 0x7f7fffffu, 0xff7fffffu, 0x477ff000u, 0x477fe000u, 0x80000000u, 0x00000001u,
        0x3f800000u, 0xbf7fffffu, 0x7f7f8000u, 0x7f7f7fffu, 0x38800000u, 0x33800000u, 0x00800000u, 0x7fa00000u};
    std::vector<float> values(bits.size());
    std::memcpy(values.data(), bits.data(), bits.size() * sizeof(float));
    const auto n = static_cast<std::int64_t>(values.size());
    for (int run : {8, 1}) {
        SCOPED_TRACE("elements a program instance: " + std::to_string(run));
        auto k = kernel("narrow_nan", [run](View<const f32, 1> x, View<bf16, 1> yb, View<f16, 1> yh) {
            auto e = axis("e", run);
            for (auto& nest : parallel(shape(axis("blocks", x.extent(0) / run)))) {
                auto v = x[coord(nest.index() * run), shape(e)];
                yb(coord(nest.index() * run), shape(e)).store(cast<bf16>(v));
                yh(coord(nest.index() * run), shape(e)).store(cast<f16>(v));
            }
        });
        Tensor<f32> x({n}, values);
        Tensor<bf16> want_b({n});
        Tensor<f16> want_h({n});
        k.launch(interp(), std::as_const(x).view(), want_b.view(), want_h.view());
        auto xd = x.to(cuda());
        auto bd = Tensor<bf16>({n}).to(cuda());
        auto hd = Tensor<f16>({n}).to(cuda());
        run_kernel(k, cuda(), args_of(std::as_const(xd), bd, hd), {.precision = Precision::exact}, Loc::here());
        auto got_b = bd.to(host()).values();
        auto got_h = hd.to(host()).values();
        for (std::size_t i = 0; i < bits.size(); ++i) {
            const bool nan = std::isnan(values[i]);
            EXPECT_EQ(got_b[i].bits, nan ? 0x7fc0 : want_b.values()[i].bits) << "bf16 of f32 bits " << std::hex << bits[i];
            EXPECT_EQ(got_h[i].bits, nan ? 0x7e00 : want_h.values()[i].bits) << "f16 of f32 bits " << std::hex << bits[i];
            if (nan) EXPECT_EQ(want_b.values()[i].bits, 0x7fc0) << "the interpreter, bf16 of " << std::hex << bits[i];
        }
    }
}

// A vector the same for every instance whose rows start off a 16-byte boundary (the
// second row of a [2, 1283] bf16 matrix: byte offset 2566) is loaded once, before a
// persistent CTA's first instance, and completed by shuffles where it is first used.
// 20000 rows: more instances than the grid's resident CTAs, so each CTA runs several
// with that one buffer, which must not be shifted again (emit_shifted_runs.cpp; the
// emulator found it first: tests/emulated, AMisalignedVectorLoadedOnceIsShiftedOnce).
TEST(CudaDevice, AMisalignedVectorLoadedOnceServesEveryInstanceOfAPersistentGrid) {
    REQUIRE_DEVICE();
    auto k = kernel("scale_by_second_row", [](View<const bf16, 2> x, View<const bf16, 2> w, View<bf16, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", y.extent(0))))) {
            auto origin = coord(nest.index(), 0);
            y(origin, shape(r, c)).store(cast<bf16>(cast<f32>(x[origin, shape(r, c)]) * cast<f32>(w[coord(1, 0), shape(r, c)])));
        }
    });
    const std::int64_t rows = 20000, cols = 1283;
    auto to_bf16 = [](const std::vector<float>& v) {
        std::vector<bf16> b;
        for (float f : v) b.emplace_back(f);
        return b;
    };
    Tensor<bf16> x({rows, cols}, to_bf16(random_values<float>(static_cast<std::size_t>(rows * cols), 7, -4, 4)));
    Tensor<bf16> w({2, cols}, to_bf16(random_values<float>(static_cast<std::size_t>(2 * cols), 8, -2, 2)));
    Tensor<bf16> want({rows, cols});
    k.launch(interp(), std::as_const(x).view(), std::as_const(w).view(), want.view());
    auto xd = x.to(cuda()), wd = w.to(cuda());
    auto yd = Tensor<bf16>({rows, cols}).to(cuda());
    run_kernel(k, cuda(), args_of(std::as_const(xd), std::as_const(wd), yd), {.precision = Precision::exact}, Loc::here());
    const auto got = yd.to(host()).values();
    std::int64_t differ = 0;
    for (std::size_t i = 0; i < got.size(); ++i) differ += got[i].bits != want.values()[i].bits;
    EXPECT_EQ(differ, 0) << "of " << got.size() << " elements";
}
