#include "fuzz/recipe.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "fuzz/rng.h"
#include "fuzz/values.h"

namespace kiln::fuzz {

namespace {

// Tile extents: small and odd ones dominate (1 and primes make ragged tails and
// degenerate axes common), with a few powers of two for the vectorised paths.
const std::vector<std::int64_t> kExtents = {1, 1, 2, 3, 3, 4, 5, 5, 7, 8, 9, 13, 16, 17, 32};

Kind random_kind(Rng& rng) {
    // f32 and the narrow floats carry most of the rounding rules, so they come up more.
    static const std::vector<int> weights = {8, 10, 12, 10, 14, 14, 18, 14};
    return kAllKinds[rng.weighted(weights)];
}

// The product of the three longest axes' extents: the largest tile they can make.
std::int64_t largest_three(const std::vector<AxisPlan>& axes) {
    std::vector<std::int64_t> e;
    for (auto& a : axes) e.push_back(a.extent);
    std::sort(e.rbegin(), e.rend());
    std::int64_t top3 = 1;
    for (std::size_t k = 0; k < std::min<std::size_t>(3, e.size()); ++k) top3 *= e[k];
    return top3;
}

std::vector<AxisPlan> make_axes(Rng& rng, std::int64_t max_elements) {
    static const char* names[] = {"i", "j", "k", "l", "m"};
    std::vector<AxisPlan> axes;
    int n = static_cast<int>(rng.between(2, 5));
    for (int a = 0; a < n; ++a) axes.push_back({names[a], rng.pick(kExtents)});
    // Any three axes together must fit the element budget.
    while (largest_three(axes) > max_elements) {
        auto big = std::max_element(axes.begin(), axes.end(), [](auto& x, auto& y) { return x.extent < y.extent; });
        big->extent = (big->extent + 1) / 2;
    }
    return axes;
}

// One program in eight (not of the many-instance kind) gets an axis of 128 to 1000
// elements, the other axes shrunk to keep any three within the tile budget: the
// targets' vector-lane sums and other long-line paths start at 128 elements, and
// while every axis was at most 32 long the fuzzer reached them only through
// reductions over several axes at once. (A GCC 12 miscompile of the cpu target's
// lane sums was found by the catalog, not the fuzzer: tests/unit/cpu_lane_sum_test.cpp;
// 800 standard-precision programs of this generator against the miscompiled code
// did not hit it either, so this is coverage, not its regression test.) Drawn from
// a stream of its own, so every other program is the one earlier campaigns checked
// at its seed.
void give_a_long_axis(std::uint64_t seed, bool many_instances, Recipe& r) {
    Rng rng(seed ^ 0x6c6f6e6761786973ull);  // "longaxis"
    if (many_instances || !rng.chance(12)) return;
    static const std::vector<std::int64_t> kLong = {128, 130, 200, 257, 600, 1000};
    const auto a = static_cast<std::size_t>(rng.below(static_cast<std::int64_t>(r.axes.size())));
    r.axes[a].extent = std::min(rng.pick(kLong), r.max_tile_elements);
    while (largest_three(r.axes) > r.max_tile_elements) {
        // The largest of the other axes gives way first.
        std::size_t big = a;
        for (std::size_t k = 0; k < r.axes.size(); ++k)
            if (k != a && r.axes[k].extent > 1 && (big == a || r.axes[k].extent > r.axes[big].extent)) big = k;
        r.axes[big].extent = (r.axes[big].extent + 1) / 2;
    }
}

// Up to `most` distinct axes in random order whose tile fits the budget.
std::vector<int> random_axes(Rng& rng, const std::vector<AxisPlan>& axes, int most, std::int64_t max_elements) {
    std::vector<int> order(axes.size());
    std::iota(order.begin(), order.end(), 0);
    rng.shuffle(order);
    int n = static_cast<int>(rng.between(0, std::min<std::int64_t>(most, static_cast<std::int64_t>(axes.size()))));
    std::vector<int> out;
    std::int64_t count = 1;
    for (int k = 0; k < n; ++k) {
        auto e = axes[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])].extent;
        if (count * e > max_elements) continue;
        count *= e;
        out.push_back(order[static_cast<std::size_t>(k)]);
    }
    return out;
}

std::int64_t tile_extent(const Recipe& r, const DimPlan& d) { return d.axis < 0 ? 1 : r.axes[static_cast<std::size_t>(d.axis)].extent; }

// How many tiles the grid or the loop lays along a dim.
std::int64_t tile_count(const Recipe& r, const DimPlan& d) {
    if (d.tiling == Tiling::grid) return r.grid[static_cast<std::size_t>(d.by)].extent;
    if (d.tiling == Tiling::loop) return r.loop.trips;
    return 1;
}

