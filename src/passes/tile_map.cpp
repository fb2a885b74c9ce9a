#include "passes/tile_map.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "interp/semantics.h"
#include "ir/attrs.h"

namespace kiln::passes {

using detail::OpCode;
using ir::Node;

namespace {

// Evaluating a map for a million pids must not walk its nodes each time: it is
// compiled once into steps over a flat array of values: [0] the pid, then the host
// scalars' values, then each step's result.
struct Step {
    OpCode op;
    Kind kind;
    int a, b;  // the operands' slots
};
struct CompiledMap {
    std::vector<std::int64_t> inputs;  // the host scalars' values, slots 1..
    std::vector<Step> steps;           // slots after the inputs
    int m = 0, n = 0;                  // the block indices' slots
    std::int64_t extent = 0;           // the grid's pids

    // Everything the map's values depend on: equal keys, equal maps.
    std::string key() const {
        std::string k;
        auto put = [&](std::int64_t v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
        put(extent);
        put(static_cast<std::int64_t>(inputs.size()));
        for (std::int64_t v : inputs) put(v);
        for (const Step& s : steps) {
            put(static_cast<std::int64_t>(s.op));
            put(static_cast<std::int64_t>(s.kind));
            put(s.a);
            put(s.b);
        }
        put(m);
        put(n);
        return k;
    }
};

class MapCompiler {
public:
    MapCompiler(const Node* pid, HostScalars& scalars, const Node& where) : pid_(pid), scalars_(scalars), where_(where) {}

    // Compiles x and what it needs (post-order, so each step's operands come first);
    // false where x is outside a tile map.
    bool add(const Node* x) {
        if (x == pid_ || kinds_.count(x)) return true;
        if (x->type.rank() != 0 || !is_int(x->type.kind)) return false;  // (tile_map_value's rules)
        if (host_evaluable(*x)) {
            map_.inputs.push_back(scalars_.integer(x, where_));
            kinds_.emplace(x, Slot{true, static_cast<int>(map_.inputs.size()) - 1});
            return true;
        }
        if (!tile_map_op(x->op) || x->operands.size() != 2 || !add(x->operands[0]) || !add(x->operands[1])) return false;
        order_.push_back(x);
        kinds_.emplace(x, Slot{false, static_cast<int>(order_.size()) - 1});
        return true;
    }

