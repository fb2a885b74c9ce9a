// Per-op semantics on the reference engine, against hand-computed values and f64
// formulas: one rounding per op, f16/bf16 edge cases, integer wrap rules, pinned
// orders, stable orderings, ragged tails, and the interpreter's checked mode.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <kiln/kiln.h>

using namespace kiln;

namespace {
const double inf = std::numeric_limits<double>::infinity();
template <class T> double one(const Tile<T>& t) { return static_cast<double>(t.to_vector().at(0)); }
template <class T> Tile<T> t1(std::vector<double> v) {
    std::vector<T> x;
    for (double d : v) x.push_back(static_cast<T>(d));
    return from_vec(x, 1, static_cast<std::int64_t>(x.size()));
}
double f16r(double x) { return one(to_f16(filled(1, 1, x))); }
double bf16r(double x) { return one(to_bf16(filled(1, 1, x))); }
}  // namespace

TEST(Rounding, F16TiesToEvenSubnormalsOverflowNaN) {
    EXPECT_EQ(f16r(1 + std::ldexp(1, -11)), 1.0);                           // tie -> even (down)
    EXPECT_EQ(f16r(1 + 3 * std::ldexp(1, -11)), 1 + std::ldexp(1, -9));     // tie -> even (up)
    EXPECT_EQ(f16r(std::ldexp(1, -24)), std::ldexp(1, -24));                // smallest subnormal
    EXPECT_EQ(f16r(std::ldexp(1, -25)), 0.0);                               // half of it: tie -> 0
    EXPECT_EQ(f16r(std::ldexp(3, -26)), std::ldexp(1, -24));                // 0.75 ulp -> 1 ulp
    EXPECT_EQ(f16r(65519.0), 65504.0);
    EXPECT_EQ(f16r(65520.0), inf);                                          // rounds past the largest finite
    EXPECT_TRUE(std::isnan(f16r(std::nan(""))));
    EXPECT_TRUE(std::signbit(f16r(-0.0)));
}

TEST(Rounding, Bf16TiesToEvenAndRange) {
    EXPECT_EQ(bf16r(1 + std::ldexp(1, -8)), 1.0);
    EXPECT_EQ(bf16r(1 + 3 * std::ldexp(1, -8)), 1 + std::ldexp(1, -6));
    EXPECT_EQ(bf16r(3e38), std::ldexp(226.0, 120));  // 3e38 / 2^120 = 225.7 -> 226 ulps
    EXPECT_EQ(bf16r(3.4e38), inf);                   // past max + half an ulp
    EXPECT_EQ(bf16r(std::ldexp(1, -133)), std::ldexp(1, -133));            // smallest bf16 subnormal
}

TEST(Rounding, EveryOpRoundsOnceToItsKind) {
    // f16: 1 + 2^-11 is a tie at 1.0 -> stays 1.0; in f32 it is exact.
    auto one16 = to_f16(filled(1, 1, 1.0)), tiny16 = to_f16(filled(1, 1, std::ldexp(1, -11)));
    EXPECT_EQ(one(one16 + tiny16), 1.0);
    auto one32 = to_f32(filled(1, 1, 1.0)), tiny32 = to_f32(filled(1, 1, std::ldexp(1, -11)));
    EXPECT_EQ(one(one32 + tiny32), 1 + std::ldexp(1, -11));
    // f16 overflow: 300 * 300 = 90000 > 65504.
    auto big = to_f16(filled(1, 1, 300.0));
    EXPECT_EQ(one(big * big), inf);
    // f32 division equals the correctly rounded float division.
    auto a = to_f32(filled(1, 1, 1.0)), b = to_f32(filled(1, 1, 3.0));
    EXPECT_EQ(one(a / b), static_cast<double>(1.0f / 3.0f));
    // Literals beside narrow tiles are rounded to the tile's kind (narrow mode).
    EXPECT_EQ(one(map(a, [](Scalar<f32> x) { return x * 0.1; })), static_cast<double>(0.1f));
}