// An extent that the tiles cover exactly up to a ragged last tile: ((n-1)E, nE].
std::int64_t covered_extent(Rng& rng, std::int64_t n, std::int64_t e) { return n * e - rng.below(e); }

// Non-aliasing strides: a random nesting order of the dims, each stride at least
// the span of the dims nested inside it, sometimes padded, sometimes with a gap.
std::vector<std::int64_t> make_strides(Rng& rng, const std::vector<DimPlan>& dims) {
    std::vector<std::size_t> order(dims.size());
    std::iota(order.begin(), order.end(), 0);  // outermost first
    if (rng.chance(30))
        rng.shuffle(order);
    std::vector<std::int64_t> strides(dims.size());
    std::int64_t s = rng.chance(85) ? 1 : 2;
    for (std::size_t k = order.size(); k-- > 0;) {
        strides[order[k]] = s;
        s = s * dims[order[k]].extent + (rng.chance(20) ? rng.between(1, 3) : 0);
    }
    return strides;
}

ViewPlan make_view(Rng& rng, const Recipe& r, Role role) {
    ViewPlan v;
    v.role = role;
    v.kind = random_kind(rng);
    const bool output = role != Role::input;
    // Inouts are read and written at one region, before and after the loop.
    v.in_loop = r.loop.present && role != Role::inout && rng.chance(output ? 25 : 45);
    const bool rewritten = output && v.in_loop && rng.chance(30);
    for (int a : random_axes(rng, r.axes, rng.chance(25) ? 4 : 3, r.max_tile_elements)) {  // with the unit dims below, 1-D to 8-D views
        DimPlan d;
        d.axis = a;
        for (std::size_t g = 0; g < r.grid.size(); ++g)
            if (r.grid[g].axis == a && (output || rng.chance(85))) d.tiling = Tiling::grid, d.by = static_cast<int>(g);
        if (v.in_loop && !rewritten && r.loop.axis == a && (output || rng.chance(85))) d.tiling = Tiling::loop;
        v.dims.push_back(d);
    }
    // Every grid dim must separate the instances' writes; reads may share.
    for (std::size_t g = 0; g < r.grid.size(); ++g) {
        bool tiled = std::any_of(v.dims.begin(), v.dims.end(), [&](auto& d) { return d.tiling == Tiling::grid && d.by == static_cast<int>(g); });
        if (!tiled && (output || rng.chance(40))) v.dims.push_back(DimPlan{-1, 1, Tiling::grid, static_cast<int>(g), 0});
    }
    bool loop_tiled = std::any_of(v.dims.begin(), v.dims.end(), [](auto& d) { return d.tiling == Tiling::loop; });
    if (v.in_loop && !rewritten && !loop_tiled && (output || rng.chance(60))) v.dims.push_back(DimPlan{-1, 1, Tiling::loop, 0, 0});
    if (v.dims.empty()) v.dims.push_back(DimPlan{-1, 1, Tiling::none, 0, 0});
    rng.shuffle(v.dims);

    for (auto& d : v.dims) {
        std::int64_t e = tile_extent(r, d), n = tile_count(r, d);
        d.extent = rng.chance(80) ? covered_extent(rng, n, e) : rng.between(1, n * e + e);
        if (rng.chance(2)) d.extent = 0;  // an empty view: every read falls back, every write drops
        if (rng.chance(output ? 10 : 25)) d.offset = rng.between(-2, 2);
    }
    if (!output && rng.chance(30)) {
        ScalarPlan fallback{v.kind};
        if (is_float(v.kind)) fallback.f = special_value(rng, v.kind);
        else fallback.i = special_int(rng, v.kind);
        v.fallback = fallback;
    }
    v.permuted_store = output && rng.chance(30);
    return v;
}

// Grid and loop extents read from a view: that view's dim then gets a covered extent.
void derive_extent(Rng& rng, Recipe& r, std::int64_t tiles, Tiling tiling, int by, int& from_view, int& from_dim) {
    if (!rng.chance(70)) return;
    std::vector<std::pair<int, int>> candidates;
    for (std::size_t v = 0; v < r.views.size(); ++v)
        for (std::size_t d = 0; d < r.views[v].dims.size(); ++d) {
            const auto& dim = r.views[v].dims[d];
            if (dim.tiling == tiling && (tiling == Tiling::loop || dim.by == by)) candidates.emplace_back(static_cast<int>(v), static_cast<int>(d));
        }
    if (candidates.empty()) return;
    auto [v, d] = rng.pick(candidates);
    auto& dim = r.views[static_cast<std::size_t>(v)].dims[static_cast<std::size_t>(d)];
    dim.extent = covered_extent(rng, tiles, tile_extent(r, dim));
    from_view = v;
    from_dim = d;
}

