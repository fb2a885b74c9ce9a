// The operations a fuzz program's body is grown from. Each picks its operands
// from the pool by kind and axes, calls the typed DSL as user code would, and
// returns nothing when the pool has nothing it applies to.
#include <algorithm>

#include "fuzz/body_gen.h"
#include "fuzz/literals.h"

namespace kiln::fuzz {

namespace {

bool is_bool(const AnyTile& t) { return kind_of_tile(t) == Kind::Bool; }
bool is_float_tile(const AnyTile& t) { return is_float(kind_of_tile(t)); }
bool is_int_tile(const AnyTile& t) { return is_int(kind_of_tile(t)); }

// a OP b for any mix of tile, scalar and literal operands (at least one a tile).
template <class T, class A, class B> std::optional<Tile<T>> arith(int op, const A& a, const B& b) {
    switch (op) {
        case 0: return Tile<T>(a + b);
        case 1: return Tile<T>(a - b);
        case 2: return Tile<T>(a * b);
        case 3: return Tile<T>(a / b);
        case 4: return Tile<T>(kiln::max(a, b));
        case 5: return Tile<T>(kiln::min(a, b));
        case 6:
            if constexpr (IntElement<T> && std::is_same_v<A, Tile<T>>) return Tile<T>(a % b);
            break;
        default:
            if constexpr (FloatElement<T>) return Tile<T>(kiln::pow(a, b));
    }
    return std::nullopt;
}

template <class A, class B> Tile<bool> compare(int op, const A& a, const B& b) {
    switch (op) {
        case 0: return a == b;
        case 1: return a != b;
        case 2: return a < b;
        case 3: return a <= b;
        case 4: return a > b;
        default: return a >= b;
    }
}

}  // namespace

std::optional<AnyTile> BodyGen::op_arith() {
    auto a = pick_if([](const AnyTile& t) { return !is_bool(t); });
    if (!a) return std::nullopt;
    const Kind k = kind_of_tile(*a);
    const int op = static_cast<int>(rng_.below(8));
    return with_kind(k, [&](auto tag) -> std::optional<AnyTile> {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, bool>) return std::nullopt;
        else {
            const Tile<T>& x = as<T>(*a);
            std::optional<Tile<T>> r;
            switch (rng_.weighted({55, 20, 12, 13})) {
                case 0: r = arith<T>(op, x, as<T>(partner(*a))); break;
                case 1: r = arith<T>(op, x, literal<T>(rng_)); break;
                case 2: r = arith<T>(op, literal<T>(rng_), x); break;
                default:
                    for (const auto& s : scalars_)
                        if (auto* p = std::get_if<Scalar<T>>(&s)) r = rng_.chance(50) ? arith<T>(op, x, *p) : arith<T>(op, *p, x);
            }
            if (!r) return std::nullopt;
            return AnyTile(*r);
        }
    });
}

std::optional<AnyTile> BodyGen::op_compare() {
    AnyTile a = pick();
    const int op = static_cast<int>(rng_.below(6));
    return with_kind(kind_of_tile(a), [&](auto tag) -> AnyTile {
        using T = typename decltype(tag)::type;
        const Tile<T>& x = as<T>(a);
        if (rng_.chance(70)) return compare(op, x, as<T>(partner(a)));
        return rng_.chance(50) ? compare(op, x, literal<T>(rng_)) : compare(op, literal<T>(rng_), x);
    });
}

std::optional<AnyTile> BodyGen::op_logic() {
    auto a = pick_if(is_bool);
    if (!a) return std::nullopt;
    const AnyTile b = partner(*a);
    const Tile<bool>& x = as<bool>(*a);
    const Tile<bool>& y = as<bool>(b);
    switch (rng_.below(3)) {
        case 0: return AnyTile(Tile<bool>(x && y));
        case 1: return AnyTile(Tile<bool>(x || y));
        default: return AnyTile(Tile<bool>(x != y));  // exclusive or
    }
}

std::optional<AnyTile> BodyGen::op_select() {
    AnyTile a = pick();
    AnyTile from = pick();
    AnyTile cond = fit(from, Kind::Bool, subset(axes_of(a), 0, 3));
    return with_kind(kind_of_tile(a), [&](auto tag) -> std::optional<AnyTile> {
        using T = typename decltype(tag)::type;
        const Tile<T>& x = as<T>(a);
        const Tile<bool>& c = as<bool>(cond);
        switch (rng_.below(3)) {
            case 0: {
                AnyTile b = partner(a);
                if (count(union_axes(a, b)) > max_elements_) return std::nullopt;
                return AnyTile(ite(c, x, as<T>(b)));
            }
            case 1: return AnyTile(ite(c, x, literal<T>(rng_)));
            default: return AnyTile(ite(c, literal<T>(rng_), x));
        }
    });
}