TEST(Integers, WrapDivisionAndCasts) {
    auto i8v = cast<i8>(filled(1, 1, 127));
    EXPECT_EQ(one(i8v + 1), -128.0);
    auto i32v = cast<i32>(filled(1, 2, 7));
    auto z = cast<i32>(from_vec(std::vector<i64>{0, -2}, 1, 2));
    EXPECT_EQ((i32v / z).to_vector(), (std::vector<i32>{0, -3}));  // x/0 = 0, truncation
    auto mn = cast<i32>(filled(1, 1, std::int64_t{INT32_MIN}));
    EXPECT_EQ(one(mn / cast<i32>(filled(1, 1, -1))), static_cast<double>(INT32_MIN));
    auto f = to_f32(from_vec(std::vector<double>{3e9, -3e9, std::nan(""), 2.7, -2.7}, 1, 5));
    EXPECT_EQ(cast<i32>(f).to_vector(), (std::vector<i32>{INT32_MAX, INT32_MIN, 0, 2, -2}));
    EXPECT_EQ(cast<i8>(filled(1, 1, 300)).to_vector(), std::vector<i8>{44});
}

TEST(Reductions, PinnedLeftToRightOrder) {
    // A tree would give 2; the pinned left fold in f32 gives 1.
    auto v = to_f32(from_vec(std::vector<double>{1e8, 1, -1e8, 1}, 1, 4));
    EXPECT_EQ(sum(v).get(), 1.0f);
    EXPECT_EQ(row_sum(v).to_vector(), std::vector<f32>{1.0f});
}

TEST(Reductions, MaximumPropagatesNaNAndOrdersSignedZero) {
    auto m = axis("m", 3);
    auto nan_tile = Tile<f64>(from_vec(std::vector<double>{1, std::nan(""), 3}, 1, 3).value());
    EXPECT_TRUE(std::isnan(row_max(nan_tile).to_vector()[0]));
    auto z = from_vec(std::vector<double>{-0.0}, 1, 1), pz = from_vec(std::vector<double>{0.0}, 1, 1);
    EXPECT_FALSE(std::signbit(maximum(z, pz).to_vector()[0]));
    EXPECT_TRUE(std::signbit(minimum(pz, z).to_vector()[0]));
    (void)m;
}

TEST(Ordering, ArgmaxFirstTieNaNMaximal) {
    auto c = axis("c", 5);
    auto v = reshape(from_vec(std::vector<double>{1, 7, 3, 7, 2}, 1, 5), shape(c));
    EXPECT_EQ(argmax(v, c).to_vector(), std::vector<i64>{1});
    auto w = reshape(from_vec(std::vector<double>{1, std::nan(""), 9, std::nan(""), 2}, 1, 5), shape(c));
    EXPECT_EQ(argmax(w, c).to_vector(), std::vector<i64>{1});
}

TEST(Ordering, StableSortAndTopk) {
    auto c = axis("c", 6);
    auto v = reshape(from_vec(std::vector<double>{3, 1, 2, 1, std::nan(""), 3}, 1, 6), shape(c));
    auto s = sort(v, c);
    auto sv = s.values.to_vector();
    EXPECT_EQ(std::vector<double>(sv.begin(), sv.begin() + 5), (std::vector<double>{1, 1, 2, 3, 3}));
    EXPECT_TRUE(std::isnan(sv[5]));  // NaN sorts above +inf
    EXPECT_EQ(s.indices.to_vector(), (std::vector<i64>{1, 3, 2, 0, 5, 4}));  // ties keep source order
    auto u = reshape(from_vec(std::vector<double>{3, 1, 2, 1, 5, 3}, 1, 6), shape(c));
    auto t = topk(u, c, 3);
    EXPECT_EQ(t.values.to_vector(), (std::vector<double>{5, 3, 3}));
    EXPECT_EQ(t.indices.to_vector(), (std::vector<i64>{4, 0, 5}));
}

