// The cpu target against the interpreter, byte for byte: view accesses (ragged
// tails, fallbacks, negative origins, strided and transposed views, rank 3),
// serial and pipeline loops with carried state (nested, swapped, 2-D domains,
// zero trips), mma for every operand/accumulator pairing and dim map, and
// explicit memory<T>.
#include "cpu_diff.h"
#include "cpu_source.h"

using namespace kiln;
using cpu_diff::expect_same;
using cpu_diff::input;
using cpu_diff::output;
using cpu_diff::scalar;

namespace {

TEST(CpuMemory, RaggedBlocksFallbacksAndNegativeOrigins) {
    auto kern = kernel("ragged", [](View<const f32, 2> x, View<f32, 2> y, View<f32, 2> z) {
        auto gm = axis("gm", ceil_div(x.extent(0), 4)), gn = axis("gn", ceil_div(x.extent(1), 8));
        auto m = axis("m", 4), n = axis("n", 8);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto r0 = nest.index(gm) * 4, c0 = nest.index(gn) * 8;
            auto v = x(coord(r0, c0), shape(m, n)).load(-1.5f);        // outside reads give the fallback
            y(coord(r0, c0), shape(m, n)).store(v + 1.0f);              // outside writes are dropped
            auto w = x[coord(r0 - 2, c0 - 3), shape(m, n)];             // partly before the view's start
            z(coord(r0 - 1, c0 + 5), shape(m, n)).store(w);
        }
    });
    for (auto [rows, cols] : {std::pair{13, 21}, std::pair{4, 8}, std::pair{1, 1}})
        expect_same(kern, {input(Kind::F32, {rows, cols}, 31), output(Kind::F32, {rows, cols}), output(Kind::F32, {rows, cols})});
}

// A fallback and an operand spelled in the view's own narrow kind (bf16(1.5f)), as
// a float literal may be: elements past the view read 1.5, and the product doubles.
TEST(CpuMemory, NarrowFloatValuesStandBesideTilesLikeNumbers) {
    auto kern = kernel("narrow_values", [](View<const bf16, 1> x, View<f32, 1> y) {
        auto n = axis("n", 8);
        for (auto& nest : parallel(shape(axis("g", 1)))) {
            (void)nest;
            y(coord(0), shape(n)).store(cast<f32>(x(coord(0), shape(n)).load(bf16(1.5f)) * bf16(2.0f)));
        }
    });
    Tensor<bf16> x({5});
    for (int i = 0; i < 5; ++i) x.values()[static_cast<std::size_t>(i)] = bf16(0.25 * i - 0.5);
    Tensor<f32> y({8});
    kern.launch(interp(), std::as_const(x).view(), y.view());
    for (int i = 0; i < 8; ++i) EXPECT_EQ(y.values()[static_cast<std::size_t>(i)], i < 5 ? 2 * (0.25f * i - 0.5f) : 3.0f) << i;
    expect_same(kern, {input(Kind::BF16, {5}, 35), output(Kind::F32, {8})});
}

// Views that are not row-major: a transposed view (inner stride != 1), a view
// with padded rows and every other column, and a rank-3 view.
TEST(CpuMemory, StridedViews) {
    auto kern = kernel("strided", [](View<const f64, 2> x, View<f64, 2> y, View<const i8, 3> u, View<i8, 3> w) {
        auto g = axis("g", ceil_div(x.extent(0), 3));
        auto m = axis("m", 3), n = axis("n", 5), a = axis("a", 2), b = axis("b", 3), c = axis("c", 4);
        for (auto& nest : parallel(shape(g))) {
            auto r0 = nest.index() * 3;
            y(coord(r0, 0), shape(m, n)).store(x[coord(r0, 0), shape(m, n)] * 3.0);
            w(coord(nest.index() * 2, 0, 0), shape(a, b, c)).store(-u[coord(nest.index() * 2, 0, 0), shape(a, b, c)]);
        }
    });
    auto x = input(Kind::F64, {7, 5}, 32, -2, 2, false, {1, 7});   // column-major
    auto u = input(Kind::I8, {6, 3, 4}, 33, -128, 127, true, {24, 8, 2});
    expect_same(kern, {x, output(Kind::F64, {7, 5}), u, output(Kind::I8, {6, 3, 4})});
}