std::optional<AnyTile> BodyGen::op_cast() {
    AnyTile a = pick();
    return with_kind(kAllKinds[rng_.below(8)], [&](auto tag) -> AnyTile {
        using U = typename decltype(tag)::type;
        return std::visit([](const auto& x) -> AnyTile { return cast<U>(x); }, a);
    });
}

std::optional<AnyTile> BodyGen::op_math() {
    auto a = pick_if(is_float_tile);
    if (!a) {
        AnyTile from = pick();
        a = fit(from, rng_.chance(50) ? Kind::F32 : rng_.chance(50) ? Kind::F16 : Kind::BF16, {});
    }
    const int op = static_cast<int>(rng_.below(10));
    return with_kind(kind_of_tile(*a), [&](auto tag) -> std::optional<AnyTile> {
        using T = typename decltype(tag)::type;
        if constexpr (!FloatElement<T>) return std::nullopt;
        else {
            const Tile<T>& x = as<T>(*a);
            switch (op) {
                case 0: return AnyTile(kiln::exp(x));
                case 1: return AnyTile(kiln::log(x));
                case 2: return AnyTile(kiln::sqrt(x));
                case 3: return AnyTile(kiln::rsqrt(x));
                case 4: return AnyTile(kiln::tanh(x));
                case 5: return AnyTile(kiln::erf(x));
                case 6: return AnyTile(kiln::sin(x));
                case 7: return AnyTile(kiln::cos(x));
                case 8: return AnyTile(kiln::abs(x));
                default: return AnyTile(-x);
            }
        }
    });
}

std::optional<AnyTile> BodyGen::op_int_unary() {
    auto a = pick_if([](const AnyTile& t) { return is_int_tile(t) || is_bool(t); });
    if (!a) return std::nullopt;
    return with_kind(kind_of_tile(*a), [&](auto tag) -> AnyTile {
        using T = typename decltype(tag)::type;
        const Tile<T>& x = as<T>(*a);
        if constexpr (std::is_same_v<T, bool>) return !x;
        else return rng_.chance(50) ? -x : kiln::abs(x);  // both wrap at the kind's minimum
    });
}

std::optional<AnyTile> BodyGen::op_reduce() {
    auto a = pick_if([](const AnyTile& t) { return !is_bool(t) && !dims_of(t).empty(); });
    if (!a) return std::nullopt;
    auto over = subset(axes_of(*a), 1, 3);
    const Shape s = shape_of(over);
    const auto how = rng_.below(3);
    return with_kind(kind_of_tile(*a), [&](auto tag) -> std::optional<AnyTile> {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, bool>) return std::nullopt;
        else {
            const Tile<T>& x = as<T>(*a);
            if (how == 0) return AnyTile(reduce(x, s, add));
            if (how == 1) return AnyTile(reduce(x, s, maximum));
            return AnyTile(reduce(x, s, minimum));
        }
    });
}

std::optional<AnyTile> BodyGen::op_arg_reduce() {
    auto a = pick_if([](const AnyTile& t) { return !dims_of(t).empty(); });
    if (!a) return std::nullopt;
    const int u = rng_.pick(axes_of(*a));
    const bool max = rng_.chance(50);
    return std::visit([&](const auto& x) -> AnyTile { return max ? argmax(x, axis(u)) : argmin(x, axis(u)); }, *a);
}

std::optional<AnyTile> BodyGen::op_scan() {
    auto a = pick_if([](const AnyTile& t) { return !is_bool(t) && !dims_of(t).empty(); });
    if (!a) return std::nullopt;
    const int u = rng_.pick(axes_of(*a));
    const auto how = rng_.below(3);
    return with_kind(kind_of_tile(*a), [&](auto tag) -> std::optional<AnyTile> {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, bool>) return std::nullopt;
        else {
            const Tile<T>& x = as<T>(*a);
            if (how == 0) return AnyTile(scan(x, axis(u), add));
            if (how == 1) return AnyTile(scan(x, axis(u), maximum));
            return AnyTile(scan(x, axis(u), minimum));
        }
    });
}

