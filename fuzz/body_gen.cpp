#include "fuzz/body_gen.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "fuzz/literals.h"

namespace kiln::fuzz {

// "iotacmp" + 3, a constant under which the replayed regression seeds keep their
// programs (fuzz_test.cpp pins them): under "iotacmp" itself 80239140's `iota < 6`,
// the mask its GCC miscompile needed, became `8 != iota`.
constexpr std::uint64_t kIotaComparesStream = 0x696f7461636d73ull;

BodyGen::BodyGen(std::uint64_t seed, std::vector<Axis> axes, std::vector<AnyScalar> scalars, std::int64_t max_elements)
    : rng_(seed), iota_compares_(seed ^ kIotaComparesStream), axes_(std::move(axes)), scalars_(std::move(scalars)), max_elements_(max_elements) {
    for (std::size_t u = 0; u < axes_.size(); ++u) index_of_id_[axes_[u].id()] = static_cast<int>(u);
}

void BodyGen::put(const AnyTile& t) {
    // The DSL's typing checked from outside: a Tile<T> must hold a value of kind T.
    const Kind held = std::visit([](const auto& x) { return x.type().kind; }, t);
    if (held != kind_of_tile(t))
        throw std::logic_error("kiln bug: a Tile<" + std::string(kind_name(kind_of_tile(t))) + "> holds a value of kind " + std::string(kind_name(held)));
    pool_.push_back(t);
}

void BodyGen::release(Mark m) {
    pool_.erase(pool_.begin() + static_cast<std::ptrdiff_t>(m.values), pool_.end());
    bounds_.erase(bounds_.begin() + static_cast<std::ptrdiff_t>(m.bounds), bounds_.end());
}

std::vector<int> BodyGen::axes_of(const AnyTile& t) const {
    std::vector<int> out;
    for (const auto& d : dims_of(t)) {
        auto it = index_of_id_.find(d.axis);
        // The generator's invariant, not a kiln rule: pool tiles span named axes only.
        if (it == index_of_id_.end()) throw std::logic_error("fuzz generator: a pool tile has a dimension outside the program's axes");
        out.push_back(it->second);
    }
    return out;
}

Shape BodyGen::shape_of(const std::vector<int>& axes) const {
    std::vector<Axis> v;
    for (int u : axes) v.push_back(axis(u));
    return Shape(std::move(v));
}

std::int64_t BodyGen::count(const std::vector<int>& axes) const {
    std::int64_t n = 1;
    for (int u : axes) n *= extent(u);
    return n;
}

std::vector<int> BodyGen::subset(std::vector<int> of, int least, int most) {
    rng_.shuffle(of);
    const auto n = static_cast<std::size_t>(rng_.between(least, std::min<std::int64_t>(most, static_cast<std::int64_t>(of.size()))));
    of.resize(std::min(n, of.size()));
    return of;
}

// The axes of a op b: kiln's rule for named axes, the larger operand's order (the
// first on a tie) followed by the other's new axes.
std::vector<int> BodyGen::union_axes(const AnyTile& a, const AnyTile& b) const {
    auto x = axes_of(a), y = axes_of(b);
    if (x.size() < y.size()) std::swap(x, y);
    for (int u : y)
        if (std::find(x.begin(), x.end(), u) == x.end()) x.push_back(u);
    return x;
}

std::optional<AnyTile> BodyGen::pick_if(const std::function<bool(const AnyTile&)>& want) {
    std::vector<std::size_t> match;
    for (std::size_t k = 0; k < pool_.size(); ++k)
        if (want(pool_[k])) match.push_back(k);
    if (match.empty()) return std::nullopt;
    // Recent values half the time, so that operations chain into deep expressions.
    std::size_t from = rng_.chance(50) && match.size() > 3 ? match.size() - 3 : 0;
    return pool_[match[from + static_cast<std::size_t>(rng_.below(static_cast<std::int64_t>(match.size() - from)))]];
}

AnyTile BodyGen::pick() {
    if (auto v = pick_if([](const AnyTile&) { return true; })) return *v;
    // An empty pool (every input is read inside the loop): start from a constant.
    auto axes = subset(std::vector<int>{0}, 0, 1);
    return with_kind(rng_.chance(50) ? Kind::F32 : Kind::I32, [&](auto tag) -> AnyTile {
        using T = typename decltype(tag)::type;
        return full<T>(shape_of(axes), literal<T>(rng_));
    });
}

AnyTile BodyGen::partner(const AnyTile& a) {
    const Kind k = kind_of_tile(a);
    if (rng_.chance(55))
        if (auto b = pick_if([&](const AnyTile& t) { return kind_of_tile(t) == k && count(union_axes(a, t)) <= max_elements_; }))
            return *b;
    AnyTile from = pick();
    return fit(from, k, subset(axes_of(a), 0, 3));
}

// Removes axis u: a reduction, an arg-reduction or one slice taken with gather.
AnyTile BodyGen::drop_axis(const AnyTile& v, int u) {
    const Kind k = kind_of_tile(v);
    int how = static_cast<int>(rng_.below(4));
    if (k == Kind::Bool && how < 2) how = 2 + static_cast<int>(rng_.below(2));
    return with_kind(k, [&](auto tag) -> AnyTile {
        using T = typename decltype(tag)::type;
        const Tile<T>& x = as<T>(v);
        switch (how) {
            case 0:
                if constexpr (!std::is_same_v<T, bool>) return reduce(x, axis(u), add);
                [[fallthrough]];
            case 1:
                if constexpr (!std::is_same_v<T, bool>) return rng_.chance(50) ? reduce(x, axis(u), maximum) : reduce(x, axis(u), minimum);
                [[fallthrough]];
            case 2: return rng_.chance(50) ? argmax(x, axis(u)) : argmin(x, axis(u));
            default: {
                // Now and then one past the end: gather gives zeros there.
                Tile<i64> at(Scalar<i64>(rng_.below(extent(u) + (rng_.chance(10) ? 1 : 0))));
                return gather(x, at, axis(u));
            }
        }
    });
}

// Adds the missing axes by broadcasting against a neutral tile over them.
AnyTile BodyGen::widen(const AnyTile& v, const std::vector<int>& missing) {
    const Shape s = shape_of(missing);
    return with_kind(kind_of_tile(v), [&](auto tag) -> AnyTile {
        using T = typename decltype(tag)::type;
        const Tile<T>& x = as<T>(v);
        int how = static_cast<int>(rng_.below(4));
        if constexpr (std::is_same_v<T, bool>) {
            if (how == 0) return x && full<bool>(s, true);
            if (how == 1) return x || full<bool>(s, false);
            return ite(full<bool>(s, true), x, x);
        } else {
            switch (how) {
                case 0: return x + zeros<T>(s);  // -0 becomes +0: a rule worth exercising
                case 1: return x * full<T>(s, 1);
                case 2: return kiln::max(x, full<T>(s, lowest<T>()));
                default: return ite(full<bool>(s, true), x, zeros<T>(s));
            }
        }
    });
}

AnyTile BodyGen::fit(AnyTile v, Kind k, const std::vector<int>& target) {
    for (;;) {
        auto have = axes_of(v);
        auto extra = std::find_if(have.begin(), have.end(), [&](int u) { return std::find(target.begin(), target.end(), u) == target.end(); });
        if (extra == have.end()) break;
        v = drop_axis(v, *extra);
    }
    if (kind_of_tile(v) != k)
        v = with_kind(k, [&](auto tag) -> AnyTile {
            using U = typename decltype(tag)::type;
            return std::visit([](const auto& x) -> AnyTile { return cast<U>(x); }, v);
        });
    auto have = axes_of(v);
    std::vector<int> missing;
    for (int u : target)
        if (std::find(have.begin(), have.end(), u) == have.end()) missing.push_back(u);
    if (!missing.empty()) v = widen(v, missing);
    have = axes_of(v);
    if (have != target) {
        std::vector<int> order;
        for (int u : target) order.push_back(static_cast<int>(std::find(have.begin(), have.end(), u) - have.begin()));
        v = std::visit([&](const auto& x) -> AnyTile { return permute(x, order); }, v);
    }
    return v;
}

// acc + sum over the contracted axes of a * b, with a and b drawn from the pool.
std::optional<AnyTile> BodyGen::mma_onto(const AnyTile& acc, Kind in) {
    const auto out = axes_of(acc);
    std::vector<int> free;
    for (int u = 0; u < axis_count(); ++u)
        if (std::find(out.begin(), out.end(), u) == out.end()) free.push_back(u);
    auto contracted = subset(free, 1, 2);
    if (contracted.empty()) return std::nullopt;
    std::vector<int> a_axes = contracted, b_axes = contracted;
    if (out.size() == 2 && contracted.size() == 1 && rng_.chance(50)) {
        // The plain matrix product a[m, k] b[k, n] -> acc[m, n]: the form tensor cores take.
        a_axes = {out[0], contracted[0]};
        b_axes = {contracted[0], out[1]};
    } else {
        for (int u : out) {
            auto side = rng_.below(3);  // a only, b only, or both (a batch axis)
            if (side != 1) a_axes.push_back(u);
            if (side != 0) b_axes.push_back(u);
        }
        rng_.shuffle(a_axes);
        rng_.shuffle(b_axes);
    }
    if (count(a_axes) > max_elements_ || count(b_axes) > max_elements_ ||
        count(out) * count(contracted) > 8 * max_elements_)
        return std::nullopt;
    AnyTile a = fit(pick(), in, a_axes), b = fit(pick(), in, b_axes);
    // tf32 is a permission for f32 operands only (elsewhere it is an error).
    const MmaOptions options{.allow_reassociation = rng_.chance(50), .allow_tf32 = in == Kind::F32 && rng_.chance(30)};
    return with_kind(kind_of_tile(acc), [&](auto acc_tag) -> std::optional<AnyTile> {
        using C = typename decltype(acc_tag)::type;
        return with_kind(in, [&](auto in_tag) -> std::optional<AnyTile> {
            using A = typename decltype(in_tag)::type;
            constexpr bool ok = !std::is_same_v<A, bool> &&
                                (std::is_same_v<A, C> || (std::is_same_v<C, f32> && (std::is_same_v<A, f16> || std::is_same_v<A, bf16>)) ||
                                 (std::is_same_v<C, i32> && std::is_same_v<A, i8>));
            if constexpr (ok) return AnyTile(mma(as<A>(a), as<A>(b), as<C>(acc), options));
            else return std::nullopt;
        });
    });
}

void BodyGen::update(AnyTile& acc) {
    const Kind k = kind_of_tile(acc);
    const auto axes = axes_of(acc);
    std::optional<AnyTile> next;
    switch (rng_.weighted({45, 20, 20, 10})) {
        case 0: {  // acc op local: acc first, so the result keeps acc's axes and order
            AnyTile from = pick();
            AnyTile local = fit(from, k, subset(axes, 0, static_cast<int>(axes.size())));
            next = with_kind(k, [&](auto tag) -> AnyTile {
                using T = typename decltype(tag)::type;
                const Tile<T>& x = as<T>(acc);
                const Tile<T>& y = as<T>(local);
                if constexpr (std::is_same_v<T, bool>) return rng_.chance(50) ? Tile<bool>(x && y) : Tile<bool>(x || y);
                else {
                    switch (rng_.below(5)) {
                        case 0: return x + y;
                        case 1: return x - y;
                        case 2: return x * y;
                        case 3: return kiln::max(x, y);
                        default: return kiln::min(x, y);
                    }
                }
            });
            break;
        }
        case 1: {  // a masked update
            AnyTile mask = fit(pick(), Kind::Bool, axes), local = fit(pick(), k, axes);
            next = with_kind(k, [&](auto tag) -> AnyTile {
                using T = typename decltype(tag)::type;
                return ite(as<bool>(mask), as<T>(local), as<T>(acc));
            });
            break;
        }
        case 2: {
            std::vector<Kind> ins;
            for (auto m : kMmaKinds)
                if (m.acc == k) ins.push_back(m.in);
            if (!ins.empty()) next = mma_onto(acc, rng_.pick(ins));
            break;
        }
        default: next = fit(pick(), k, axes);
    }
    if (!next) next = fit(pick(), k, axes);
    // Assigning to the Tile born outside the loop is what makes it loop-carried.
    with_kind(k, [&](auto tag) {
        using T = typename decltype(tag)::type;
        std::get<Tile<T>>(acc) = as<T>(*next);
    });
}

void BodyGen::grow(int ops) {
    static const std::vector<std::pair<Op, int>> table = {
        {&BodyGen::op_arith, 16},  {&BodyGen::op_compare, 7}, {&BodyGen::op_logic, 3},   {&BodyGen::op_select, 7},
        {&BodyGen::op_cast, 8},    {&BodyGen::op_math, 9},    {&BodyGen::op_int_unary, 3}, {&BodyGen::op_reduce, 6},
        {&BodyGen::op_arg_reduce, 3}, {&BodyGen::op_scan, 4}, {&BodyGen::op_mma, 5},     {&BodyGen::op_reshape, 4},
        {&BodyGen::op_permute, 3}, {&BodyGen::op_gather, 4},  {&BodyGen::op_reindex, 3}, {&BodyGen::op_iota, 5},
        {&BodyGen::op_constant, 3}, {&BodyGen::op_sort, 2},   {&BodyGen::op_topk, 2},    {&BodyGen::op_map, 3},
        {&BodyGen::op_memory, 2},
    };
    static const std::vector<int> weights = [] {
        std::vector<int> w;
        for (auto& e : table) w.push_back(e.second);
        return w;
    }();
    for (int made = 0, tries = 0; made < ops && tries < 4 * ops + 8; ++tries) {
        auto v = (this->*table[rng_.weighted(weights)].first)();
        if (v && count_of(*v) <= max_elements_) {
            put(*v);
            ++made;
        }
    }
}

}  // namespace kiln::fuzz