// Whether every instance's (and every iteration's) tile lies inside the view.
bool always_in_range(const Recipe& r, const ViewPlan& v) {
    for (const DimPlan& d : v.dims) {
        const std::int64_t e = tile_extent(r, d);
        if (d.offset < 0 || (tile_count(r, d) - 1) * e + d.offset + e > d.extent) return false;
    }
    return true;
}

void choose_bounds(Rng& rng, Recipe& r, bool device) {
    std::vector<ViewPlan*> overrun;
    for (ViewPlan& v : r.views) {
        if (v.fallback) continue;  // a fallback is read under bounds::zero only (a load with one refuses the others)
        if (!always_in_range(r, v)) {
            overrun.push_back(&v);
            continue;
        }
        static const Bounds policies[] = {Bounds::zero, Bounds::check, Bounds::assume};
        v.bounds = policies[rng.weighted({60, 20, 20})];
        if (device && v.bounds == Bounds::check) v.bounds = Bounds::zero;
    }
    // Now and then a program that raises: both targets must report the same access.
    // The draw is made for device code too, so that a seed names the same program
    // on every target but for its bounds policies (the seeds of a campaign run
    // before device programs existed reproduce with it).
    if (!overrun.empty() && rng.chance(5)) {
        ViewPlan* v = rng.pick(overrun);
        if (!device) {
            v->bounds = Bounds::check;
            r.may_raise = true;
        }
    }
}

}  // namespace

std::int64_t ViewPlan::span() const {
    for (const DimPlan& d : dims)
        if (d.extent == 0) return 0;
    std::int64_t s = 1;
    for (std::size_t k = 0; k < dims.size(); ++k) s += (dims[k].extent - 1) * strides[k];
    return s;
}

Recipe make_recipe(std::uint64_t seed, const Limits& limits) {
    Recipe r;
    r.seed = seed;
    Rng rng(seed);
    const bool many_instances = rng.chance(4);
    r.max_tile_elements = many_instances ? std::min<std::int64_t>(64, limits.max_tile_elements) : limits.max_tile_elements * (rng.chance(10) ? 8 : 1);
    r.wide_index = rng.chance(10);
    r.axes = make_axes(rng, r.max_tile_elements);
    give_a_long_axis(seed, many_instances, r);
    std::vector<int> free(r.axes.size());
    std::iota(free.begin(), free.end(), 0);
    rng.shuffle(free);
    auto take_axis = [&] {
        if (free.empty() || !rng.chance(75)) return -1;
        int a = free.back();
        free.pop_back();
        return a;
    };

    r.grid.resize(rng.weighted({10, 45, 35, 10}));
    for (auto& g : r.grid) {
        g.extent = rng.between(1, 4);
        g.axis = take_axis();
    }
    // Sometimes more instances, for the launchers' scheduling; now and then very
    // many (CTAs spread over every SM, and the grid-stride loop past the first wave).
    if (!r.grid.empty() && (many_instances || rng.chance(8))) {
        auto& g = r.grid[static_cast<std::size_t>(rng.below(static_cast<std::int64_t>(r.grid.size())))];
        g.extent = many_instances ? rng.between(64, 2048) : rng.between(5, 24);
    }
    // A serial or pipeline loop nests inside the grid (the DSL opens one from a Nest).
    r.loop.present = !r.grid.empty() && rng.chance(55);
    if (r.loop.present) {
        r.loop.trips = rng.between(1, 4);
        r.loop.pipeline = rng.chance(40);
        r.loop.window = static_cast<std::uint32_t>(rng.between(1, 3));
        r.loop.axis = take_axis();
        r.loop.accumulators = static_cast<int>(rng.between(1, 2));
        if (rng.chance(30)) {
            r.loop.inner_trips = rng.between(1, 3);
            r.loop.inner_pipeline = rng.chance(40);
            r.loop.runtime_inner = rng.chance(40);
        }
    }

    int inputs = static_cast<int>(rng.between(1, 4)), outputs = static_cast<int>(rng.between(1, 3));
    for (int k = 0; k < inputs; ++k) r.views.push_back(make_view(rng, r, Role::input));
    for (int k = 0; k < outputs; ++k) r.views.push_back(make_view(rng, r, rng.chance(20) ? Role::inout : Role::output));
    // Parameters in a random order, so inputs and outputs interleave.
    rng.shuffle(r.views);

    for (std::size_t g = 0; g < r.grid.size(); ++g) {
        auto& gd = r.grid[g];
        derive_extent(rng, r, gd.extent, Tiling::grid, static_cast<int>(g), gd.from_view, gd.from_dim);
    }
    if (r.loop.present) {
        r.loop.runtime_trips = rng.chance(20);
        if (!r.loop.runtime_trips) derive_extent(rng, r, r.loop.trips, Tiling::loop, 0, r.loop.from_view, r.loop.from_dim);
    }
    for (auto& v : r.views) v.strides = make_strides(rng, v.dims);  // now that the extents are final
    choose_bounds(rng, r, limits.device);
    // Code before the grid runs once; what it computes every instance sees.
    for (auto& v : r.views) {
        const bool tiled = std::any_of(v.dims.begin(), v.dims.end(), [](auto& d) { return d.tiling != Tiling::none; });
        v.before_grid = v.role == Role::input && !v.in_loop && !tiled && rng.chance(50);
    }
    r.ops_before_grid = rng.chance(20) ? static_cast<int>(rng.between(1, 3)) : 0;

    int scalars = static_cast<int>(rng.weighted({50, 35, 15}));
    for (int k = 0; k < scalars; ++k) {
        ScalarPlan s;
        s.kind = random_kind(rng);
        s.f = rng.chance(50) ? special_value(rng, s.kind) : (rng.unit() - 0.5) * 8;
        s.i = rng.chance(30) ? static_cast<std::int64_t>(rng.next()) : rng.between(-9, 9);
        if (s.kind == Kind::Bool) s.i = rng.below(2);
        r.scalars.push_back(s);
    }
    r.body_seed = rng.next();
    r.data_seed = rng.next();
    r.ops_before = static_cast<int>(rng.between(1, 8));
    r.ops_in_loop = static_cast<int>(rng.between(1, 5));
    r.ops_after = static_cast<int>(rng.between(0, 5));
    return r;
}

