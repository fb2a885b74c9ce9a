// Memory-bound row kernels on the cpu target, each written as a user writes it,
// against the same computation as a plain single-threaded C++ loop
// (plain_loops.cpp, -O3 -march=native): a bf16 LayerNorm with weight and bias,
// a top-2 router, an inclusive scan over rows (f32 and i32), a broadcast add of
// a row vector and a column sum. kiln runs on one thread (KILN_NUM_THREADS=1,
// set here) in the default (standard) precision. Every kernel's output is
// checked first (against an f64 reference within a bound, or the plain loop's
// bits where both compute the same operations in the same order); the times are
// medians of repeated runs, shown as bandwidth (bytes read and written over the
// median time). Prints a table and writes JSON (argv[1], default
// bench-cpu-rows.json); the ratio is kiln / plain loop (above 1: kiln is faster).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "bench_common.h"
#include "plain_loops.h"

using namespace kiln;
using namespace kiln_bench;

namespace {

constexpr std::int64_t R = 4096, C = 4096;  // the row kernels' matrices, 64 MiB in f32
constexpr float kEps = 1e-5f;

Kernel layernorm_bf16() {
    return kernel("bench_layernorm_bf16", [](View<const bf16, 2> x, View<const bf16, 1> w, View<const bf16, 1> b, View<bf16, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        const float inv_n = 1.0f / static_cast<float>(x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto v = cast<f32>(x[o, shape(r, c)]);
            auto mean = reduce(v, c, add) * inv_n;
            auto d = v - mean;
            auto rstd = rsqrt(reduce(d * d, c, add) * inv_n + kEps);
            auto gain = cast<f32>(w[coord(0), shape(c)]), shift = cast<f32>(b[coord(0), shape(c)]);
            y(o, shape(r, c)).store(cast<bf16>(d * rstd * gain + shift));
        }
    });
}

Kernel top2_router() {
    return kernel("bench_top2_router", [](View<const f32, 2> logits, View<f32, 2> gates, View<i64, 2> experts) {
        auto r = axis("r", 1), e = axis("e", logits.extent(1)), k = axis("k", 2);
        for (auto& nest : parallel(shape(axis("rows", logits.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto top = topk(logits[o, shape(r, e)], e, 2);
            auto v = reshape(top.values, shape(r, k));
            auto g = exp(v - reduce(v, k, maximum));
            gates(o, shape(r, k)).store(g / reduce(g, k, add));
            experts(o, shape(r, k)).store(reshape(top.indices, shape(r, k)));
        }
    });
}

template <class T> Kernel scan_rows() {
    return kernel("bench_scan_rows", [](View<const T, 2> x, View<T, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            y(o, shape(r, c)).store(scan(x[o, shape(r, c)], c, add));
        }
    });
}

// Four rows per instance: the row vector is broadcast over them.
Kernel add_row_vector() {
    return kernel("bench_add_row_vector", [](View<const f32, 2> x, View<const f32, 1> v, View<f32, 2> y) {
        constexpr std::int64_t rows_per = 4;
        auto r = axis("r", rows_per), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), rows_per))))) {
            auto o = coord(nest.index() * rows_per, 0);
            y(o, shape(r, c)).store(x[o, shape(r, c)] + v[coord(0), shape(c)]);
        }
    });
}

// One instance per block of 256 columns, summing blocks of 32 rows.
Kernel column_sum() {
    return kernel("bench_column_sum", [](View<const f32, 2> x, View<f32, 1> y) {
        constexpr std::int64_t bc = 256, br = 32;
        auto r = axis("r", br), c = axis("c", bc);
        for (auto& nest : parallel(shape(axis("col_blocks", ceil_div(x.extent(1), bc))))) {
            auto c0 = nest.index() * bc;
            auto acc = zeros<f32>(shape(c));
            for (auto& step : nest.serial(shape(axis("row_blocks", ceil_div(x.extent(0), br)))))
                acc = acc + reduce(x[coord(step.index() * br, c0), shape(r, c)], r, add);
            y(coord(c0), shape(c)).store(acc);
        }
    });
}

std::vector<bf16> random_bf16(std::size_t n, unsigned seed, float lo, float hi) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<bf16> v(n);
    for (auto& x : v) x = bf16(d(g));
    return v;
}

// Times kiln and the plain loop alternately (so that a burst of load elsewhere
// on the machine hits both), the median of `reps` each.
std::pair<double, double> time_both(const std::function<void()>& k, const std::function<void()>& p, int reps) {
    k(), p();
    std::vector<double> tk, tp;
    for (int i = 0; i < reps; ++i) {
        auto t0 = Clock::now();
        k();
        auto t1 = Clock::now();
        p();
        auto t2 = Clock::now();
        tk.push_back(std::chrono::duration<double>(t1 - t0).count());
        tp.push_back(std::chrono::duration<double>(t2 - t1).count());
    }
    return {median(tk), median(tp)};
}

