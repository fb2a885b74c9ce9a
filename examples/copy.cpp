// copy: y = x over a 2-D f32 tensor, one block of rows x columns per program. The
// catalog's bandwidth baseline: one load and one store per element, nothing else.
// Ragged edges need no code: the default bounds::zero policy reads past the edge as
// 0 and drops those writes.
#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr std::uint32_t kBlockRows = 8;
constexpr std::uint32_t kBlockCols = 128;

Kernel make_kernel() {
    return kernel("copy", [](View<const f32, 2> x, View<f32, 2> y) {
        auto gm = axis("block_rows", ceil_div(x.extent<0>(), kBlockRows));
        auto gn = axis("block_cols", ceil_div(x.extent<1>(), kBlockCols));
        auto r = axis("r", kBlockRows);
        auto c = axis("c", kBlockCols);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto origin = coord(nest.index(gm) * kBlockRows, nest.index(gn) * kBlockCols);
            y(origin, shape(r, c)).store(x[origin, shape(r, c)]);
        }
    });
}

Entry make_copy() {
    Entry e;
    e.name = "copy";
    e.description = "y = x, 2-D f32, blocked rows x columns (bandwidth baseline)";
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
            c.args = {input(Kind::F32, {rows, cols}, uniform(seed, -1, 1)), output(Kind::F32, {rows, cols})};
            c.reference = [](const Case& in) { return std::vector<std::vector<double>>{values(*in.args[0])}; };
            c.exact_integer = true;  // a copy moves bits
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_copy);

}  // namespace kiln::catalog
