// add: c = a + b over 2-D f32 tensors, one block of rows x columns per program.
// Two loads and one store per element; ragged edges are masked by bounds::zero.
#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr std::uint32_t kBlockRows = 8;
constexpr std::uint32_t kBlockCols = 128;

Kernel make_kernel() {
    return kernel("add", [](View<const f32, 2> a, View<const f32, 2> b, View<f32, 2> c) {
        auto gm = axis("block_rows", ceil_div(a.extent<0>(), kBlockRows));
        auto gn = axis("block_cols", ceil_div(a.extent<1>(), kBlockCols));
        auto r = axis("r", kBlockRows);
        auto n = axis("c", kBlockCols);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto origin = coord(nest.index(gm) * kBlockRows, nest.index(gn) * kBlockCols);
            c(origin, shape(r, n)).store(a[origin, shape(r, n)] + b[origin, shape(r, n)]);
        }
    });
}

Entry make_add() {
    Entry e;
    e.name = "add";
    e.description = "c = a + b, 2-D f32, blocked rows x columns";
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
            c.args = {input(Kind::F32, {rows, cols}, uniform(seed, -1, 1)), input(Kind::F32, {rows, cols}, uniform(seed + 1, -1, 1)),
                      output(Kind::F32, {rows, cols})};
            c.reference = [](const Case& in) {
                auto a = values(*in.args[0]), b = values(*in.args[1]);
                for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
                return std::vector<std::vector<double>>{a};
            };
            // One f32 rounding per element: |out - ref| <= u |a + b| (u = 2^-24). A
            // wrong result (a - b, a neighbour's element) is off by about |b| ~ 0.5,
            // some 10^7 times the bound; an unwritten element stays NaN.
            c.error_bound = [](const Case& in) {
                auto a = values(*in.args[0]), b = values(*in.args[1]);
                return Bounds{each_element(in.args[0]->size(), [&](std::int64_t i) { return exact(a[i]) + exact(b[i]); })};
            };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_add);

}  // namespace kiln::catalog