std::optional<AnyTile> BodyGen::op_mma() {
    const MmaKinds kinds = kMmaKinds[rng_.below(static_cast<std::int64_t>(std::size(kMmaKinds)))];
    std::vector<int> all(static_cast<std::size_t>(axis_count()));
    for (int u = 0; u < axis_count(); ++u) all[static_cast<std::size_t>(u)] = u;
    auto out = subset(all, 0, 2);
    if (count(out) > max_elements_) return std::nullopt;
    AnyTile acc = fit(pick(), kinds.acc, out);
    return mma_onto(acc, kinds.in);
}

std::optional<AnyTile> BodyGen::op_reshape() {
    AnyTile a = pick();
    auto axes = axes_of(a);
    std::vector<int> units;  // extent-1 axes the tile lacks
    for (int u = 0; u < axis_count(); ++u)
        if (extent(u) == 1 && std::find(axes.begin(), axes.end(), u) == axes.end()) units.push_back(u);
    std::vector<int> to;
    switch (rng_.below(3)) {
        case 0:  // the same elements read in another shape: the axes in another order
            to = axes;
            rng_.shuffle(to);
            break;
        case 1:  // a unit axis inserted, or one removed
            to = axes;
            if (!units.empty()) {
                const auto at = rng_.below(static_cast<std::int64_t>(to.size()) + 1);
                to.insert(to.begin() + at, rng_.pick(units));
            }
            else to.erase(std::remove_if(to.begin(), to.end(), [&](int u) { return extent(u) == 1; }), to.end());
            break;
        default: {  // through one anonymous dimension and back
            to = axes;
            rng_.shuffle(to);
            return std::visit([&](const auto& x) -> AnyTile { return reshape(reshape(x, shape(count(axes))), shape_of(to)); }, a);
        }
    }
    return std::visit([&](const auto& x) -> AnyTile { return reshape(x, shape_of(to)); }, a);
}

std::optional<AnyTile> BodyGen::op_permute() {
    auto a = pick_if([](const AnyTile& t) { return dims_of(t).size() >= 2; });
    if (!a) return std::nullopt;
    const int rank = static_cast<int>(dims_of(*a).size());
    std::vector<int> order(static_cast<std::size_t>(rank));
    for (int k = 0; k < rank; ++k) order[static_cast<std::size_t>(k)] = k;
    rng_.shuffle(order);
    const bool swap_last = rng_.chance(30);
    return std::visit([&](const auto& x) -> AnyTile { return swap_last ? transpose(x) : permute(x, order); }, *a);
}

std::optional<AnyTile> BodyGen::op_gather() {
    auto a = pick_if([](const AnyTile& t) { return !dims_of(t).empty(); });
    if (!a) return std::nullopt;
    auto axes = axes_of(*a);
    const int u = rng_.pick(axes);
    std::vector<int> rest;
    for (int v : axes)
        if (v != u) rest.push_back(v);
    const std::int64_t n = extent(u);
    // Indices mostly in range; the rest (negative, too large) gather zeros.
    Tile<i64> idx = as<i64>(fit(pick(), Kind::I64, rest));
    switch (rng_.below(4)) {
        case 0: idx = idx % n; break;
        case 1: idx = kiln::abs(idx) % (n + 1); break;
        case 2:
            if (!rest.empty()) {
                const int along = rng_.pick(rest);
                const std::int64_t shift = rng_.below(3);
                idx = as<i64>(fit(AnyTile((iota(axis(along)) + shift) % n), Kind::I64, rest));
            }
            break;
        default: break;
    }
    return std::visit([&](const auto& x) -> AnyTile { return gather(x, idx, axis(u)); }, *a);
}

std::optional<AnyTile> BodyGen::op_reindex() {
    auto a = pick_if([](const AnyTile& t) { return !dims_of(t).empty(); });
    if (!a) return std::nullopt;
    const auto axes = axes_of(*a);
    auto out = axes;
    rng_.shuffle(out);
    std::vector<int> how;
    for (std::size_t d = 0; d < axes.size(); ++d) how.push_back(static_cast<int>(rng_.below(4)));
    auto f = [&](const Nest& at) {
        Coord c;
        for (std::size_t d = 0; d < axes.size(); ++d) {
            const int u = axes[d];
            Scalar<i64> i = at.index(axis(u));
            switch (how[d]) {
                case 0: c.values.push_back(i.value()); break;
                case 1: c.values.push_back(Scalar<i64>(extent(u) - 1 - i).value()); break;  // flipped
                case 2: c.values.push_back(Scalar<i64>(i + 1).value()); break;              // shifted: the last gives zero
                default: c.values.push_back(Scalar<i64>((i * 2) % extent(u)).value());
            }
        }
        c.loc = Loc::here();
        return c;
    };
    return std::visit([&](const auto& x) -> AnyTile { return reindex(x, shape_of(out), f); }, *a);
}