// Every element kind through a load and a store (f16/bf16 bit patterns, bools).
template <class T> void round_trip(Kind k) {
    auto kern = kernel("round_trip_" + std::string(kind_name(k)), [](View<const T, 1> x, View<T, 1> y) {
        auto g = axis("g", ceil_div(x.extent(0), 8));
        auto n = axis("n", 8);
        for (auto& nest : parallel(shape(g))) y(coord(nest.index() * 8), shape(n)).store(x[coord(nest.index() * 8), shape(n)]);
    });
    expect_same(kern, {input(k, {19}, 34, -1e5, 1e5, true), output(k, {19})});
}
TEST(CpuMemory, RoundTripEveryKind) {
    round_trip<bool>(Kind::Bool), round_trip<i8>(Kind::I8), round_trip<i32>(Kind::I32), round_trip<i64>(Kind::I64);
    round_trip<f16>(Kind::F16), round_trip<bf16>(Kind::BF16), round_trip<f32>(Kind::F32), round_trip<f64>(Kind::F64);
}

// Carried state: a running sum (serial), a pair that swaps each step, a 2-D
// serial domain, and a loop whose trip count comes from the view (zero here).
TEST(CpuLoops, CarriedStateSwapsAndTwoDimensionalDomains) {
    auto kern = kernel("carried", [](View<const f32, 2> x, View<f32, 2> sums, View<f32, 2> fib, View<i64, 1> count) {
        auto rows = axis("rows", x.extent(0)), steps = axis("steps", x.extent(1));
        auto one = axis("one", 1), c = axis("c", 4);
        for (auto& nest : parallel(shape(rows))) {
            auto acc = zeros<f32>(shape(one, c));
            auto a = full<f32>(shape(one, c), 1.0f), b = full<f32>(shape(one, c), 0.5f);
            for (auto& step : nest.serial(shape(steps))) {
                auto v = x[coord(nest.index(), step.index()), shape(one, c)];
                acc = acc + v;
                auto next = a + b * v;
                a = b;  // a and b trade places every iteration
                b = next;
            }
            sums(coord(nest.index(), 0), shape(one, c)).store(acc);
            fib(coord(nest.index(), 0), shape(one, c)).store(a - b);
            Scalar<i64> n = 0;
            for (auto& inner : nest.serial(shape(axis("p", 3), axis("q", x.extent(1))))) {
                (void)inner;
                n = n + 1;
            }
            count(coord(nest.index()), shape(one)).store(n);
        }
    });
    expect_same(kern, {input(Kind::F32, {5, 9}, 35), output(Kind::F32, {5, 4}), output(Kind::F32, {5, 4}), output(Kind::I64, {5})});
    expect_same(kern, {input(Kind::F32, {3, 0}, 36), output(Kind::F32, {3, 4}), output(Kind::F32, {3, 4}), output(Kind::I64, {3})});
}

// Nested serial/pipeline regions with carried values at both levels (seed 004).
TEST(CpuLoops, NestedPipelineInsideSerial) {
    auto kern = tile_kernel("nested", [](TensorView<const f16, 4> source, TensorView<f16, 1> result) {
        auto row = axis("row", source.extent<0>()), phase = axis("phase", source.extent<1>());
        auto step = axis("step", source.extent<2>()), lane = axis("lane", source.extent<3>());
        auto r = axis("local_row", 1), p = axis("local_phase", 1), s = axis("local_step", 1);
        for (auto& nest : parallel(shape(row))) {
            auto sum = zeros<f16>(shape(r));
            for (auto& phase_nest : nest.serial(shape(phase))) {
                auto partial = zeros<f16>(shape(r));
                for (auto& step_nest : phase_nest.pipeline(shape(step), {.window = 2, .interval = 1})) {
                    step_nest.stage("load");
                    auto value = source[coord(nest.index(row), phase_nest.index(phase), step_nest.index(step), 0), shape(r, p, s, lane)];
                    step_nest.stage("consume");
                    partial += reshape(reduce(value, lane, add), shape(r));
                }
                sum = sum * 0.5 + partial;
            }
            result(coord(nest.index(row)), shape(r)).store(sum);
        }
    });
    expect_same(kern, {input(Kind::F16, {3, 2, 3, 4}, 37, -8, 8, true), output(Kind::F16, {3})});
}

