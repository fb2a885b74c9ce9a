// saxpy: y = a / 0.4f + b over 2-D f32 tensors. The expression is the legacy
// benchmark's, kept verbatim (seed 004, "Migrated examples"): a division by an f32
// literal and an add, each rounded once to f32.
#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr std::uint32_t kBlockRows = 8;
constexpr std::uint32_t kBlockCols = 128;
constexpr float kDivisor = 0.4f;

Kernel make_kernel() {
    return kernel("saxpy", [](View<const f32, 2> a, View<const f32, 2> b, View<f32, 2> y) {
        auto gm = axis("block_rows", ceil_div(a.extent<0>(), kBlockRows));
        auto gn = axis("block_cols", ceil_div(a.extent<1>(), kBlockCols));
        auto r = axis("r", kBlockRows);
        auto c = axis("c", kBlockCols);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto origin = coord(nest.index(gm) * kBlockRows, nest.index(gn) * kBlockCols);
            y(origin, shape(r, c)).store(a[origin, shape(r, c)] / kDivisor + b[origin, shape(r, c)]);
        }
    });
}

Entry make_saxpy() {
    Entry e;
    e.name = "saxpy";
    e.description = "y = a / 0.4f + b, 2-D f32 (the legacy benchmark's expression)";
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
                // The divisor is the f32 number 0.4f, as the kernel sees it.
                const double divisor = static_cast<double>(kDivisor);
                for (std::size_t i = 0; i < a.size(); ++i) a[i] = a[i] / divisor + b[i];
                return std::vector<std::vector<double>>{a};
            };
            // Two f32 roundings per element: u |a / 0.4f| + u |a / 0.4f + b| (u = 2^-24),
            // which holds also where the sum cancels. A wrong result (a * 0.4f, a
            // neighbour's b) is off by about 1, some 10^7 times the bound.
            c.error_bound = [](const Case& in) {
                auto a = values(*in.args[0]), b = values(*in.args[1]);
                return Bounds{each_element(in.args[0]->size(), [&](std::int64_t i) {
                    return exact(a[i]) / static_cast<double>(kDivisor) + exact(b[i]);
                })};
            };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_saxpy);

}  // namespace kiln::catalog
