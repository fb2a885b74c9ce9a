#include "fuzz/minimize.h"

#include <algorithm>

namespace kiln::fuzz {

namespace {

// An edit is "name" or "name:index"; the index picks the view, scalar, grid
// dimension or axis.
std::pair<std::string, int> parse(const std::string& edit) {
    auto colon = edit.find(':');
    if (colon == std::string::npos) return {edit, -1};
    return {edit.substr(0, colon), std::stoi(edit.substr(colon + 1))};
}

bool has_output(const Recipe& r) {
    return std::any_of(r.views.begin(), r.views.end(), [](const ViewPlan& v) { return v.role != Role::input; });
}

// Indices that name view v (grid and loop extents read from it) follow its removal.
void forget_view(Recipe& r, int v) {
    auto fix = [&](int& from_view, int& from_dim) {
        if (from_view == v) from_view = from_dim = -1;
        else if (from_view > v) --from_view;
    };
    for (auto& g : r.grid) fix(g.from_view, g.from_dim);
    fix(r.loop.from_view, r.loop.from_dim);
    r.views.erase(r.views.begin() + v);
}

// The grid without dimension g: what it tiled is read at the instance's origin.
void drop_grid_dim(Recipe& r, int g) {
    for (auto& v : r.views) {
        std::vector<DimPlan> dims;
        std::vector<std::int64_t> strides;
        for (std::size_t d = 0; d < v.dims.size(); ++d) {
            DimPlan dim = v.dims[d];
            if (dim.tiling == Tiling::grid && dim.by == g) {
                if (dim.axis < 0 && v.dims.size() > 1) continue;  // the unit dim that separated instances: gone
                dim.tiling = Tiling::none;
            }
            if (dim.tiling == Tiling::grid && dim.by > g) --dim.by;
            dims.push_back(dim);
            strides.push_back(v.strides[d]);
        }
        v.dims = std::move(dims);
        v.strides = std::move(strides);
    }
    r.grid.erase(r.grid.begin() + g);
    if (r.grid.empty()) r.loop = LoopPlan{};  // a loop nests inside the grid
}

void drop_loop(Recipe& r) {
    r.loop = LoopPlan{};
    for (auto& v : r.views) {
        v.in_loop = false;
        for (auto& d : v.dims)
            if (d.tiling == Tiling::loop) d.tiling = Tiling::none;
    }
}

}  // namespace

std::optional<Recipe> apply_edit(const Recipe& original, const std::string& edit) {
    Recipe r = original;
    auto [name, i] = parse(edit);
    const auto n_views = static_cast<int>(r.views.size());
    if (name == "view-") {
        if (i < 0 || i >= n_views || n_views == 1) return std::nullopt;
        forget_view(r, i);
        if (!has_output(r)) return std::nullopt;  // nothing left to compare
    } else if (name == "scalar-") {
        if (i < 0 || i >= static_cast<int>(r.scalars.size())) return std::nullopt;
        r.scalars.erase(r.scalars.begin() + i);
    } else if (name == "grid-") {
        if (i < 0 || i >= static_cast<int>(r.grid.size())) return std::nullopt;
        drop_grid_dim(r, i);
    } else if (name == "grid=1") {
        if (i < 0 || i >= static_cast<int>(r.grid.size()) || (r.grid[static_cast<std::size_t>(i)].extent == 1 && r.grid[static_cast<std::size_t>(i)].from_view < 0))
            return std::nullopt;
        r.grid[static_cast<std::size_t>(i)].extent = 1;
        r.grid[static_cast<std::size_t>(i)].from_view = r.grid[static_cast<std::size_t>(i)].from_dim = -1;
    } else if (name == "loop-") {
        if (!r.loop.present) return std::nullopt;
        drop_loop(r);
    } else if (name == "inner-") {
        if (r.loop.inner_trips == 0) return std::nullopt;
        r.loop.inner_trips = 0;
    } else if (name == "serial") {
        if (!r.loop.pipeline && !r.loop.inner_pipeline) return std::nullopt;
        r.loop.pipeline = r.loop.inner_pipeline = false;
    } else if (name == "trips=1") {
        if (!r.loop.present || (r.loop.trips == 1 && r.loop.from_view < 0 && !r.loop.runtime_trips)) return std::nullopt;
        r.loop.trips = 1;
        r.loop.from_view = r.loop.from_dim = -1;
        r.loop.runtime_trips = false;
    } else if (name == "carried=1") {
        if (r.loop.accumulators <= 1) return std::nullopt;
        r.loop.accumulators = 1;
    } else if (name == "axis/2") {
        if (i < 0 || i >= static_cast<int>(r.axes.size()) || r.axes[static_cast<std::size_t>(i)].extent == 1) return std::nullopt;
        r.axes[static_cast<std::size_t>(i)].extent = (r.axes[static_cast<std::size_t>(i)].extent + 1) / 2;
    } else if (name == "extents/2") {
        if (i < 0 || i >= n_views) return std::nullopt;
        bool any = false;
        for (auto& d : r.views[static_cast<std::size_t>(i)].dims)
            if (d.extent > 1) d.extent = (d.extent + 1) / 2, any = true;
        if (!any) return std::nullopt;
    } else if (name == "plain") {  // bounds::zero, no fallback, stores in the tile's own axis order
        if (i < 0 || i >= n_views) return std::nullopt;
        ViewPlan& v = r.views[static_cast<std::size_t>(i)];
        if (v.bounds == Bounds::zero && !v.fallback && !v.permuted_store && !v.before_grid) return std::nullopt;
        v.bounds = Bounds::zero, v.fallback.reset(), v.permuted_store = false, v.before_grid = false;
    } else if (name == "ops_before/2" || name == "ops_in_loop/2" || name == "ops_after/2" || name == "ops_before_grid/2") {
        int& ops = name == "ops_before/2" ? r.ops_before : name == "ops_in_loop/2" ? r.ops_in_loop : name == "ops_after/2" ? r.ops_after : r.ops_before_grid;
        if (ops == 0) return std::nullopt;
        ops /= 2;
    } else if (name == "ops_before-1" || name == "ops_in_loop-1" || name == "ops_after-1") {
        int& ops = name == "ops_before-1" ? r.ops_before : name == "ops_in_loop-1" ? r.ops_in_loop : r.ops_after;
        if (ops == 0) return std::nullopt;
        --ops;
    } else {
        throw Error("fuzz: unknown edit '" + edit + "'");
    }
    return r;
}

Recipe apply_edits(Recipe r, const std::vector<std::string>& edits) {
    for (const auto& e : edits) {
        auto next = apply_edit(r, e);
        if (!next) throw Error("fuzz: edit '" + e + "' does not apply to program " + std::to_string(r.seed) + " at that point");
        r = std::move(*next);
    }
    return r;
}

std::vector<std::string> candidate_edits(const Recipe& r) {
    std::vector<std::string> out;
    auto indexed = [&](const std::string& name, std::size_t count) {
        for (std::size_t k = count; k-- > 0;) out.push_back(name + ":" + std::to_string(k));
    };
    // Whole parts first (the biggest cuts), then the finer ones.
    out.push_back("loop-");
    indexed("view-", r.views.size());
    indexed("grid-", r.grid.size());
    indexed("scalar-", r.scalars.size());
    out.push_back("inner-");
    for (const char* ops : {"ops_before/2", "ops_in_loop/2", "ops_after/2", "ops_before_grid/2"}) out.push_back(ops);
    out.push_back("trips=1");
    out.push_back("carried=1");
    out.push_back("serial");
    indexed("grid=1", r.grid.size());
    indexed("axis/2", r.axes.size());
    indexed("extents/2", r.views.size());
    indexed("plain", r.views.size());
    for (const char* ops : {"ops_before-1", "ops_in_loop-1", "ops_after-1"}) out.push_back(ops);
    return out;
}

Minimized minimize(std::uint64_t seed, const std::vector<Target>& targets, const CompileOptions& options, const Limits& limits,
                   const std::function<void(const Minimized&)>& on_step) {
    Minimized m;
    m.recipe = make_recipe(seed, limits);
    m.original = m.result = check_recipe(m.recipe, targets, options);
    m.tried = 1;
    if (m.original.verdict == Verdict::same) return m;
    for (bool kept = true; kept;) {
        kept = false;
        for (const std::string& edit : candidate_edits(m.recipe)) {
            auto next = apply_edit(m.recipe, edit);
            if (!next) continue;
            Result r;
            try {
                r = check_recipe(*next, targets, options);
            } catch (const std::exception&) {
                continue;  // an edit the generator cannot follow: not a smaller reproduction
            }
            ++m.tried;
            if (r.verdict != m.original.verdict) continue;
            m.recipe = std::move(*next);
            m.result = r;
            m.edits.push_back(edit);
            kept = true;
            if (on_step) on_step(m);
            break;  // the candidates depend on the recipe: start over from the first
        }
    }
    return m;
}

}  // namespace kiln::fuzz