// iota(u) compared with a value that is the same all along u (cross-entropy's
// `label == iota(c)`): an i64 value of the pool with u taken out of it, or a literal
// at or outside the ends of [0, n), on either side and by any comparison. The cuda
// target compares these in 32 bits with the value clamped to [-1, n]
// (targets/cuda/scalar_ops.cpp: index_compare), which the literals' edges test.
std::optional<AnyTile> BodyGen::iota_against_shared(int u, const Tile<i64>& t) {
    Rng& r = iota_compares_;
    const int op = static_cast<int>(r.below(6));
    const bool iota_first = r.chance(50);
    std::optional<Tile<i64>> v;
    if (r.chance(60)) {
        auto from = pick_if([&](const AnyTile& x) {
            if (kind_of_tile(x) != Kind::I64) return false;
            std::vector<int> axes = axes_of(x);
            if (std::find(axes.begin(), axes.end(), u) == axes.end()) axes.push_back(u);
            return count(axes) <= max_elements_;
        });
        if (from) {
            const std::vector<int> axes = axes_of(*from);
            v = as<i64>(std::find(axes.begin(), axes.end(), u) == axes.end() ? *from : drop_axis(*from, u));
        }
    }
    if (!v) {
        const std::int64_t n = extent(u);
        const std::int64_t edges[] = {-1, 0, n - 1, n, n + 1, -(std::int64_t{1} << 40), (std::int64_t{1} << 32) + 3, INT64_MIN, INT64_MAX};
        v = Tile<i64>(Scalar<i64>(edges[r.below(9)]));
    }
    return AnyTile(iota_first ? compare(op, t, *v) : compare(op, *v, t));
}

std::optional<AnyTile> BodyGen::op_iota() {
    const int u = static_cast<int>(rng_.below(axis_count()));
    Tile<i64> t = iota(axis(u));
    switch (rng_.below(5)) {
        case 0: return AnyTile(t);
        case 1: {
            const std::int64_t scale = rng_.between(-3, 3), shift = rng_.between(-5, 5);
            return AnyTile(t * scale + shift);
        }
        case 2: {
            const std::int64_t limit = rng_.between(0, extent(u));
            if (iota_compares_.chance(30))
                if (auto c = iota_against_shared(u, t)) return c;
            return AnyTile(Tile<bool>(t < limit));
        }
        case 3: return AnyTile(Tile<bool>(t % 2 == 0));
        default: {
            // The ragged-tail mask of a view dim along u: inside iff 0 <= base + t < limit.
            std::vector<const Bound*> along;
            for (const auto& b : bounds_)
                if (b.axis == u) along.push_back(&b);
            if (along.empty()) return AnyTile(Tile<bool>(t >= 1));
            const Bound& b = *rng_.pick(along);
            Tile<i64> at = t + b.base;
            return AnyTile(Tile<bool>((at < b.limit) && (at >= 0)));
        }
    }
}

std::optional<AnyTile> BodyGen::op_constant() {
    std::vector<int> all(static_cast<std::size_t>(axis_count()));
    for (int u = 0; u < axis_count(); ++u) all[static_cast<std::size_t>(u)] = u;
    auto axes = subset(all, 0, 2);
    if (count(axes) > max_elements_) return std::nullopt;
    const Kind k = kAllKinds[rng_.below(8)];
    return with_kind(k, [&](auto tag) -> AnyTile {
        using T = typename decltype(tag)::type;
        if constexpr (!std::is_same_v<T, bool>) {
            if (axes.size() == 2 && rng_.chance(50)) {
                // A tile captured from the host (a constant in the IR), given the axes by reshape.
                std::vector<T> values;
                for (std::int64_t e = 0; e < count(axes); ++e) values.push_back(static_cast<T>(literal<T>(rng_)));
                return reshape(from_vec<T>(values, extent(axes[0]), extent(axes[1])), shape_of(axes));
            }
        }
        return full<T>(shape_of(axes), literal<T>(rng_));
    });
}

