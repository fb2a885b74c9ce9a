// segmented_sum: per bucket, the sum and the count of the items whose id names it
// (seed 004, section 12). One program per bucket with a masked tile reduction over all
// items: deterministic, no atomics, and an empty bucket gets 0 and 0.
#include <cmath>

#include "catalog.h"

namespace kiln::catalog {
namespace {

Kernel make_kernel() {
    return kernel("segmented_sum", [](View<const i64, 1> ids, View<const f32, 1> values, View<f32, 1> sums, View<i64, 1> counts) {
        auto item = axis("item", ids.extent<0>());
        auto bucket = axis("bucket", sums.extent<0>());
        auto output = axis("output", 1);
        for (auto& nest : parallel(shape(bucket))) {
            auto id = ids[coord(0), shape(item)];
            auto value = values[coord(0), shape(item)];
            auto matches = id == nest.index();
            auto sum = reduce(ite(matches, value, 0.0f), item, add);
            auto count = reduce(cast<i64>(matches), item, add);
            sums(coord(nest.index()), shape(output)).store(sum);
            counts(coord(nest.index()), shape(output)).store(count);
        }
    });
}

Entry make_segmented_sum() {
    Entry e;
    e.name = "segmented_sum";
    e.description = "per-bucket sum and count of f32 values by i64 id, empty buckets included";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 2>> shapes;  // items, buckets
        switch (size) {  // the seed's 13 items in 5 buckets first; more buckets than items; one item
            case Size::small: shapes = {{13, 5}, {4, 9}, {1, 3}}; break;
            case Size::medium: shapes = {{4096, 64}, {1000, 257}, {77, 100}}; break;
            case Size::large: shapes = {{1 << 16, 256}, {100003, 1000}, {1 << 20, 16}}; break;
        }
        std::vector<Case> cases;
        for (auto [items, buckets] : shapes) {
            Case c;
            c.shape = std::to_string(items) + " items, " + std::to_string(buckets) + " buckets";
            c.kernel = make_kernel();
            // Ids only ever name even buckets, so every odd bucket is empty.
            auto pick = uniform(seed, 0, static_cast<double>((buckets + 1) / 2));
            c.args = {input(Kind::I64, {items}, [pick](std::int64_t i) { return 2 * std::floor(pick(i)); }),
                      input(Kind::F32, {items}, uniform(seed + 1, -1, 1)), output(Kind::F32, {buckets}), output(Kind::I64, {buckets})};
            c.scalars.assign(c.args.size(), 0);
            c.reference = [items, buckets](const Case& c) {
                auto id = values(*c.args[0]), v = values(*c.args[1]);
                std::vector<double> sums(static_cast<std::size_t>(buckets), 0.0), counts(static_cast<std::size_t>(buckets), 0.0);
                for (std::int64_t i = 0; i < items; ++i) {
                    auto b = static_cast<std::int64_t>(id[i]);
                    sums[b] += v[i];
                    counts[b] += 1;
                }
                return std::vector<std::vector<double>>{sums, counts};
            };
            // A bucket's sum reduces all items, the others as exact zeros: at most
            // count - 1 roundings on any term, gamma(count - 1) sum |v| (~1e-6 for the
            // 13 items in 3 used buckets). An item counted in the wrong bucket moves
            // two sums by |v| ~ 0.5, 10^5 bounds; the counts are integers, exact.
            c.error_bound = [items, buckets](const Case& c) {
                auto id = values(*c.args[0]), v = values(*c.args[1]);
                std::vector<std::vector<Bounded>> members(static_cast<std::size_t>(buckets));
                for (std::int64_t i = 0; i < items; ++i) members[static_cast<std::size_t>(id[i])].push_back(exact(v[i]));
                std::vector<Bounded> sums;
                for (const auto& m : members) sums.push_back(sum(m, reduction_depth(static_cast<std::int64_t>(m.size()))));
                return Bounds{sums, {}};
            };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_segmented_sum);

}  // namespace kiln::catalog
