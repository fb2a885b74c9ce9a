// sort_topk: per row, the k largest values with their source indices, descending, ties
// broken by the lower source index (seed 004, section 11); and the full stable
// ascending sort of the same row, which the median filter also builds on.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "catalog.h"

namespace kiln::catalog {
namespace {

Kernel make_kernel() {
    return kernel("sort_topk", [](View<const f32, 2> source, View<f32, 2> top_value, View<i64, 2> top_index,
                                  View<f32, 2> sorted_value, View<i64, 2> sorted_index) {
        auto row = axis("row", source.extent<0>());
        auto r = axis("local_row", 1);
        auto c = axis("column", source.extent<1>());
        auto rank = axis("output_rank", top_value.extent<1>());
        for (auto& nest : parallel(shape(row))) {
            auto value = source[coord(nest.index(), 0), shape(r, c)];
            auto ranked = topk(value, c, top_value.extent<1>());
            auto ordered = sort(value, c);
            auto destination = coord(nest.index(), 0);
            top_value(destination, shape(r, rank)).store(ranked.values);
            top_index(destination, shape(r, rank)).store(ranked.indices);
            sorted_value(destination, shape(r, c)).store(ordered.values);
            sorted_index(destination, shape(r, c)).store(ordered.indices);
        }
    });
}

Entry make_sort_topk() {
    Entry e;
    e.name = "sort_topk";
    e.description = "per-row top-k (descending) and stable ascending sort, values and indices; ties by index";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 3>> shapes;  // rows, columns, k
        switch (size) {  // the seed's shape first; k = columns (a full ranking) and a single column
            case Size::small: shapes = {{3, 8, 3}, {4, 5, 5}, {2, 1, 1}}; break;
            case Size::medium: shapes = {{64, 128, 8}, {100, 77, 77}, {3, 1000, 10}}; break;
            case Size::large: shapes = {{4096, 256, 16}, {1024, 4096, 64}, {65536, 32, 4}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, cols, k] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(cols) + " k" + std::to_string(k);
            c.kernel = make_kernel();
            // Few distinct values (halves in [-2, 2]): rows are full of ties.
            auto level = uniform(seed, 0, 9);
            c.args = {input(Kind::F32, {rows, cols}, [level](std::int64_t i) { return std::floor(level(i)) / 2 - 2; }),
                      output(Kind::F32, {rows, k}), output(Kind::I64, {rows, k}), output(Kind::F32, {rows, cols}),
                      output(Kind::I64, {rows, cols})};
            c.scalars.assign(c.args.size(), 0);
            c.reference = [rows, cols, k](const Case& c) {
                auto x = values(*c.args[0]);
                std::vector<double> top_v, top_i, sort_v, sort_i;
                std::vector<std::int64_t> order(static_cast<std::size_t>(cols));
                for (std::int64_t i = 0; i < rows; ++i) {
                    const double* v = x.data() + i * cols;
                    // Descending by value, then ascending by index: an explicit total order.
                    std::iota(order.begin(), order.end(), 0);
                    std::sort(order.begin(), order.end(), [v](std::int64_t a, std::int64_t b) { return v[a] != v[b] ? v[a] > v[b] : a < b; });
                    for (std::int64_t j = 0; j < k; ++j) {
                        top_v.push_back(v[order[j]]);
                        top_i.push_back(static_cast<double>(order[j]));
                    }
                    std::iota(order.begin(), order.end(), 0);
                    std::sort(order.begin(), order.end(), [v](std::int64_t a, std::int64_t b) { return v[a] != v[b] ? v[a] < v[b] : a < b; });
                    for (std::int64_t j = 0; j < cols; ++j) {
                        sort_v.push_back(v[order[j]]);
                        sort_i.push_back(static_cast<double>(order[j]));
                    }
                }
                return std::vector<std::vector<double>>{top_v, top_i, sort_v, sort_i};
            };
            c.exact_integer = true;  // values are moved, never computed
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_sort_topk);

}  // namespace kiln::catalog
