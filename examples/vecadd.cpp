// vecadd: seed 000's first kernel, out = a + b over 1-D integer vectors, each program
// (pid) adding one window of four elements. Seed 000 launched exactly n/4 programs
// with strict windows; here the grid is ceil(n/4) and bounds::zero masks the
// ragged tail. Seed 000's int is kiln's i64.
#include <cmath>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr std::uint32_t kWindow = 4;

Kernel make_kernel() {
    return kernel("vecadd", [](View<const i64, 1> a, View<const i64, 1> b, View<i64, 1> out) {
        auto programs = axis("pid", ceil_div(a.extent<0>(), kWindow));
        auto lane = axis("lane", kWindow);
        for (auto& nest : parallel(shape(programs))) {
            auto origin = coord(nest.index() * kWindow);
            out(origin, shape(lane)).store(a[origin, shape(lane)] + b[origin, shape(lane)]);
        }
    });
}

// Uniform integers in [lo, hi].
std::function<double(std::int64_t)> integers(std::uint64_t seed, std::int64_t lo, std::int64_t hi) {
    auto u = uniform(seed, static_cast<double>(lo), static_cast<double>(hi) + 1);
    return [u](std::int64_t i) { return std::floor(u(i)); };
}

Entry make_vecadd() {
    Entry e;
    e.name = "vecadd";
    e.description = "seed 000's vector add: i64, one window of 4 elements per program";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::int64_t> lengths;
        switch (size) {
            case Size::small: lengths = {8, 10, 1}; break;
            case Size::medium: lengths = {4096, 10001, 3}; break;
            case Size::large: lengths = {1 << 24, (1 << 24) + 3, 5}; break;
        }
        std::vector<Case> cases;
        for (auto n : lengths) {
            Case c;
            c.shape = std::to_string(n);
            c.kernel = make_kernel();
            // Wide values: a sum that wrapped or lost bits to a float path would show.
            c.args = {input(Kind::I64, {n}, integers(seed, -(std::int64_t{1} << 40), std::int64_t{1} << 40)),
                      input(Kind::I64, {n}, integers(seed + 1, -(std::int64_t{1} << 40), std::int64_t{1} << 40)), output(Kind::I64, {n})};
            c.reference = [](const Case& in) {
                auto a = values(*in.args[0]), b = values(*in.args[1]);
                for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];  // exact: |a + b| < 2^53
                return std::vector<std::vector<double>>{a};
            };
            c.exact_integer = true;
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_vecadd);

}  // namespace kiln::catalog
