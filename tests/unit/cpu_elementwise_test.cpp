// The cpu target against the interpreter, byte for byte: the elementwise ops of
// every kind (edge values included: NaN of both signs, infinities, integer
// extremes, division by zero), casts between every pair of kinds, scalar
// parameters, masks through ite. Blocks of 16 over 37 elements: the last block
// is partial, so bounds::zero loads and dropped stores are exercised too.
#include "cpu_diff.h"

using namespace kiln;
using cpu_diff::expect_same;
using cpu_diff::input;
using cpu_diff::output;
using cpu_diff::scalar;

namespace {

constexpr int kBlock = 16;
constexpr std::int64_t kN = 37;

// A kernel computing `ops(a, c, s)` (a list of tiles of kind R) for each block of
// x and y; result r goes to row r of the output.
template <class T, class R, class F> Kernel rows_kernel(const std::string& name, F ops) {
    return kernel(name, [ops](View<const T, 1> x, View<const T, 1> y, Scalar<T> s, View<R, 2> out) {
        auto blocks = axis("blocks", ceil_div(x.extent(0), kBlock));
        auto b = axis("b", kBlock), one = axis("one", 1);
        for (auto& nest : parallel(shape(blocks))) {
            auto i0 = nest.index() * kBlock;
            auto a = x[coord(i0), shape(b)];
            auto c = y[coord(i0), shape(b)];
            std::vector<Tile<R>> rows = ops(a, c, s);
            for (std::size_t r = 0; r < rows.size(); ++r) out(coord(static_cast<std::int64_t>(r), i0), shape(one, b)).store(rows[r]);
        }
    });
}

template <class T> void float_ops(double param) {
    const Kind k = kind_of<T>;
    auto ops = [](const Tile<T>& a, const Tile<T>& c, const Scalar<T>& s) {
        return std::vector<Tile<T>>{a + c, a - c, a * c, a / c, -a, abs(a), exp(a), log(a), sqrt(a), rsqrt(a), tanh(a), erf(a),
                                    sin(a), cos(a), pow(a, c), max(a, c), min(a, c), a * s, s - a, a * 0.1 + 1e-3,
                                    ite(a > c, a, c), ite(a != a, c, -a), map(a, [](Scalar<T> v) { return exp(v) * 0.5 - v; })};
    };
    auto k_ops = rows_kernel<T, T>("float_ops_" + std::string(kind_name(k)), ops);
    // Exact precision: in standard the cpu target's exp is its own (kiln_cpu::exp32_fast,
    // cpu_exp32_fast_test), not the interpreter's bytes.
    for (bool specials : {false, true})
        expect_same(k_ops, {input(k, {kN}, 1, -3, 3, specials), input(k, {kN}, 2, -3, 3, specials), scalar(k, param), output(k, {23, kN})},
                    {.precision = Precision::exact});

    auto cmp = [](const Tile<T>& a, const Tile<T>& c, const Scalar<T>& s) {
        return std::vector<Tile<bool>>{a == c, a != c, a < c, a <= c, a > c, a >= c, (a < c) && (c > s), (a < s) || !(c < s)};
    };
    auto k_cmp = rows_kernel<T, bool>("float_compare_" + std::string(kind_name(k)), cmp);
    expect_same(k_cmp, {input(k, {kN}, 3, -2, 2, true), input(k, {kN}, 4, -2, 2, true), scalar(k, 0.5), output(Kind::Bool, {8, kN})});
}

TEST(CpuElementwise, F32) { float_ops<f32>(0.1); }
TEST(CpuElementwise, F64) { float_ops<f64>(0.1); }
TEST(CpuElementwise, F16) { float_ops<f16>(1e5); }  // the parameter rounds to inf
TEST(CpuElementwise, BF16) { float_ops<bf16>(0.3); }

// Bitwise ops on integers have no operator in the surface; ops.def defines them.
template <class T> Tile<T> bitwise(detail::OpCode op, const Tile<T>& a, const Tile<T>& c) {
    return Tile<T>(detail::binary(op, a.value(), c.value(), Loc::here()));
}

template <class T> void int_ops(std::int64_t param) {
    const Kind k = kind_of<T>;
    auto ops = [](const Tile<T>& a, const Tile<T>& c, const Scalar<T>& s) {
        return std::vector<Tile<T>>{a + c, a - c, a * c, a / c, a % c, -a, abs(a), max(a, c), min(a, c), a * s, s - a, a + 100,
                                    bitwise(detail::OpCode::logical_and, a, c), bitwise(detail::OpCode::logical_or, a, c),
                                    bitwise(detail::OpCode::logical_xor, a, c),
                                    Tile<T>(detail::unary(detail::OpCode::logical_not, a.value(), Loc::here())), ite(a < c, a, c)};
    };
    auto k_ops = rows_kernel<T, T>("int_ops_" + std::string(kind_name(k)), ops);
    for (bool specials : {false, true})
        expect_same(k_ops, {input(k, {kN}, 5, -9, 9, specials), input(k, {kN}, 6, -3, 3, specials), scalar(k, 0, param), output(k, {17, kN})});
    auto cmp = [](const Tile<T>& a, const Tile<T>& c, const Scalar<T>&) {
        return std::vector<Tile<bool>>{a == c, a != c, a < c, a <= c, a > c, a >= c};
    };
    expect_same(rows_kernel<T, bool>("int_compare_" + std::string(kind_name(k)), cmp),
                {input(k, {kN}, 7, -2, 2, true), input(k, {kN}, 8, -2, 2), scalar(k, 0, 1), output(Kind::Bool, {6, kN})});
}

TEST(CpuElementwise, I8) { int_ops<i8>(300); }  // the parameter wraps to 44
TEST(CpuElementwise, I32) { int_ops<i32>(-7); }
TEST(CpuElementwise, I64) { int_ops<i64>(std::int64_t{1} << 40); }

TEST(CpuElementwise, Bool) {
    auto ops = [](const Tile<bool>& a, const Tile<bool>& c, const Scalar<bool>& s) {
        return std::vector<Tile<bool>>{a && c, a || c, !a, a && s, max(a, c), min(a, c), a == c, a != c, ite(a, c, !c), a < c,
                                       bitwise(detail::OpCode::logical_xor, a, c), abs(a)};
    };
    expect_same(rows_kernel<bool, bool>("bool_ops", ops),
                {input(Kind::Bool, {kN}, 9), input(Kind::Bool, {kN}, 10), scalar(Kind::Bool, 0, 1), output(Kind::Bool, {12, kN})});
}

// cast<U> from kind T to all eight kinds: float -> int truncates and saturates,
// NaN -> 0; ints wrap; floats round to nearest even once.
template <class T> void casts() {
    const Kind k = kind_of<T>;
    auto kern = kernel("casts_from_" + std::string(kind_name(k)),
                       [](View<const T, 1> x, View<bool, 1> o_bool, View<i8, 1> o_i8, View<i32, 1> o_i32, View<i64, 1> o_i64,
                          View<f16, 1> o_f16, View<bf16, 1> o_bf16, View<f32, 1> o_f32, View<f64, 1> o_f64) {
                           auto blocks = axis("blocks", ceil_div(x.extent(0), kBlock));
                           auto b = axis("b", kBlock);
                           for (auto& nest : parallel(shape(blocks))) {
                               auto i0 = nest.index() * kBlock;
                               auto a = x[coord(i0), shape(b)];
                               o_bool(coord(i0), shape(b)).store(cast<bool>(a));
                               o_i8(coord(i0), shape(b)).store(cast<i8>(a));
                               o_i32(coord(i0), shape(b)).store(cast<i32>(a));
                               o_i64(coord(i0), shape(b)).store(cast<i64>(a));
                               o_f16(coord(i0), shape(b)).store(cast<f16>(a));
                               o_bf16(coord(i0), shape(b)).store(cast<bf16>(a));
                               o_f32(coord(i0), shape(b)).store(cast<f32>(a));
                               o_f64(coord(i0), shape(b)).store(cast<f64>(a));
                           }
                       });
    std::vector<cpu_diff::Buffer> bufs{input(k, {kN}, 11, -70000, 70000, true)};
    for (Kind to : {Kind::Bool, Kind::I8, Kind::I32, Kind::I64, Kind::F16, Kind::BF16, Kind::F32, Kind::F64}) bufs.push_back(output(to, {kN}));
    expect_same(kern, bufs);
    bufs[0] = input(k, {kN}, 12, -300, 300, true);
    expect_same(kern, bufs);
}

TEST(CpuCasts, FromBool) { casts<bool>(); }
TEST(CpuCasts, FromI8) { casts<i8>(); }
TEST(CpuCasts, FromI32) { casts<i32>(); }
TEST(CpuCasts, FromI64) { casts<i64>(); }
TEST(CpuCasts, FromF16) { casts<f16>(); }
TEST(CpuCasts, FromBF16) { casts<bf16>(); }
TEST(CpuCasts, FromF32) { casts<f32>(); }
TEST(CpuCasts, FromF64) { casts<f64>(); }

// i64 -> f32 above 2^53 rounds once (not through a rounded double).
TEST(CpuCasts, LargeIntegersToF32RoundOnce) {
    auto kern = kernel("i64_to_f32", [](View<const i64, 1> x, View<f32, 1> y) {
        auto n = axis("n", 4);
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            (void)nest;
            y(coord(0), shape(n)).store(cast<f32>(x[coord(0), shape(n)]));
        }
    });
    auto x = input(Kind::I64, {4}, 0);
    const std::int64_t values[] = {(std::int64_t{1} << 53) + 1, (std::int64_t{1} << 62) + (std::int64_t{1} << 38) + 1, -(std::int64_t{1} << 60) - 3,
                                   INT64_MIN};
    for (int e = 0; e < 4; ++e) ref::write_int(x.arg, e, values[e]);
    expect_same(kern, {x, output(Kind::F32, {4})});
}

}  // namespace
