// exp: y = exp(x) over a 2-D f32 tensor. kiln's exp is its own deterministic
// implementation (built from correctly rounded + - * /), rounded once to f32, so
// every target agrees bit for bit; the f64 reference here is the C library's.
#include <cmath>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr std::uint32_t kBlockRows = 8;
constexpr std::uint32_t kBlockCols = 128;

Kernel make_kernel() {
    return kernel("exp", [](View<const f32, 2> x, View<f32, 2> y) {
        auto gm = axis("block_rows", ceil_div(x.extent<0>(), kBlockRows));
        auto gn = axis("block_cols", ceil_div(x.extent<1>(), kBlockCols));
        auto r = axis("r", kBlockRows);
        auto c = axis("c", kBlockCols);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto origin = coord(nest.index(gm) * kBlockRows, nest.index(gn) * kBlockCols);
            y(origin, shape(r, c)).store(exp(x[origin, shape(r, c)]));
        }
    });
}

Entry make_exp() {
    Entry e;
    e.name = "exp";
    e.description = "y = exp(x), 2-D f32, kiln's deterministic exp";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 2>> shapes;
        switch (size) {
            case Size::small: shapes = {{8, 128}, {13, 300}, {1, 5}}; break;
            case Size::medium: shapes = {{256, 1024}, {300, 1000}, {1, 65537}}; break;
            case Size::large: shapes = {{4096, 4096}, {4095, 4097}, {1, 1 << 24}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, cols] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(cols);
            c.kernel = make_kernel();
            // [-20, 20) spans seventeen decades of output, far from f32 overflow (88.7).
            c.args = {input(Kind::F32, {rows, cols}, uniform(seed, -20, 20)), output(Kind::F32, {rows, cols})};
            c.reference = [](const Case& in) {
                auto x = values(*in.args[0]);
                for (double& v : x) v = std::exp(v);
                return std::vector<std::vector<double>>{x};
            };
            // kiln's exp is within half an f32 ulp (plus 1.03 f64 ulp); a target's own
            // exp in precision standard within 2 ulp of that: 2.5 ulp <= 5u |exp(x)|.
            // An exp off by one f32 ulp still passes, as the contract allows; exp2 or
            // exp(x) of a neighbour is off by a factor, 10^6 bounds and more.
            c.error_bound = [](const Case& in) {
                auto x = values(*in.args[0]);
                return Bounds{each_element(in.args[0]->size(), [&](std::int64_t i) { return exp(exact(x[i])); })};
            };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_exp);

}  // namespace kiln::catalog
