// The random body of a fuzz program, drawn while its kernel is traced. It keeps a
// pool of the tiles built so far and grows it one random operation at a time;
// every choice consults the actual tiles (their kinds and axes), so each program
// is well typed by construction and the DSL itself is the type model. fit()
// turns any tile into one of a required kind and axes (a store's, a carried
// accumulator's, an mma operand's) with more random operations.
//
// Every tile in the pool spans only the program's named axes, so any two tiles
// broadcast against each other by their shared axes.
#pragma once

#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "fuzz/any_tile.h"
#include "fuzz/rng.h"

namespace kiln::fuzz {

class BodyGen {
public:
    BodyGen(std::uint64_t seed, std::vector<Axis> axes, std::vector<AnyScalar> scalars, std::int64_t max_elements);

    void put(const AnyTile& t);
    // Element t of a tile along `axis` lies inside a view iff 0 <= base + t < limit:
    // the source of ragged-tail masks.
    void add_bound(int axis, const Scalar<i64>& base, const Extent& limit) { bounds_.push_back({axis, base, limit}); }

    // Values and bounds made inside a loop body must not outlive it.
    struct Mark {
        std::size_t values = 0, bounds = 0;
    };
    Mark mark() const { return {pool_.size(), bounds_.size()}; }
    void release(Mark m);

    void grow(int ops);                                     // `ops` more random values
    AnyTile pick();                                         // a pool value (recent ones favoured)
    AnyTile fit(AnyTile v, Kind k, const std::vector<int>& axes);  // exactly that kind and axis order
    void update(AnyTile& acc);                              // rebinds a carried tile to a random update of itself

    Rng& rng() { return rng_; }
    const Axis& axis(int u) const { return axes_[static_cast<std::size_t>(u)]; }
    std::int64_t extent(int u) const { return axes_[static_cast<std::size_t>(u)].size(); }
    int axis_count() const { return static_cast<int>(axes_.size()); }
    std::vector<int> axes_of(const AnyTile& t) const;       // universe indices, in the tile's order
    Shape shape_of(const std::vector<int>& axes) const;
    std::int64_t count(const std::vector<int>& axes) const;

private:
    struct Bound {
        int axis;
        Scalar<i64> base;
        Extent limit;
    };
    using Op = std::optional<AnyTile> (BodyGen::*)();

    std::optional<AnyTile> pick_if(const std::function<bool(const AnyTile&)>& want);
    std::vector<int> subset(std::vector<int> of, int least, int most);
    std::vector<int> union_axes(const AnyTile& a, const AnyTile& b) const;
    AnyTile partner(const AnyTile& a);                      // a second operand of a's kind
    AnyTile drop_axis(const AnyTile& v, int u);
    AnyTile widen(const AnyTile& v, const std::vector<int>& missing);
    std::optional<AnyTile> mma_onto(const AnyTile& acc, Kind in);

    // The operations (body_ops.cpp); each returns nothing when it does not apply.
    std::optional<AnyTile> op_arith();
    std::optional<AnyTile> op_compare();
    std::optional<AnyTile> op_logic();
    std::optional<AnyTile> op_select();
    std::optional<AnyTile> op_cast();
    std::optional<AnyTile> op_math();
    std::optional<AnyTile> op_int_unary();
    std::optional<AnyTile> op_reduce();
    std::optional<AnyTile> op_arg_reduce();
    std::optional<AnyTile> op_scan();
    std::optional<AnyTile> op_mma();
    std::optional<AnyTile> op_reshape();
    std::optional<AnyTile> op_permute();
    std::optional<AnyTile> op_gather();
    std::optional<AnyTile> op_reindex();
    std::optional<AnyTile> op_iota();
    std::optional<AnyTile> op_constant();
    std::optional<AnyTile> op_sort();
    std::optional<AnyTile> op_topk();
    std::optional<AnyTile> op_map();
    std::optional<AnyTile> op_memory();
    std::optional<AnyTile> iota_against_shared(int u, const Tile<i64>& t);

    Rng rng_;
    // iota_against_shared's draws: a stream of its own, so that every program that
    // does not take it is the one earlier campaigns checked at its seed.
    Rng iota_compares_;
    std::vector<Axis> axes_;
    std::unordered_map<int, int> index_of_id_;  // axis id -> universe index
    std::vector<AnyScalar> scalars_;
    std::int64_t max_elements_;  // no tile larger
    std::vector<AnyTile> pool_;
    std::vector<Bound> bounds_;
};

}  // namespace kiln::fuzz
