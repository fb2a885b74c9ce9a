// The tile standard library's norms, activations and losses against plain f64
// definitions written here, independently: row forms on eager tiles, axis forms
// inside a kernel on the interpreter, and Welford's robustness where E[x^2] - E[x]^2
// cancels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include <kiln/kiln.h>

using namespace kiln;

namespace {

using Rows = std::vector<std::vector<double>>;

Rows random_rows(std::size_t rows, std::size_t cols, unsigned seed, double lo, double hi) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> d(lo, hi);
    Rows r(rows, std::vector<double>(cols));
    for (auto& row : r)
        for (auto& x : row) x = static_cast<double>(static_cast<float>(d(g)));  // f32-representable
    return r;
}

std::vector<double> flat(const Rows& r) {
    std::vector<double> v;
    for (auto& row : r) v.insert(v.end(), row.begin(), row.end());
    return v;
}

// ---- the f64 definitions
double mean(const std::vector<double>& x) {
    double s = 0;
    for (double v : x) s += v;
    return s / static_cast<double>(x.size());
}
std::vector<double> layer_norm_def(const std::vector<double>& x, double eps) {
    double mu = mean(x), var = 0;
    for (double v : x) var += (v - mu) * (v - mu) / static_cast<double>(x.size());
    std::vector<double> y;
    for (double v : x) y.push_back((v - mu) / std::sqrt(var + eps));
    return y;
}
std::vector<double> rms_norm_def(const std::vector<double>& x, double eps) {
    double ms = 0;
    for (double v : x) ms += v * v / static_cast<double>(x.size());
    std::vector<double> y;
    for (double v : x) y.push_back(v / std::sqrt(ms + eps));
    return y;
}
double gelu_tanh_def(double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x))); }
double gelu_erf_def(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
template <class F> double mean_of(const std::vector<double>& p, const std::vector<double>& t, F loss) {
    double s = 0;
    for (std::size_t i = 0; i < p.size(); ++i) s += loss(p[i], t[i]);
    return s / static_cast<double>(p.size());
}
double mse_def(const std::vector<double>& p, const std::vector<double>& t) { return mean_of(p, t, [](double a, double b) { return (a - b) * (a - b); }); }
double mae_def(const std::vector<double>& p, const std::vector<double>& t) { return mean_of(p, t, [](double a, double b) { return std::abs(a - b); }); }
double huber_def(const std::vector<double>& p, const std::vector<double>& t, double delta) {
    return mean_of(p, t, [delta](double a, double b) {
        double d = std::abs(a - b);
        return d <= delta ? d * d / 2 : delta * d - delta * delta / 2;
    });
}
double bce_def(const std::vector<double>& p, const std::vector<double>& t, double eps) {
    return mean_of(p, t, [eps](double q, double y) {
        q = std::min(std::max(q, eps), 1 - eps);
        return -(y * std::log(q) + (1 - y) * std::log1p(-q));
    });
}

// Largest |got - want| relative to the largest |want| (one scale per output).
double rel_error(const std::vector<double>& got, const std::vector<double>& want) {
    double err = 0, scale = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        err = std::max(err, std::abs(got.at(i) - want[i]));
        scale = std::max(scale, std::abs(want[i]));
    }
    return scale > 0 ? err / scale : err;
}
template <class T> std::vector<double> as_doubles(const Tile<T>& t) {
    auto v = t.to_vector();
    return {v.begin(), v.end()};
}
template <class F> std::vector<double> per_row(const Rows& r, F f) {
    std::vector<double> out;
    for (auto& row : r) {
        auto y = f(row);
        if constexpr (std::is_same_v<decltype(y), double>) out.push_back(y);
        else out.insert(out.end(), y.begin(), y.end());
    }
    return out;
}

}  // namespace

TEST(Lib, RowNormsOnF64TilesMatchTheDefinitions) {
    for (std::size_t cols : {1u, 2u, 7u, 16u, 33u}) {
        auto x = random_rows(3, cols, 1 + static_cast<unsigned>(cols), -3, 5);
        auto t = from_vec(flat(x), 3, static_cast<std::int64_t>(cols));
        auto ln = per_row(x, [](auto& r) { return layer_norm_def(r, 1e-5); });
        EXPECT_LT(rel_error(as_doubles(layer_norm_rows(t)), ln), 1e-14) << cols;
        EXPECT_LT(rel_error(as_doubles(layer_norm_welford_rows(t)), ln), 1e-14) << cols;
        EXPECT_LT(rel_error(as_doubles(rms_norm_rows(t)), per_row(x, [](auto& r) { return rms_norm_def(r, 1e-6); })), 1e-14) << cols;
    }
}

