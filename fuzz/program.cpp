#include "fuzz/program.h"

#include <optional>
#include <string>

#include "fuzz/any_tile.h"
#include "fuzz/body_gen.h"

namespace kiln::fuzz {

namespace {

// Calls f(std::integral_constant<int, R>{}) for a view rank R known at run time.
template <class F> decltype(auto) with_rank(int rank, F&& f) {
    switch (rank) {
        case 1: return f(std::integral_constant<int, 1>{});
        case 2: return f(std::integral_constant<int, 2>{});
        case 3: return f(std::integral_constant<int, 3>{});
        case 4: return f(std::integral_constant<int, 4>{});
        case 5: return f(std::integral_constant<int, 5>{});
        case 6: return f(std::integral_constant<int, 6>{});
        case 7: return f(std::integral_constant<int, 7>{});
        default: return f(std::integral_constant<int, 8>{});
    }
}

// Calls f(view) with the View<const T, R> (inputs) or View<T, R> (outputs) of parameter `param`.
template <class F> decltype(auto) with_view(const ViewPlan& plan, int param, F&& f) {
    return with_kind(plan.kind, [&](auto tag) -> decltype(auto) {
        using T = typename decltype(tag)::type;
        return with_rank(static_cast<int>(plan.dims.size()), [&](auto rank) -> decltype(auto) {
            if (plan.role == Role::input) return f(View<const T, rank.value>(param));
            return f(View<T, rank.value>(param));
        });
    });
}

bounds::Policy policy(Bounds b) {
    switch (b) {
        case Bounds::check: return bounds::check;
        case Bounds::assume: return bounds::assume;
        default: return bounds::zero;
    }
}

detail::ParamSig view_signature(const ViewPlan& plan) {
    return with_view(plan, 0, [](auto view) { return detail::ParamTraits<decltype(view)>::sig(); });
}

// The recipe played out while the kernel is traced: what runs once before the
// grid, then the body of one program instance.
class Tracer {
public:
    Tracer(const Recipe& r, const std::vector<Axis>& axes, BodyGen& gen) : r_(r), axes_(axes), gen_(gen) {}

    void before_grid() {
        for (std::size_t v = 0; v < r_.views.size(); ++v)
            if (r_.views[v].before_grid) load(static_cast<int>(v));
        gen_.grow(r_.ops_before_grid);
    }

    void instance(const Nest* nest, const std::vector<Axis>& grid) {
        for (const Axis& g : grid) pids_.push_back(nest->index(g));
        for (std::size_t v = 0; v < r_.views.size(); ++v)
            if (!r_.views[v].in_loop && !r_.views[v].before_grid && r_.views[v].role != Role::output) load(static_cast<int>(v));
        gen_.grow(r_.ops_before);
        if (r_.loop.present) loop(*nest);
        gen_.grow(r_.ops_after);
        for (std::size_t v = 0; v < r_.views.size(); ++v)
            if (!r_.views[v].in_loop && r_.views[v].role != Role::input) store(static_cast<int>(v));
    }

private:
    const ViewPlan& plan(int v) const { return r_.views[static_cast<std::size_t>(v)]; }
    std::int64_t tile_extent(const DimPlan& d) const { return d.axis < 0 ? 1 : r_.axes[static_cast<std::size_t>(d.axis)].extent; }

    Extent extent(int v, int d) const {
        return with_view(plan(v), v, [&](auto view) { return view.extent(d); });
    }

    Scalar<i64> origin(const DimPlan& d) const {
        switch (d.tiling) {
            case Tiling::grid: return pids_[static_cast<std::size_t>(d.by)] * tile_extent(d) + d.offset;
            case Tiling::loop: return *step_ * tile_extent(d) + d.offset;
            default: return Scalar<i64>(d.offset);
        }
    }

    // The tile's coordinate and shape in the view (unit dims anonymous), and its named axes.
    struct Access {
        Coord at;
        Shape shape;
        std::vector<int> axes;
        bool has_unit_dims = false;
    };
    Access access(int v) {
        Access a;
        std::vector<Axis> dims;
        for (std::size_t k = 0; k < plan(v).dims.size(); ++k) {
            const DimPlan& d = plan(v).dims[k];
            Scalar<i64> o = origin(d);
            a.at.values.push_back(o.value());
            if (d.axis < 0) {
                dims.push_back(Axis::anonymous_dim(1));
                a.has_unit_dims = true;
                continue;
            }
            dims.push_back(axes_[static_cast<std::size_t>(d.axis)]);
            a.axes.push_back(d.axis);
            gen_.add_bound(d.axis, o, extent(v, static_cast<int>(k)));
        }
        a.at.loc = Loc::here();
        a.shape = Shape(std::move(dims));
        return a;
    }

    void load(int v) {
        const ViewPlan& p = plan(v);
        Access a = access(v);
        AnyTile t = with_view(p, v, [&](auto view) -> AnyTile {
            using T = typename decltype(view)::element_type;
            auto ref = view(a.at, a.shape, policy(p.bounds));
            if (!p.fallback) return ref.load();
            if constexpr (std::is_same_v<T, bool>) return ref.load(p.fallback->i != 0);
            else if constexpr (FloatElement<T>) return ref.load(p.fallback->f);
            else return ref.load(p.fallback->i);
        });
        // Unit dims are the view's business; the pool holds tiles over named axes.
        if (a.has_unit_dims) t = std::visit([&](const auto& x) -> AnyTile { return reshape(x, gen_.shape_of(a.axes)); }, t);
        gen_.put(t);
    }