    // The map of the nodes added, m and n its block indices (both added).
    CompiledMap finish(const Node* m, const Node* n, std::int64_t extent) {
        const int first_step = 1 + static_cast<int>(map_.inputs.size());
        auto slot = [&](const Node* x) {
            if (x == pid_) return 0;
            const Slot& s = kinds_.at(x);
            return s.input ? 1 + s.index : first_step + s.index;
        };
        for (const Node* x : order_) map_.steps.push_back({x->op, x->type.kind, slot(x->operands[0]), slot(x->operands[1])});
        map_.m = slot(m);
        map_.n = slot(n);
        map_.extent = extent;
        return std::move(map_);
    }

private:
    struct Slot {
        bool input;  // a host scalar's value (else a step's)
        int index;   // among the inputs or the steps
    };
    const Node* pid_;
    HostScalars& scalars_;
    const Node& where_;
    std::unordered_map<const Node*, Slot> kinds_;
    std::vector<const Node*> order_;  // the steps' nodes, operands first
    CompiledMap map_;
};

struct Outcome {
    std::optional<TileMapGrid> grid;
    std::string why;
};

// A map's pids beyond which a launch does not check it (the ordinary kernel runs it):
// 2^20 tiles, a 131072^2 output of 128 x 128 tiles.
constexpr std::int64_t kMaxTiles = std::int64_t{1} << 20;

Outcome check(const CompiledMap& map) {
    const std::int64_t extent = map.extent;
    if (extent <= 0) return {std::nullopt, "an empty grid"};
    if (extent > kMaxTiles) return {std::nullopt, "a 1-D grid of " + std::to_string(extent) + " tiles, more than a launch checks a tile map for"};
    std::vector<std::int64_t> values(1 + map.inputs.size() + map.steps.size());
    std::copy(map.inputs.begin(), map.inputs.end(), values.begin() + 1);
    std::vector<std::pair<std::int64_t, std::int64_t>> blocks(static_cast<std::size_t>(extent));
    std::int64_t rows = 0, cols = 0;
    const std::size_t first_step = 1 + map.inputs.size();
    auto pair_text = [](std::int64_t m, std::int64_t n) { return "(" + std::to_string(m) + ", " + std::to_string(n) + ")"; };
    for (std::int64_t pid = 0; pid < extent; ++pid) {
        values[0] = pid;
        for (std::size_t i = 0; i < map.steps.size(); ++i) {
            const Step& s = map.steps[i];
            values[first_step + i] = ref::int_binary(s.op, s.kind, values[static_cast<std::size_t>(s.a)], values[static_cast<std::size_t>(s.b)]);
        }
        const std::int64_t m = values[static_cast<std::size_t>(map.m)], n = values[static_cast<std::size_t>(map.n)];
        if (m < 0 || n < 0)
            return {std::nullopt, "the 1-D grid's pid " + std::to_string(pid) + " computes block " + pair_text(m, n) + ", outside the tiles"};
        blocks[static_cast<std::size_t>(pid)] = {m, n};
        rows = std::max(rows, m + 1);
        cols = std::max(cols, n + 1);
    }
    if (rows > extent || cols > extent || rows * cols != extent)
        return {std::nullopt, "the 1-D grid's " + std::to_string(extent) + " pids compute blocks spanning " + std::to_string(rows) + " x " +
                                  std::to_string(cols) + ", not each of a rectangle once"};
    std::vector<std::int64_t> first(static_cast<std::size_t>(extent), -1);
    for (std::int64_t pid = 0; pid < extent; ++pid) {
        const auto [m, n] = blocks[static_cast<std::size_t>(pid)];
        std::int64_t& seen = first[static_cast<std::size_t>(m * cols + n)];
        if (seen >= 0)
            return {std::nullopt, "the 1-D grid's pids " + std::to_string(seen) + " and " + std::to_string(pid) + " both compute block " + pair_text(m, n)};
        seen = pid;
    }
    return {TileMapGrid{rows, cols}, {}};
}

}  // namespace

bool tile_map_op(OpCode op) {
    switch (op) {
        case OpCode::add: case OpCode::sub: case OpCode::mul: case OpCode::div: case OpCode::mod: case OpCode::minimum: case OpCode::maximum:
            return true;
        default:
            return false;
    }
}

bool tile_map_value(const Node& x, const Node* pid) {
    if (&x == pid) return true;
    if (x.type.rank() != 0 || !is_int(x.type.kind)) return false;
    if (host_evaluable(x)) return true;
    return tile_map_op(x.op) && x.operands.size() == 2 && tile_map_value(*x.operands[0], pid) && tile_map_value(*x.operands[1], pid);
}

std::optional<TileMapGrid> tile_map_grid(const Node& grid, const Node* m_index, const Node* n_index, HostScalars& scalars, std::string* why) {
    auto refuse = [&](const std::string& w) {
        if (why) *why = w;
        return std::optional<TileMapGrid>();
    };
    if (ir::loop_rank(grid) != 1 || !grid.body || grid.body->args.empty()) return refuse("the grid is not 1-D");
    MapCompiler compiler(grid.body->args[0], scalars, grid);
    if (!compiler.add(m_index) || !compiler.add(n_index)) return refuse("the 1-D grid's block indices are not integer arithmetic of pid");
    const CompiledMap map = compiler.finish(m_index, n_index, scalars.integer(grid.operands[0], grid));
    // (Launches repeat: the outcome is kept by the map's values, a few hundred at most.)
    static std::mutex mutex;
    static std::unordered_map<std::string, Outcome> memo;
    const std::string key = map.key();
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto it = memo.find(key); it != memo.end()) return it->second.grid ? it->second.grid : refuse(it->second.why);
    }
    Outcome o = check(map);
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (memo.size() >= 256) memo.clear();
        memo.emplace(key, o);
    }
    return o.grid ? o.grid : refuse(o.why);
}

}  // namespace kiln::passes