std::string describe(const Recipe& r) {
    std::ostringstream s;
    s << "axes";
    for (auto& a : r.axes) s << " " << a.name << "=" << a.extent;
    if (r.wide_index) s << "; 64-bit offsets";
    s << "; grid [";
    for (std::size_t g = 0; g < r.grid.size(); ++g) {
        const auto& gd = r.grid[g];
        s << (g ? ", " : "") << gd.extent;
        if (gd.axis >= 0) s << " over " << r.axes[static_cast<std::size_t>(gd.axis)].name;
        if (gd.from_view >= 0) s << " from view " << gd.from_view;
    }
    s << "]";
    if (r.loop.present) {
        s << "; " << (r.loop.pipeline ? "pipeline" : "serial") << " loop x" << r.loop.trips;
        if (r.loop.runtime_trips) s << " (at most; trips vary by instance)";
        if (r.loop.axis >= 0) s << " over " << r.axes[static_cast<std::size_t>(r.loop.axis)].name;
        s << ", " << r.loop.accumulators << " carried";
        if (r.loop.inner_trips > 0)
            s << "; nested " << (r.loop.inner_pipeline ? "pipeline" : "serial") << " loop x" << r.loop.inner_trips
              << (r.loop.runtime_inner ? " (at most)" : "");
    }
    s << "\n";
    for (std::size_t v = 0; v < r.views.size(); ++v) {
        const auto& vp = r.views[v];
        s << "  arg " << v << ": " << (vp.role == Role::input ? "input" : vp.role == Role::output ? "output" : "inout") << " "
          << kind_name(vp.kind) << " [";
        for (std::size_t d = 0; d < vp.dims.size(); ++d) {
            const auto& dp = vp.dims[d];
            s << (d ? ", " : "") << dp.extent << ":" << (dp.axis < 0 ? "1" : r.axes[static_cast<std::size_t>(dp.axis)].name);
            if (dp.tiling == Tiling::grid) s << "/g" << dp.by;
            if (dp.tiling == Tiling::loop) s << "/loop";
            if (dp.offset) s << (dp.offset > 0 ? "+" : "") << dp.offset;
        }
        s << "] strides [";
        for (std::size_t d = 0; d < vp.strides.size(); ++d) s << (d ? ", " : "") << vp.strides[d];
        s << "]";
        if (vp.in_loop) s << " in loop";
        if (vp.before_grid) s << " before grid";
        if (vp.bounds != Bounds::zero) s << (vp.bounds == Bounds::check ? " bounds::check" : " bounds::assume");
        if (vp.fallback && is_float(vp.kind)) s << " fallback " << vp.fallback->f;
        if (vp.fallback && !is_float(vp.kind)) s << " fallback " << vp.fallback->i;
        s << "\n";
    }
    for (std::size_t k = 0; k < r.scalars.size(); ++k) {
        const auto& sp = r.scalars[k];
        s << "  arg " << r.views.size() + k << ": scalar " << kind_name(sp.kind) << " = ";
        if (is_float(sp.kind)) s << sp.f;
        else s << sp.i;
        s << "\n";
    }
    return s.str();
}

}  // namespace kiln::fuzz