    void store(int v) {
        const ViewPlan& p = plan(v);
        Access a = access(v);
        std::vector<int> order = a.axes;
        // A tile over the same axes in another order is permuted by the store
        // itself; with unit dims in the view it would be reshaped, so not then.
        if (p.permuted_store && !a.has_unit_dims)
            gen_.rng().shuffle(order);
        AnyTile value = gen_.fit(gen_.pick(), p.kind, order);
        with_view(p, v, [&](auto view) {
            using T = typename decltype(view)::element_type;
            view(a.at, a.shape, policy(p.bounds)).store(as<T>(value));
        });
    }

    void loop(const Nest& nest) {
        // Carried tiles are born before the loop; assigning them inside carries them.
        std::vector<AnyTile> carried;
        for (int c = 0; c < r_.loop.accumulators; ++c) {
            AnyTile from = gen_.pick();
            Kind k = gen_.rng().chance(50) ? kind_of_tile(from) : kAllKinds[gen_.rng().below(8)];
            carried.push_back(gen_.fit(from, k, gen_.axes_of(from)));
        }
        Extent trips(r_.loop.trips);
        if (r_.loop.from_view >= 0) {
            const DimPlan& d = plan(r_.loop.from_view).dims[static_cast<std::size_t>(r_.loop.from_dim)];
            trips = ceil_div(extent(r_.loop.from_view, r_.loop.from_dim), tile_extent(d));
        }
        Axis steps = r_.loop.runtime_trips ? axis("steps", Scalar<i64>((pids_[0] + r_.loop.trips) % (r_.loop.trips + 1))) : axis("steps", trips);
        auto body = [&](const Nest& inner) {
            auto scope = gen_.mark();
            step_ = inner.index(steps);
            for (std::size_t v = 0; v < r_.views.size(); ++v)
                if (r_.views[v].in_loop && r_.views[v].role == Role::input) load(static_cast<int>(v));
            if (r_.loop.pipeline) inner.stage("compute");
            gen_.grow(r_.ops_in_loop);
            if (r_.loop.inner_trips > 0) nested_loop(inner);
            for (AnyTile& acc : carried) gen_.update(acc);
            for (std::size_t v = 0; v < r_.views.size(); ++v)
                if (r_.views[v].in_loop && r_.views[v].role != Role::input) store(static_cast<int>(v));
            step_.reset();
            gen_.release(scope);
        };
        if (r_.loop.pipeline) {
            for (auto& inner : nest.pipeline(shape(steps), {.window = r_.loop.window})) body(inner);
        } else {
            for (auto& inner : nest.serial(shape(steps))) body(inner);
        }
        for (const AnyTile& acc : carried) gen_.put(acc);
    }

    // A loop inside the loop body, carrying one tile of its own and touching no view.
    void nested_loop(const Nest& outer) {
        AnyTile from = gen_.pick();
        AnyTile carried = gen_.fit(from, kind_of_tile(from), gen_.axes_of(from));
        const std::int64_t n = r_.loop.inner_trips;
        Axis substeps = r_.loop.runtime_inner ? axis("substeps", Scalar<i64>((*step_ + 1) % (n + 1))) : axis("substeps", n);
        auto body = [&](const Nest&) {
            auto scope = gen_.mark();
            gen_.grow(2);
            gen_.update(carried);
            gen_.release(scope);
        };
        if (r_.loop.inner_pipeline) {
            for (auto& inner : outer.pipeline(shape(substeps))) body(inner);
        } else {
            for (auto& inner : outer.serial(shape(substeps))) body(inner);
        }
        gen_.put(carried);
    }

    const Recipe& r_;
    const std::vector<Axis>& axes_;
    BodyGen& gen_;
    std::vector<Scalar<i64>> pids_;
    std::optional<Scalar<i64>> step_;
};

void trace_program(const Recipe& r) {
    std::vector<Axis> axes;
    for (const AxisPlan& a : r.axes) axes.push_back(axis(a.name, a.extent));
    std::vector<AnyScalar> scalars;
    for (std::size_t s = 0; s < r.scalars.size(); ++s)
        scalars.push_back(with_kind(r.scalars[s].kind, [&](auto tag) -> AnyScalar {
            using T = typename decltype(tag)::type;
            return detail::ParamTraits<Scalar<T>>::make(static_cast<int>(r.views.size() + s));
        }));
    BodyGen gen(r.body_seed, axes, std::move(scalars), r.max_tile_elements);
    Tracer tracer(r, axes, gen);
    tracer.before_grid();
    if (r.grid.empty()) {
        tracer.instance(nullptr, {});
        return;
    }
    std::vector<Axis> grid;
    for (std::size_t g = 0; g < r.grid.size(); ++g) {
        const GridDimPlan& gd = r.grid[g];
        Extent n(gd.extent);
        if (gd.from_view >= 0) {
            const ViewPlan& p = r.views[static_cast<std::size_t>(gd.from_view)];
            const DimPlan& d = p.dims[static_cast<std::size_t>(gd.from_dim)];
            Extent e = with_view(p, gd.from_view, [&](auto view) { return view.extent(gd.from_dim); });
            n = ceil_div(e, d.axis < 0 ? 1 : r.axes[static_cast<std::size_t>(d.axis)].extent);
        }
        grid.push_back(axis("g" + std::to_string(g), n));
    }
    for (auto& nest : parallel(Shape(grid))) tracer.instance(&nest, grid);
}

}  // namespace

Kernel build_kernel(const Recipe& r) {
    std::vector<detail::ParamSig> params;
    for (const ViewPlan& v : r.views) params.push_back(view_signature(v));
    for (const ScalarPlan& s : r.scalars)
        params.push_back(with_kind(s.kind, [](auto tag) { return detail::ParamTraits<Scalar<typename decltype(tag)::type>>::sig(); }));
    return Kernel(detail::new_kernel("fuzz_" + std::to_string(r.seed), std::move(params), [r] { trace_program(r); }, Loc::here()));
}

}  // namespace kiln::fuzz