std::optional<AnyTile> BodyGen::op_sort() {
    auto a = pick_if([](const AnyTile& t) { return !is_bool(t) && !dims_of(t).empty(); });
    if (!a) return std::nullopt;
    const int u = rng_.pick(axes_of(*a));
    const bool indices = rng_.chance(40);
    return with_kind(kind_of_tile(*a), [&](auto tag) -> std::optional<AnyTile> {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, bool>) return std::nullopt;
        else {
            auto s = sort(as<T>(*a), axis(u));
            return indices ? AnyTile(s.indices) : AnyTile(s.values);
        }
    });
}

// topk along u keeps k of its elements; the result's new dimension becomes an
// axis of extent k (a program axis the tile lacks), so the pool stays named.
std::optional<AnyTile> BodyGen::op_topk() {
    auto a = pick_if([](const AnyTile& t) { return !is_bool(t) && !dims_of(t).empty(); });
    if (!a) return std::nullopt;
    auto axes = axes_of(*a);
    const int u = rng_.pick(axes);
    std::vector<int> into;
    for (int v = 0; v < axis_count(); ++v)
        if (extent(v) <= extent(u) && (v == u || std::find(axes.begin(), axes.end(), v) == axes.end())) into.push_back(v);
    const int v = rng_.pick(into);  // u itself always qualifies
    std::replace(axes.begin(), axes.end(), u, v);
    const bool indices = rng_.chance(40);
    return with_kind(kind_of_tile(*a), [&](auto tag) -> std::optional<AnyTile> {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, bool>) return std::nullopt;
        else {
            auto t = topk(as<T>(*a), axis(u), extent(v));
            return indices ? AnyTile(reshape(t.indices, shape_of(axes))) : AnyTile(reshape(t.values, shape_of(axes)));
        }
    });
}

// map and zip: the lambda sees Scalar<T>; over a narrow tile each of its
// operations rounds to the narrow kind.
std::optional<AnyTile> BodyGen::op_map() {
    AnyTile a = pick();
    if (rng_.chance(50)) {
        return with_kind(kind_of_tile(a), [&](auto tag) -> AnyTile {
            using T = typename decltype(tag)::type;
            if constexpr (std::is_same_v<T, bool>) return map(as<T>(a), [](Scalar<bool> s) { return !s; });
            else if constexpr (FloatElement<T>) return map(as<T>(a), [](Scalar<T> s) { return s * s - 0.75 + kiln::exp(-s); });
            else return map(as<T>(a), [](Scalar<T> s) { return s * 3 + 1; });
        });
    }
    AnyTile other = pick();
    AnyTile b = fit(other, kAllKinds[rng_.below(8)], axes_of(a));
    return with_kind(kind_of_tile(a), [&](auto tag) -> AnyTile {
        using T = typename decltype(tag)::type;
        return std::visit(
            [&](const auto& y) -> AnyTile {
                using U = typename std::remove_cvref_t<decltype(y)>::element_type;
                return zip(as<T>(a), y, [](Scalar<T> p, Scalar<U> q) {
                    if constexpr (std::is_same_v<T, bool>) return ite(cast<bool>(q), p, !p);
                    else return ite(cast<bool>(q), p, p + p);
                });
            },
            b);
    });
}

// A round trip through an explicit memory<T> resource with a random
// (provably injective) layout: the value must come back unchanged.
std::optional<AnyTile> BodyGen::op_memory() {
    auto a = pick_if([](const AnyTile& t) { return !dims_of(t).empty(); });
    if (!a) return std::nullopt;
    const auto axes = axes_of(*a);
    std::vector<std::size_t> nesting(axes.size());  // outermost first
    for (std::size_t k = 0; k < nesting.size(); ++k) nesting[k] = k;
    if (rng_.chance(50)) std::reverse(nesting.begin(), nesting.end());
    Stride strides{std::vector<std::int64_t>(axes.size())};
    std::int64_t s = 1;
    for (std::size_t k = nesting.size(); k-- > 0;) {
        strides.values[nesting[k]] = s;
        s = s * extent(axes[nesting[k]]) + rng_.below(3);  // sometimes padded
    }
    static const mem::Resource resources[] = {mem::auto_, mem::shared, mem::private_};
    const mem::Resource where = resources[rng_.below(3)];
    return std::visit(
        [&](const auto& x) -> AnyTile {
            using T = typename std::remove_cvref_t<decltype(x)>::element_type;
            auto m = memory<T>(layout(shape_of(axes), strides), where);
            m.store(x);
            return m.load();
        },
        *a);
}

}  // namespace kiln::fuzz