// As bandwidth (the bytes the kernel must read and write over the median time),
// so that the ratio kiln / plain loop above 1 means kiln is faster.
Row row(const std::string& what, double bytes, std::pair<double, double> t, const std::string& check) {
    return {what, bytes / t.first / 1e9, bytes / t.second / 1e9, "GB/s", "plain C++ loop", check};
}

std::string fmt(const char* f, double a, double b = 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, f, a, b);
    return buf;
}

Row bench_layernorm(int reps) {
    auto xs = random_bf16(R * C, 11, -3, 5), ws = random_bf16(C, 12, 0.5, 1.5), bs = random_bf16(C, 13, -1, 1);
    Tensor<bf16> x({R, C}, xs), w({C}, ws), b({C}, bs), y({R, C});
    std::vector<std::uint16_t> yp(R * C);
    auto k = layernorm_bf16();
    auto run_k = [&] { k.launch(cpu(), std::as_const(x).view(), std::as_const(w).view(), std::as_const(b).view(), y.view()); };
    auto run_p = [&] {
        plain::layernorm_bf16(reinterpret_cast<const std::uint16_t*>(x.data()), reinterpret_cast<const std::uint16_t*>(w.data()),
                              reinterpret_cast<const std::uint16_t*>(b.data()), yp.data(), R, C, kEps);
    };
    run_k(), run_p();
    // Against f64: the result's one bf16 rounding (2^-9 relative) and the f32
    // statistics' error, which lands whole on outputs near 0 (|x| ~ 4 over 4096
    // terms: ~1e-4 on the mean, over a spread of ~2.3): within 2^-8 |y| + 1e-3.
    double worst = 0, worst_plain = 0;
    for (std::int64_t i = 0; i < R; i += 16) {
        double mean = 0, var = 0;
        for (std::int64_t j = 0; j < C; ++j) mean += xs[i * C + j].to_double() / C;
        for (std::int64_t j = 0; j < C; ++j) var += std::pow(xs[i * C + j].to_double() - mean, 2) / C;
        for (std::int64_t j = 0; j < C; ++j) {
            const double want = (xs[i * C + j].to_double() - mean) / std::sqrt(var + kEps) * ws[j].to_double() + bs[j].to_double();
            const double bound = 0x1p-8 * std::fabs(want) + 1e-3;
            worst = std::max(worst, std::fabs(y[i * C + j].to_double() - want) / bound);
            worst_plain = std::max(worst_plain, std::fabs(plain::bf16_to_float(yp[i * C + j]) - want) / bound);
        }
    }
    if (worst > 1) std::fprintf(stderr, "layernorm: kiln is %.2f bounds from f64\n", worst), std::exit(1);
    return row("bf16 LayerNorm 4096x4096 (weight, bias)", 4.0 * R * C, time_both(run_k, run_p, reps),
               fmt("within %.2f of the bound vs f64 (plain loop %.2f)", worst, worst_plain));
}

Row bench_router(int reps) {
    const std::int64_t rows = 65536, n = 64;
    auto logits = random_tensor({rows, n}, 21, -4, 4);
    Tensor<f32> gates({rows, 2});
    Tensor<i64> experts({rows, 2});
    std::vector<float> gp(rows * 2);
    std::vector<std::int64_t> ep(rows * 2);
    auto k = top2_router();
    auto run_k = [&] { k.launch(cpu(), std::as_const(logits).view(), gates.view(), experts.view()); };
    auto run_p = [&] { plain::top2_router(logits.data(), gp.data(), ep.data(), rows, n); };
    run_k(), run_p();
    double worst = 0;
    for (std::int64_t i = 0; i < rows * 2; ++i) {
        if (experts[i] != ep[static_cast<std::size_t>(i)]) std::fprintf(stderr, "router: experts differ at %ld\n", long(i)), std::exit(1);
        worst = std::max(worst, std::fabs(double(gates[i]) - gp[static_cast<std::size_t>(i)]) / gp[static_cast<std::size_t>(i)]);
    }
    if (worst > 1e-6) std::fprintf(stderr, "router: gates differ by %g\n", worst), std::exit(1);
    return row("top-2 router 65536x64 f32 (experts, gates)", rows * (n * 4.0 + 2 * 12), time_both(run_k, run_p, reps),
               fmt("experts equal, gates within %.1e of the loop's", worst));
}

