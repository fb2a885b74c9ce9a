// transpose: y = x^T for a 2-D f32 tensor. Each program loads one block_m x block_n
// tile, permutes it in registers with transpose(), and stores it at the mirrored
// origin as a block_n x block_m tile. Unequal block extents keep a mix-up of the
// two axes from passing unnoticed.
#include "catalog.h"

namespace kiln::catalog {
namespace {

struct TransposeConfig {
    std::uint32_t block_m{32u};
    std::uint32_t block_n{16u};
};

Kernel make_kernel(TransposeConfig cfg) {
    return kernel("transpose", [=](View<const f32, 2> x, View<f32, 2> y) {
        auto gm = axis("block_m", ceil_div(x.extent<0>(), cfg.block_m));
        auto gn = axis("block_n", ceil_div(x.extent<1>(), cfg.block_n));
        auto m = axis("m", cfg.block_m);
        auto n = axis("n", cfg.block_n);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * cfg.block_m;
            auto n0 = nest.index(gn) * cfg.block_n;
            auto tile = x[coord(m0, n0), shape(m, n)];
            y(coord(n0, m0), shape(n, m)).store(transpose(tile));
        }
    });
}

Entry make_transpose() {
    Entry e;
    e.name = "transpose";
    e.description = "y = x^T, 2-D f32, blocked, permuted in registers";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 2>> shapes;
        switch (size) {
            case Size::small: shapes = {{32, 16}, {37, 19}, {1, 45}}; break;
            case Size::medium: shapes = {{512, 512}, {300, 1000}, {4097, 3}}; break;
            case Size::large: shapes = {{4096, 4096}, {4095, 4097}, {65536, 256}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, cols] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(cols);
            c.kernel = make_kernel({});
            c.args = {input(Kind::F32, {rows, cols}, uniform(seed, -1, 1)), output(Kind::F32, {cols, rows})};
            c.reference = [rows, cols](const Case& in) {
                auto x = values(*in.args[0]);
                std::vector<double> t(x.size());
                for (std::int64_t i = 0; i < rows; ++i)
                    for (std::int64_t j = 0; j < cols; ++j) t[static_cast<std::size_t>(j * rows + i)] = x[static_cast<std::size_t>(i * cols + j)];
                return std::vector<std::vector<double>>{t};
            };
            c.exact_integer = true;  // data movement only
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_transpose);

}  // namespace kiln::catalog
