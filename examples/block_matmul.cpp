// block_matmul: seed 000's matrix-unit example, C = A B for square f32 matrices,
// each program computing one 8x8 block of C as a sum of 8x8 dots. Seed 000 fixed
// N = 16 (four programs, two dots each); here N is any size: the grid covers
// ceil(N/8)^2 blocks, a serial k loop carries the accumulator, and a ragged N
// reads zeros past the edge (which add nothing) and drops the writes there.
// As in the seed, each dot is rounded on its own and then added: r = r + dot(a, b)
// (in exact precision; standard, like mma, lets a target reassociate the sum).
#include <algorithm>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr std::uint32_t kBlock = 8;  // the matrix unit's 8x8 (seed 000)

Kernel make_kernel() {
    return kernel("block_matmul", [](View<const f32, 2> a, View<const f32, 2> b, View<f32, 2> c) {
        auto gi = axis("block_i", ceil_div(a.extent<0>(), kBlock));
        auto gj = axis("block_j", ceil_div(b.extent<1>(), kBlock));
        auto kt = axis("k_tiles", ceil_div(a.extent<1>(), kBlock));
        for (auto& nest : parallel(shape(gi, gj))) {
            auto i0 = nest.index(gi) * kBlock;
            auto j0 = nest.index(gj) * kBlock;
            auto r = zeros<f32>(shape(kBlock, kBlock));
            for (auto& step : nest.serial(shape(kt))) {
                auto k0 = step.index() * kBlock;
                auto ta = a[coord(i0, k0), shape(kBlock, kBlock)];
                auto tb = b[coord(k0, j0), shape(kBlock, kBlock)];
                r = r + dot(ta, tb);
            }
            c(coord(i0, j0), shape(kBlock, kBlock)).store(r);
        }
    });
}

Entry make_block_matmul() {
    Entry e;
    e.name = "block_matmul";
    e.description = "seed 000's 8x8-block matmul generalised to any N: f32 dots, carried accumulator";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::int64_t> sizes;
        switch (size) {
            case Size::small: sizes = {16, 8, 20}; break;
            case Size::medium: sizes = {128, 200, 9}; break;
            case Size::large: sizes = {1024, 1000, 2048}; break;
        }
        std::vector<Case> cases;
        for (auto n : sizes) {
            Case c;
            c.shape = std::to_string(n) + "x" + std::to_string(n);
            c.kernel = make_kernel();
            c.args = {input(Kind::F32, {n, n}, uniform(seed, -1, 1)), input(Kind::F32, {n, n}, uniform(seed + 1, -1, 1)),
                      output(Kind::F32, {n, n})};
            c.reference = [n](const Case& in) {
                auto a = values(*in.args[0]), b = values(*in.args[1]);
                std::vector<double> out(static_cast<std::size_t>(n * n), 0.0);
                for (std::int64_t i = 0; i < n; ++i)
                    for (std::int64_t k = 0; k < n; ++k)
                        for (std::int64_t j = 0; j < n; ++j)
                            out[static_cast<std::size_t>(i * n + j)] += a[static_cast<std::size_t>(i * n + k)] * b[static_cast<std::size_t>(k * n + j)];
                return std::vector<std::vector<double>>{out};
            };
            // A product of block t passes the 8-term dot (7 roundings, any order), the
            // add into r and the later tiles' adds: at most 7 + tiles roundings (nor
            // more than n - 1), on top of the product's own rounding: about
            // gamma(depth + 1) sum_k |a b|, 3e-6 to 5e-6 at n = 20. A missing dot or
            // a wrong block is off by products (~0.25, 5 10^4 bounds and more).
            c.error_bound = [n](const Case& in) {
                const double tiles = static_cast<double>((n + kBlock - 1) / kBlock);
                const double depth = std::min(reduction_depth(n), 7 + tiles);
                return Bounds{matrix_product(values(*in.args[0]), values(*in.args[1]), n, n, n, depth)};
            };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_block_matmul);

}  // namespace kiln::catalog
