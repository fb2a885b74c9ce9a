// nested_regions: parallel -> serial -> pipeline -> reduction (seed 004, section 13).
// One outer tile, `sum`, is assigned inside the innermost region, so the frontend
// must infer loop-carried state at each lexical boundary.
#include <algorithm>
#include <array>
#include <cmath>

#include "catalog.h"

namespace kiln::catalog {
namespace {

Kernel make_kernel() {
    return kernel("nested_regions", [](View<const f32, 4> source, View<f32, 1> result) {
        auto row = axis("row", source.extent<0>());
        auto phase = axis("phase", source.extent<1>());
        auto step = axis("step", source.extent<2>());
        auto lane = axis("lane", source.extent<3>());
        auto r = axis("local_row", 1);
        auto p = axis("local_phase", 1);
        auto s = axis("local_step", 1);
        for (auto& nest : parallel(shape(row))) {
            auto sum = zeros<f32>(shape(r));
            for (auto& phase_nest : nest.serial(shape(phase))) {
                for (auto& step_nest : phase_nest.pipeline(shape(step), {.window = 2, .interval = 1})) {
                    step_nest.stage("load");
                    auto value = source[coord(nest.index(row), phase_nest.index(phase), step_nest.index(step), 0), shape(r, p, s, lane)];
                    step_nest.stage("consume");
                    sum += reshape(reduce(value, lane, add), shape(r));
                }
            }
            result(coord(nest.index(row)), shape(r)).store(sum);
        }
    });
}

Entry make_nested_regions() {
    Entry e;
    e.name = "nested_regions";
    e.description = "f32 per-row total through parallel / serial / pipeline nests with a carried tile";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 4>> shapes;  // rows, phases, steps, lanes
        switch (size) {  // the seed's shape first; a one-step pipeline; one phase with a ragged lane count
            case Size::small: shapes = {{3, 2, 3, 4}, {2, 3, 1, 5}, {1, 1, 4, 7}}; break;
            case Size::medium: shapes = {{64, 4, 8, 32}, {33, 3, 5, 17}, {7, 1, 64, 128}}; break;
            case Size::large: shapes = {{4096, 4, 16, 64}, {1000, 8, 7, 129}, {65536, 2, 2, 32}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, phases, steps, lanes] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(phases) + "x" + std::to_string(steps) + "x" + std::to_string(lanes);
            c.kernel = make_kernel();
            c.args = {input(Kind::F32, {rows, phases, steps, lanes}, uniform(seed, -1, 1)), output(Kind::F32, {rows})};
            c.scalars.assign(c.args.size(), 0);
            const std::int64_t per_row = phases * steps * lanes;
            c.reference = [rows, per_row](const Case& c) {
                auto x = values(*c.args[0]);
                std::vector<double> total(static_cast<std::size_t>(rows), 0.0);
                for (std::int64_t i = 0; i < rows; ++i)
                    for (std::int64_t j = 0; j < per_row; ++j) total[i] += x[i * per_row + j];
                return std::vector<std::vector<double>>{total};
            };
            // A term passes its step's lane reduction (lanes - 1 roundings, any order)
            // and the carried sum's adds (phases * steps at most), nor more than
            // per_row - 1: gamma(depth) sum |x|, 7e-6 for 3x2x3x4. Losing a step's
            // or a phase's sum (the carried state) is off by ~1, 10^5 bounds.
            c.error_bound = [rows, per_row, phases, steps, lanes](const Case& c) {
                auto x = values(*c.args[0]);
                const double depth = std::min(reduction_depth(per_row), reduction_depth(lanes) + static_cast<double>(phases * steps));
                return Bounds{each_element(rows, [&](std::int64_t i) {
                    std::vector<Bounded> terms;
                    for (std::int64_t j = 0; j < per_row; ++j) terms.push_back(exact(x[i * per_row + j]));
                    return sum(terms, depth);
                })};
            };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_nested_regions);

}  // namespace kiln::catalog