TEST(Lib, RowLossesOnF64TilesMatchTheDefinitions) {
    auto p = random_rows(4, 9, 7, -2, 2), t = random_rows(4, 9, 8, -2, 2);
    auto prob = random_rows(4, 9, 9, -0.2, 1.2), label = random_rows(4, 9, 10, 0, 1);
    for (auto& row : prob)
        for (auto& q : row) q = std::clamp(q, 0.0, 1.0);  // 0 and 1 exercise the clamp
    auto tile = [](const Rows& r) { return from_vec(flat(r), 4, 9); };
    auto both = [](const Rows& a, const Rows& b, auto f) {
        std::vector<double> out;
        for (std::size_t i = 0; i < a.size(); ++i) out.push_back(f(a[i], b[i]));
        return out;
    };
    EXPECT_LT(rel_error(as_doubles(mse_rows(tile(p), tile(t))), both(p, t, mse_def)), 1e-14);
    EXPECT_LT(rel_error(as_doubles(mae_rows(tile(p), tile(t))), both(p, t, mae_def)), 1e-14);
    EXPECT_LT(rel_error(as_doubles(huber_rows(tile(p), tile(t), 0.5)),
                        both(p, t, [](auto& a, auto& b) { return huber_def(a, b, 0.5); })), 1e-14);
    EXPECT_LT(rel_error(as_doubles(bce_rows(tile(prob), tile(label), 1e-7)),
                        both(prob, label, [](auto& a, auto& b) { return bce_def(a, b, 1e-7); })), 1e-12);
    EXPECT_EQ(mse_rows(tile(p), tile(t)).shape(), (std::vector<std::int64_t>{4, 1}));  // R x 1, like row_max
}

TEST(Lib, GeluOnTilesAndScalars) {
    std::vector<double> xs;
    for (int i = -60; i <= 60; ++i) xs.push_back(i / 8.0);  // both tails and the curved middle
    auto t = from_vec(xs, 11, 11);
    std::vector<double> tanh_form, erf_form;
    for (double x : xs) {
        tanh_form.push_back(gelu_tanh_def(x));
        erf_form.push_back(gelu_erf_def(x));
    }
    EXPECT_LT(rel_error(as_doubles(gelu(t)), tanh_form), 1e-14);
    EXPECT_LT(rel_error(as_doubles(gelu_erf(t)), erf_form), 1e-14);
    EXPECT_LT(rel_error(as_doubles(gelu(to_f32(t))), tanh_form), 4e-7);
    EXPECT_NEAR(gelu(Scalar<f64>(1.25)).get(), gelu_tanh_def(1.25), 1e-15);
    EXPECT_NEAR(gelu_erf(Scalar<f64>(-0.75)).get(), gelu_erf_def(-0.75), 1e-15);
}

// Rows near 1000 with a spread of ~0.6: in f32, E[x^2] ~ 1e6 has an ulp of 0.06, a tenth
// of the variance, so the mean-square form is far off; Welford's merges never form
// that sum.
TEST(Lib, WelfordStaysAccurateWhereMeanSquareCancels) {
    const std::int64_t rows = 4, cols = 1000;
    auto x = random_rows(rows, cols, 11, 999, 1001);
    auto t = to_f32(from_vec(flat(x), rows, cols));
    auto want = per_row(x, [](auto& r) { return layer_norm_def(r, 1e-5); });
    // Welford's mean is within a few f32 ulps of 1000 (~6e-5), a ~1e-4 error against the spread.
    EXPECT_LT(rel_error(as_doubles(layer_norm_welford_rows(t)), want), 3e-4);
    auto mean = row_sum(t) / static_cast<double>(cols);
    auto mean_square = row_sum(t * t) / static_cast<double>(cols);
    auto naive = div_rows(sub_rows(t, mean), sqrt(max(mean_square - mean * mean, 0.0) + 1e-5));
    EXPECT_GT(rel_error(as_doubles(naive), want), 1e-2) << "the comparison no longer shows cancellation";
}