// mma, the seed-004 GEMM: pipelined K loop, accumulator carried, ragged M, N, K.
template <class A, class C> Kernel gemm_kernel(const std::string& name, MmaOptions o = {}) {
    return kernel(name, [o](View<const A, 2> a_view, View<const A, 2> b_view, View<C, 2> c_view) {
        auto gm = axis("gm", ceil_div(a_view.extent(0), 8)), gn = axis("gn", ceil_div(b_view.extent(1), 8));
        auto kt = axis("kt", ceil_div(a_view.extent(1), 4));
        auto m = axis("m", 8), n = axis("n", 8), k = axis("k", 4);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 8, n0 = nest.index(gn) * 8;
            auto acc = zeros<C>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt))) {
                auto k0 = step.index() * 4;
                acc = mma(a_view[coord(m0, k0), shape(m, k)], b_view[coord(k0, n0), shape(k, n)], acc, o);
            }
            c_view(coord(m0, n0), shape(m, n)).store(acc);
        }
    });
}

template <class A, class C> void gemm(double lo, double hi, bool specials = false) {
    const Kind a = kind_of<A>, c = kind_of<C>;
    auto kern = gemm_kernel<A, C>("gemm_" + std::string(kind_name(a)) + "_" + std::string(kind_name(c)));
    expect_same(kern, {input(a, {13, 11}, 38, lo, hi, specials), input(a, {11, 10}, 39, lo, hi, specials), output(c, {13, 10})});
    expect_same(kern, {input(a, {13, 11}, 40, lo, hi, specials), input(a, {11, 10}, 41, lo, hi, specials), output(c, {13, 10})},
                {.precision = Precision::exact});
}

TEST(CpuMma, F32) { gemm<f32, f32>(-1, 1), gemm<f32, f32>(-1, 1, true); }
TEST(CpuMma, F16ToF32) { gemm<f16, f32>(-4, 4), gemm<f16, f32>(-4, 4, true); }
TEST(CpuMma, BF16ToF32) { gemm<bf16, f32>(-4, 4, true); }
TEST(CpuMma, I8ToI32) { gemm<i8, i32>(-128, 128, true); }
TEST(CpuMma, F64) { gemm<f64, f64>(-1, 1, true); }
TEST(CpuMma, F16) { gemm<f16, f16>(-2, 2, true); }
TEST(CpuMma, I32Wrapping) { gemm<i32, i32>(-100000, 100000, true); }

// Tiles wide enough for the register-blocked f32 path (kiln_cpu::mma_block):
// 19 rows (two blocks of 8 and one of 3), 56 columns (one block of 32, one of
// 16, 8 left to the plain loops), a batch axis, and a contraction over a's
// outer dim (a transposed a). Both precisions keep the pinned order, so both
// compare byte for byte.
template <class A> void blocked_gemm(double lo, double hi) {
    auto kern = kernel("mma_blocked_" + std::string(kind_name(kind_of<A>)),
                       [](View<const A, 3> a_view, View<const A, 3> b_view, View<const A, 2> at_view, View<const A, 2> b2_view, View<f32, 3> c_view,
                          View<f32, 2> t_view) {
                           auto bt = axis("bt", 2), m = axis("m", 19), k = axis("k", 7), n = axis("n", 56);
                           for (auto& nest : parallel(shape(axis("one", 1)))) {
                               (void)nest;
                               auto a = a_view[coord(0, 0, 0), shape(bt, m, k)];
                               auto b = b_view[coord(0, 0, 0), shape(bt, k, n)];
                               c_view(coord(0, 0, 0), shape(bt, m, n)).store(mma(a, b, full<f32>(shape(bt, m, n), 0.5f)));
                               auto at = at_view[coord(0, 0), shape(k, m)];  // a^T: contracts its outer dim
                               auto b2 = b2_view[coord(0, 0), shape(k, n)];
                               t_view(coord(0, 0), shape(m, n)).store(mma(at, b2, zeros<f32>(shape(m, n))));
                           }
                       });
    const Kind kd = kind_of<A>;
    auto bufs = [&](bool specials) {
        return std::vector<cpu_diff::Buffer>{input(kd, {2, 19, 7}, 45, lo, hi, specials), input(kd, {2, 7, 56}, 46, lo, hi, specials),
                                             input(kd, {7, 19}, 47, lo, hi, specials), input(kd, {7, 56}, 48, lo, hi, specials),
                                             output(Kind::F32, {2, 19, 56}), output(Kind::F32, {19, 56})};
    };
    for (bool specials : {false, true}) expect_same(kern, bufs(specials), {.precision = Precision::exact});
    // Standard precision may fuse products with their sums (finite inputs: with
    // specials, a product that overflows alone may stay finite when fused).
    cpu_diff::expect_close(kern, bufs(false), 1e-6, 1e-5);
    // The blocks under test: 8 rows x 32 columns, the 3 last rows, a last 16 columns.
    // Exact precision takes the unfused block, standard the fused one.
    const std::string exact = cpu_diff::cpu_source(kern, bufs(false), {.precision = Precision::exact});
    const std::string standard = cpu_diff::cpu_source(kern, bufs(false));
    for (const std::string block : {"<8, 2>", "<3, 2>", "<8, 1>", "<3, 1>"}) {
        EXPECT_NE(exact.find("kiln_cpu::mma_block" + block), std::string::npos) << block;
        EXPECT_NE(standard.find("kiln_cpu::mma_block_fused" + block), std::string::npos) << block;
    }
}