TEST(Scans, InclusiveLeftToRight) {
    auto c = axis("c", 4);
    auto v = reshape(from_vec(std::vector<double>{1, -2, 5, 0.5}, 1, 4), shape(c));
    EXPECT_EQ(scan(v, c, add).to_vector(), (std::vector<double>{1, -1, 4, 4.5}));
    EXPECT_EQ(scan(v, c, maximum).to_vector(), (std::vector<double>{1, 1, 5, 5}));
}

TEST(DataMovement, GatherAndReindex) {
    auto r = axis("r", 2), c = axis("c", 3);
    auto v = reshape(from_vec(std::vector<double>{10, 11, 12, 20, 21, 22}, 2, 3), shape(r, c));
    auto idx = reshape(from_vec(std::vector<i64>{2, 7}, 1, 2), shape(r));  // 7: out of range -> 0
    EXPECT_EQ(gather(v, idx, c).to_vector(), (std::vector<double>{12, 0}));
    auto t = reindex(v, shape(c, r), [&](const Nest& e) { return coord(e.index(r), e.index(c)); });
    EXPECT_EQ(t.to_vector(), (std::vector<double>{10, 20, 11, 21, 12, 22}));  // a transpose
}

TEST(Contraction, MmaPinnedOrderAndIntegerAccumulation) {
    auto m = axis("m", 2), n = axis("n", 2), k = axis("k", 3);
    std::vector<double> av{1e8, 1, -1e8, 0.5, 0.25, 2}, bv{1, 2, 1, 2, 1, 2};
    auto a = to_f32(reshape(from_vec(av, 2, 3), shape(m, k)));
    auto b = to_f32(reshape(from_vec(bv, 3, 2), shape(k, n)));
    auto c = mma(a, b, zeros<f32>(shape(m, n))).to_vector();
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            float acc = 0;
            for (int kk = 0; kk < 3; ++kk) acc = acc + static_cast<float>(av[i * 3 + kk]) * static_cast<float>(bv[kk * 2 + j]);
            EXPECT_EQ(c[static_cast<std::size_t>(i * 2 + j)], acc);
        }
    auto ai = cast<i8>(reshape(from_vec(std::vector<i64>{127, -128, 5, 100, 100, 100}, 2, 3), shape(m, k)));
    auto bi = cast<i8>(reshape(from_vec(std::vector<i64>{127, 1, 127, 1, 3, 1}, 3, 2), shape(k, n)));
    auto ci = mma(ai, bi, zeros<i32>(shape(m, n))).to_vector();
    EXPECT_EQ(ci, (std::vector<i32>{127 * 127 - 128 * 127 + 15, 127 - 128 + 5, 100 * 127 * 2 + 300, 300}));
}

TEST(Math, ExpRoundsToTheCorrectlyRoundedF32) {
    int mismatches = 0;
    for (int i = -200; i <= 200; ++i) {
        double x = i * 0.37;
        float xf = static_cast<float>(x);
        float got = exp(to_f32(filled(1, 1, static_cast<double>(xf)))).to_vector()[0];
        float want = static_cast<float>(std::exp(static_cast<long double>(xf)));
        mismatches += got != want;
    }
    EXPECT_LE(mismatches, 1);
}

// ---- kernels: ragged tails, fallbacks, checked mode

TEST(Interp, RaggedTailLoadsZeroOrFallbackAndDropsStores) {
    auto k = kernel("tail", [](View<const f32, 1> x, View<f32, 1> y) {
        auto b = axis("b", 4);
        for (auto& n : parallel(shape(axis("blocks", ceil_div(x.extent(0), 4))))) {
            auto v = x(coord(n.index() * 4), shape(b)).load(-1.0f);
            y(coord(n.index() * 4), shape(b)).store(v * 2.0f);
        }
    });
    Tensor<f32> x({6}, {1, 2, 3, 4, 5, 6}), y({8});
    auto yv = view(y.data(), {6});  // the kernel sees 6 elements; the 2 beyond stay untouched
    y[6] = 42, y[7] = 43;
    k.launch(interp(), std::as_const(x).view(), yv);
    EXPECT_EQ(y.values(), (std::vector<float>{2, 4, 6, 8, 10, 12, 42, 43}));
}