Row bench_scan_f32(int reps) {
    auto x = random_tensor({R, C}, 31, -0.5, 1);
    Tensor<f32> y({R, C});
    std::vector<float> yp(R * C);
    auto k = scan_rows<f32>();
    auto run_k = [&] { k.launch(cpu(), std::as_const(x).view(), y.view()); };
    auto run_p = [&] { plain::scan_rows(x.data(), yp.data(), R, C); };
    run_k(), run_p();
    // Any order of the prefix's j additions: within gamma_j * sum |x| (Higham).
    double worst = 0;
    for (std::int64_t i = 0; i < R; i += 16) {
        double exact = 0, magnitude = 0;
        for (std::int64_t j = 0; j < C; ++j) {
            exact += x[i * C + j], magnitude += std::fabs(x[i * C + j]);
            const double u = 0x1p-24, gamma = j * u / (1 - j * u);
            worst = std::max(worst, std::fabs(y[i * C + j] - exact) / (gamma * magnitude + u * std::fabs(exact)));
        }
    }
    if (worst > 1) std::fprintf(stderr, "scan: %.2f of the reassociation bound\n", worst), std::exit(1);
    return row("inclusive scan (add) over rows 4096x4096 f32", 8.0 * R * C, time_both(run_k, run_p, reps),
               fmt("within %.3f of the any-order error bound", worst));
}

Row bench_scan_i32(int reps) {
    Tensor<i32> x({R, C}), y({R, C});
    std::mt19937 g(41);
    for (auto& v : x.values()) v = static_cast<i32>(g());
    std::vector<std::int32_t> yp(R * C);
    auto k = scan_rows<i32>();
    auto run_k = [&] { k.launch(cpu(), std::as_const(x).view(), y.view()); };
    auto run_p = [&] {
        // The same loop over i32, wrapping as kiln's integers do (unsigned arithmetic).
        for (std::int64_t i = 0; i < R; ++i) {
            std::uint32_t acc = 0;
            for (std::int64_t j = 0; j < C; ++j) acc += static_cast<std::uint32_t>(x.data()[i * C + j]), yp[i * C + j] = static_cast<std::int32_t>(acc);
        }
    };
    run_k(), run_p();
    if (std::memcmp(y.data(), yp.data(), yp.size() * 4) != 0) std::fprintf(stderr, "i32 scan differs\n"), std::exit(1);
    return row("inclusive scan (add) over rows 4096x4096 i32", 8.0 * R * C, time_both(run_k, run_p, reps), "bit-identical to the loop");
}

Row bench_add_row_vector(int reps) {
    auto x = random_tensor({R, C}, 51), v = random_tensor({C}, 52);
    Tensor<f32> y({R, C});
    std::vector<float> yp(R * C);
    auto k = add_row_vector();
    auto run_k = [&] { k.launch(cpu(), std::as_const(x).view(), std::as_const(v).view(), y.view()); };
    auto run_p = [&] { plain::add_row_vector(x.data(), v.data(), yp.data(), R, C); };
    run_k(), run_p();
    if (std::memcmp(y.data(), yp.data(), yp.size() * 4) != 0) std::fprintf(stderr, "broadcast add differs\n"), std::exit(1);
    return row("broadcast add of a row vector 4096x4096 f32", 8.0 * R * C, time_both(run_k, run_p, reps), "bit-identical to the loop");
}

Row bench_column_sum(int reps) {
    auto x = random_tensor({R, C}, 61);
    Tensor<f32> y({C});
    std::vector<float> yp(C);
    auto k = column_sum();
    auto run_k = [&] { k.launch(cpu(), std::as_const(x).view(), y.view()); };
    auto run_p = [&] { plain::column_sum(x.data(), yp.data(), R, C); };
    run_k(), run_p();
    double worst = 0;
    for (std::int64_t j = 0; j < C; ++j) {
        double exact = 0, magnitude = 0;
        for (std::int64_t i = 0; i < R; ++i) exact += x[i * C + j], magnitude += std::fabs(x[i * C + j]);
        const double u = 0x1p-24, gamma = (R - 1) * u / (1 - (R - 1) * u);
        worst = std::max(worst, std::fabs(y[j] - exact) / (gamma * magnitude + u * std::fabs(exact)));
    }
    if (worst > 1) std::fprintf(stderr, "column sum: %.2f of the error bound\n", worst), std::exit(1);
    return row("column sum 4096x4096 f32", 4.0 * R * C, time_both(run_k, run_p, reps), fmt("within %.3f of the any-order error bound", worst));
}

}  // namespace

int main(int argc, char** argv) {
    std::string json = argc > 1 ? argv[1] : "bench-cpu-rows.json";
    if (!cpu().available()) {
        std::fprintf(stderr, "cpu target unavailable: %s\n", cpu().unavailable_reason().c_str());
        return 2;
    }
    ::setenv("KILN_NUM_THREADS", "1", 1);  // the plain loops run on one thread
    const int reps = 21;
    std::vector<Row> rows;
    rows.push_back(bench_layernorm(reps));
    rows.push_back(bench_router(reps));
    rows.push_back(bench_scan_f32(reps));
    rows.push_back(bench_scan_i32(reps));
    rows.push_back(bench_add_row_vector(reps));
    rows.push_back(bench_column_sum(reps));
    print_rows(rows, json);
}