// The axis forms inside a kernel: one program per row of (1, cols) f32 tiles.
TEST(Lib, AxisFormsInsideAKernel) {
    auto k = kernel("lib_rows", [](View<const f32, 2> x, View<const f32, 2> target, View<const f32, 2> prob,
                                   View<f32, 2> ln, View<f32, 2> lnw, View<f32, 2> rms, View<f32, 2> g_tanh, View<f32, 2> g_erf,
                                   View<f32, 1> l_mse, View<f32, 1> l_mae, View<f32, 1> l_huber, View<f32, 1> l_bce) {
        auto rows = axis("rows", x.extent(0));
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(rows))) {
            auto at = coord(nest.index(), 0);
            auto v = x[at, shape(r, c)];
            auto y = target[at, shape(r, c)];
            ln(at, shape(r, c)).store(layer_norm(v, c));
            lnw(at, shape(r, c)).store(layer_norm_welford(v, c));
            rms(at, shape(r, c)).store(rms_norm(v, c));
            g_tanh(at, shape(r, c)).store(gelu(v));
            g_erf(at, shape(r, c)).store(gelu_erf(v));
            l_mse(coord(nest.index()), shape(r)).store(mse(v, y, c));
            l_mae(coord(nest.index()), shape(r)).store(mae(v, y, c));
            l_huber(coord(nest.index()), shape(r)).store(huber(v, y, c, 0.75));
            l_bce(coord(nest.index()), shape(r)).store(bce(prob[at, shape(r, c)], y, c, 1e-4));
        }
    });
    for (std::int64_t cols : {1, 5, 24, 37}) {  // odd lengths leave Welford elements aside
        const std::int64_t rows = 3;
        auto xr = random_rows(rows, static_cast<std::size_t>(cols), 20, -3, 3), yr = random_rows(rows, static_cast<std::size_t>(cols), 21, 0, 1);
        auto pr = random_rows(rows, static_cast<std::size_t>(cols), 22, 0, 1);
        auto tensor = [&](const Rows& r) {
            auto v = flat(r);
            return Tensor<f32>({rows, cols}, std::vector<f32>(v.begin(), v.end()));
        };
        auto x = tensor(xr), y = tensor(yr), p = tensor(pr);
        std::vector<Tensor<f32>> full_out(5, Tensor<f32>({rows, cols})), row_out(4, Tensor<f32>({rows}));
        k.launch(interp(), x.view(), y.view(), p.view(), full_out[0].view(), full_out[1].view(), full_out[2].view(),
                 full_out[3].view(), full_out[4].view(), row_out[0].view(), row_out[1].view(), row_out[2].view(), row_out[3].view());
        auto got = [](const Tensor<f32>& t) { return std::vector<double>(t.values().begin(), t.values().end()); };
        auto elementwise = [&](double (*f)(double)) {
            std::vector<double> v;
            for (double e : flat(xr)) v.push_back(f(e));
            return v;
        };
        std::vector<double> mse_w, mae_w, huber_w, bce_w;
        for (std::size_t i = 0; i < xr.size(); ++i) {
            mse_w.push_back(mse_def(xr[i], yr[i]));
            mae_w.push_back(mae_def(xr[i], yr[i]));
            huber_w.push_back(huber_def(xr[i], yr[i], 0.75));
            bce_w.push_back(bce_def(pr[i], yr[i], 1e-4));
        }
        // A few f32 roundings per element, plus sqrt(cols) for the row sums.
        const double tol = 1e-6 * (2 + std::sqrt(static_cast<double>(cols)));
        auto ln_w = per_row(xr, [](auto& r) { return layer_norm_def(r, 1e-5); });
        EXPECT_LT(rel_error(got(full_out[0]), ln_w), tol) << cols;
        EXPECT_LT(rel_error(got(full_out[1]), ln_w), tol) << cols;
        EXPECT_LT(rel_error(got(full_out[2]), per_row(xr, [](auto& r) { return rms_norm_def(r, 1e-6); })), tol) << cols;
        EXPECT_LT(rel_error(got(full_out[3]), elementwise(gelu_tanh_def)), tol) << cols;
        EXPECT_LT(rel_error(got(full_out[4]), elementwise(gelu_erf_def)), tol) << cols;
        EXPECT_LT(rel_error(got(row_out[0]), mse_w), tol) << cols;
        EXPECT_LT(rel_error(got(row_out[1]), mae_w), tol) << cols;
        EXPECT_LT(rel_error(got(row_out[2]), huber_w), tol) << cols;
        EXPECT_LT(rel_error(got(row_out[3]), bce_w), tol) << cols;
    }
}

TEST(Lib, AnAxisOutsideTheTileIsReportedUnderTheFunctionsName) {
    auto a = axis("a", 3), b = axis("b", 4), other = axis("other", 4);
    auto t = zeros<f32>(shape(a, b));
    try {
        layer_norm(t, other);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("layer_norm: axis 'other' is not a dimension"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("lib_test.cpp"), std::string::npos) << e.what();
    }
    EXPECT_EQ(mse(t, t, b).shape(), (std::vector<std::int64_t>{3}));  // the named axis drops out
}