TEST(CpuMma, RegisterBlockedF32) { blocked_gemm<f32>(-1, 1); }
TEST(CpuMma, RegisterBlockedF16ToF32) { blocked_gemm<f16>(-4, 4); }
TEST(CpuMma, RegisterBlockedBF16ToF32) { blocked_gemm<bf16>(-4, 4); }

// Named-axis dim maps: a batch axis shared by all three, two contracted axes at
// once, operands that each lack an output axis, and a contraction to a scalar.
TEST(CpuMma, NamedAxisDimMaps) {
    auto kern = kernel("mma_maps", [](View<const f32, 3> a_view, View<const f32, 3> b_view, View<f32, 3> batched, View<f32, 2> two,
                                      View<f32, 2> outer, View<f32, 1> dot) {
        auto bt = axis("bt", 2), m = axis("m", 3), k = axis("k", 4), n = axis("n", 5);
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            (void)nest;
            auto a = a_view[coord(0, 0, 0), shape(bt, m, k)];
            auto b = b_view[coord(0, 0, 0), shape(bt, k, n)];
            batched(coord(0, 0, 0), shape(bt, m, n)).store(mma(a, b, zeros<f32>(shape(bt, m, n))));
            two(coord(0, 0), shape(m, n)).store(mma(a, b, full<f32>(shape(m, n), 0.25f)));  // contracts bt and k
            auto x = reduce(a, k, add), y = reduce(b, k, add);                            // [bt, m], [bt, n]
            outer(coord(0, 0), shape(m, n)).store(mma(x, y, zeros<f32>(shape(m, n))));     // contracts bt
            auto d = mma(reduce(a, shape(m, k), add), reduce(b, shape(k, n), add), zeros<f32>(shape()));  // [bt] . [bt]
            dot(coord(0), shape(axis("o", 1))).store(d);
        }
    });
    for (bool specials : {false, true})
        expect_same(kern, {input(Kind::F32, {2, 3, 4}, 42, -1, 1, specials), input(Kind::F32, {2, 4, 5}, 43, -1, 1, specials),
                           output(Kind::F32, {2, 3, 5}), output(Kind::F32, {3, 5}), output(Kind::F32, {3, 5}), output(Kind::F32, {1})});
}

// memory<T>: stores and snapshot loads of an explicit resource, carried through
// a loop (its contents are a variable).
TEST(CpuMemory, ExplicitMemoryResource) {
    auto kern = kernel("memory", [](View<const f32, 2> x, View<f32, 2> y) {
        auto g = axis("g", ceil_div(x.extent(0), 4));
        auto r = axis("r", 4), c = axis("c", 6);
        for (auto& nest : parallel(shape(g))) {
            auto buf = memory<f32>(layout(shape(r, c), stride(6, 1)));
            auto v = x[coord(nest.index() * 4, 0), shape(r, c)];
            buf.store(v);
            for (auto& step : nest.serial(shape(axis("steps", 3)))) {
                (void)step;
                buf.store(buf.load() * 0.5f + v);
            }
            y(coord(nest.index() * 4, 0), shape(r, c)).store(buf.load() - v);
        }
    });
    expect_same(kern, {input(Kind::F32, {10, 6}, 44), output(Kind::F32, {10, 6})});
}

}  // namespace
