// A fuzz program's recipe: everything about it that must be known before its
// kernel is traced (the axes, the grid, the loop, the views and scalars it takes
// and how its tiles sit in them), drawn from one seed. The body's operations are
// drawn while tracing, from recipe.body_seed, because what is well typed there
// depends on the tiles built so far (body_gen.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <kiln/kind.h>

namespace kiln::fuzz {

// One named axis of the program: every tile dimension is one of these, so any
// two tiles broadcast against each other by their shared axes.
struct AxisPlan {
    std::string name;
    std::int64_t extent = 1;  // the tile extent along it
};

enum class Tiling : std::uint8_t { none, grid, loop };

// One dimension of a view and the tile that a program instance reads or writes
// along it: origin = index * tile extent + offset, where index is the grid or
// loop index that tiles it (none: origin = offset).
struct DimPlan {
    int axis = -1;              // a universe axis; -1: a unit dimension (tile extent 1)
    std::int64_t extent = 1;    // the view's extent
    Tiling tiling = Tiling::none;
    int by = 0;                 // the grid dimension (Tiling::grid)
    std::int64_t offset = 0;
};

// A number of some kind: f for floats, i for integers and bools. As a Scalar<T>
// kernel argument it is passed unrounded (the kernel rounds it to its kind).
struct ScalarPlan {
    Kind kind = Kind::F32;
    double f = 0;
    std::int64_t i = 0;
};

enum class Role : std::uint8_t { input, output, inout };

// kiln's bounds policies (bounds::zero, check, assume) for a view's accesses.
enum class Bounds : std::uint8_t { zero, check, assume };

struct ViewPlan {
    Role role = Role::input;
    Kind kind = Kind::F32;
    std::vector<DimPlan> dims;
    std::vector<std::int64_t> strides;   // in elements; never aliasing
    bool before_grid = false;            // an input (no tiled dim) read once, before the grid
    bool in_loop = false;                // accessed inside the loop body (an output without a
                                         // loop-tiled dim is rewritten each step: the last wins)
    std::optional<ScalarPlan> fallback;  // inputs: .load(fallback) instead of zeros outside
    bool permuted_store = false;         // outputs: the stored tile's axes in another order
    // zero unless every access is in range (then any policy), or the program is
    // meant to raise: check on a view that some access overruns.
    Bounds bounds = Bounds::zero;
    std::int64_t span() const;           // elements from the first to the last, inclusive
};

// A dimension of the grid; its extent is a constant, or derived in the kernel
// from a view's extent (ceil_div(view.extent(d), tile extent)) so that the grid
// covers a ragged view exactly.
struct GridDimPlan {
    std::int64_t extent = 1;
    int axis = -1;                 // the universe axis it tiles, or -1
    int from_view = -1, from_dim = -1;
};

struct LoopPlan {
    bool present = false;
    bool pipeline = false;
    std::uint32_t window = 2;
    std::int64_t trips = 1;
    int axis = -1;                 // the universe axis it tiles, or -1
    int from_view = -1, from_dim = -1;
    // Trips computed inside the kernel from the instance's index, in [0, trips]:
    // instances loop different numbers of times, some not at all.
    bool runtime_trips = false;
    int accumulators = 1;          // carried tiles
    // A loop nested in this one's body (0 trips: none), carrying a tile of its own;
    // with runtime_inner its trips depend on the outer step.
    std::int64_t inner_trips = 0;
    bool inner_pipeline = false, runtime_inner = false;
};

struct Recipe {
    std::uint64_t seed = 0;
    std::vector<AxisPlan> axes;
    std::vector<GridDimPlan> grid;
    LoopPlan loop;
    std::vector<ViewPlan> views;      // kernel parameters 0 .. views.size()-1
    std::vector<ScalarPlan> scalars;  // then these
    std::uint64_t body_seed = 0;
    int ops_before_grid = 0, ops_before = 0, ops_in_loop = 0, ops_after = 0;
    std::uint64_t data_seed = 0;      // the launch buffers' contents
    std::int64_t max_tile_elements = 0;  // no tile of the program is larger
    bool may_raise = false;           // a bounds::check access may overrun: targets must raise alike
    bool wide_index = false;          // compiled with 64-bit element offsets (CompileOptions::index_width)
};

// Limits that keep one program quick on the interpreter. One program in ten gets
// tiles eight times larger, so that the targets' large-frame paths run too; one in
// twenty-five a grid of 64 to 2048 instances (many CTAs on cuda) over tiles of at
// most 64 elements.
struct Limits {
    std::int64_t max_tile_elements = 1024;
    // Device targets (cuda, metal) cannot raise, so they refuse bounds::check: with
    // `device`, a view that would get check gets zero instead and no program is
    // meant to raise. The same random numbers are drawn either way, so a seed names
    // the same program but for those policies.
    bool device = false;
};

Recipe make_recipe(std::uint64_t seed, const Limits& limits = {});

// A short human-readable summary (axes, grid, loop, views), printed with a failure.
std::string describe(const Recipe& r);

}  // namespace kiln::fuzz