TEST(Interp, CheckedBoundsReportTheIndex) {
    auto k = kernel("strict", [](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& n : parallel(shape(axis("a", 2)))) {
            auto v = x[coord(n.index() * 4), shape(4), bounds::check];
            y(coord(n.index() * 4), shape(4)).store(v);
        }
    });
    Tensor<f32> x({6}), y({8});
    try {
        k.launch(interp(), std::as_const(x).view(), y.view());
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("load: index (6) is out of range for argument 0 of extent 6 in instance 1"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("interp_ops_test.cpp:"), std::string::npos) << e.what();
    }
}

TEST(Interp, AssumeIsVerified) {
    auto k = kernel("assume", [](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& n : parallel(shape(axis("a", 1)))) y(coord(n.index()), shape(4), bounds::assume).store(x[coord(0), shape(4)]);
    });
    Tensor<f32> x({4}), y({3});
    try {
        k.launch(interp(), std::as_const(x).view(), y.view());
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("store: index (3) is out of range for argument 1 of extent 3 (bounds::assume was violated)"), std::string::npos) << e.what();
    }
}

TEST(Interp, CrossInstanceConflictsNameBothInstances) {
    // Instance p writes element p+1 and reads element p: instance 1 reads what 0 writes.
    auto shift = kernel("shift", [](View<f32, 1> y) {
        for (auto& n : parallel(shape(axis("a", 3)))) y(coord(n.index() + 1), shape(1)).store(y[coord(n.index()), shape(1)] + 1.0f);
    });
    Tensor<f32> y({4});
    try {
        shift.launch(interp(), y.view());
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("instance 1 reads element (1) of argument 0 (View<f32, 1>) that instance 0 writes in the same launch"), std::string::npos) << e.what();
    }
    // Two instances writing one element.
    auto both = kernel("both", [](View<f32, 1> y) {
        for (auto& n : parallel(shape(axis("a", 2)))) y(coord(0), shape(1)).store(cast<f32>(full<i64>(shape(1), n.index())));
    });
    try {
        both.launch(interp(), y.view());
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("instance 0 and instance 1 both write element (0) of argument 0"), std::string::npos) << e.what();
    }
    // Unchecked mode runs it (last writer in pid order wins).
    both.launch(interp({.checked = false}), y.view());
    EXPECT_EQ(y[0], 1.0f);
}

TEST(Interp, InstancesReadBuffersAsAtLaunchEntry) {
    // In place: y = y * 2 per element, each instance its own elements: within the contract.
    auto dbl = kernel("dbl", [](View<f32, 1> y) {
        for (auto& n : parallel(shape(axis("a", 4)))) y(coord(n.index()), shape(1)).store(y[coord(n.index()), shape(1)] * 2.0f);
    });
    Tensor<f32> y({4}, {1, 2, 3, 4});
    dbl.launch(interp(), y.view());
    EXPECT_EQ(y.values(), (std::vector<float>{2, 4, 6, 8}));
}

TEST(Interp, ScalarArgumentsAndHandlersSeeKernelLaunches) {
    auto axpy = kernel("axpy", [](View<const f32, 1> x, View<f32, 1> y, Scalar<f32> a) {
        for (auto& n : parallel(shape(axis("a", x.extent(0))))) {
            auto i = coord(n.index());
            y(i, shape(1)).store(x[i, shape(1)] * a + y[i, shape(1)]);
        }
    });
    Tensor<f32> x({3}, {1, 2, 3}), y({3}, {10, 20, 30});
    std::vector<std::string> seen;
    {
        auto h = handle_launch([&](LaunchRequest& r, const Next& next) {
            seen.push_back(r.kernel ? r.kernel->name() : "closure");
            next(r);
        });
        axpy.launch(std::as_const(x).view(), y.view(), 0.5f);  // default target: interp
    }
    EXPECT_EQ(seen, std::vector<std::string>{"axpy"});
    EXPECT_EQ(y.values(), (std::vector<float>{10.5f, 21, 31.5f}));
}
