// The C++ emitter's state, shared by its parts: emit_plan.cpp (storage decisions
// made before emitting: fusion, loads read in place, mma in place), emit_cpp.cpp
// (program structure: functions, regions, loops, carried state), emit_memory.cpp
// (view loads and stores, constants, parameters), emit_ops.cpp (tile operations;
// element expressions in emit_expr.h), emit_reduce.cpp and emit_mma.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "passes/lower.h"
#include "targets/common/source_writer.h"
#include "targets/cpu/cpu_abi.h"
#include "targets/cpu/emit_cpp.h"

namespace kiln::native {

using detail::OpCode;
using ir::Node;

// How a value is held: a local (or namespace-scope constant) array of `count`
// elements, or a scalar variable for rank-0 values. Values are immutable, so
// reshapes and memory<T> round trips alias their operand's storage. A fused
// value has no storage: each element is an expression its one consumer
// evaluates in its own loop (Emitter::fusible). A load read in place
// (find_view_tiles) is a pointer into the view: its elements may be stored
// as another type (`convert`, the kind class: f16/bf16 as their 16 bits,
// widened as they are read) and lie at run-time `strides` along `extents`
// (empty: row-major, at their linear index).
struct Storage {
    Storage() = default;
    Storage(std::string n, bool a, std::int64_t c, const Node* f = nullptr, std::string k = "")
        : name(std::move(n)), array(a), count(c), fused(f), convert(std::move(k)) {}
    std::string name;
    bool array = false;
    std::int64_t count = 1;
    const Node* fused = nullptr;
    std::string convert;
    std::vector<std::string> strides;
    std::vector<std::int64_t> extents;
};

// A position among a value's elements: its row-major linear index (a C++
// expression) and, where the consumer's loop nest has them, its coordinates
// along dims of `extents`. Values read through an index map (strided loads,
// fused broadcasts) use the coordinates when they are along their own dims,
// and otherwise derive them from the linear index.
struct Index {
    std::string linear;
    std::vector<std::string> coords;
    std::vector<std::int64_t> extents;
    Index(std::string l) : linear(std::move(l)) {}  // NOLINT: a linear index is an index
    Index(const char* l) : linear(l) {}             // NOLINT
    Index(std::string l, std::vector<std::string> c, std::vector<std::int64_t> e) : linear(std::move(l)), coords(std::move(c)), extents(std::move(e)) {}
    // The coordinates along dims of `along`: these, or derived from the linear index.
    std::vector<std::string> coords_along(const std::vector<std::int64_t>& along) const;
};

// The L1 data cache of this machine's cores in bytes (32 KiB where it cannot be
// read): the kernels are compiled for this machine (-march=native), and a serial
// loop's prefetch reaches further where its windows would crowd it (emit_prefetch.cpp).
std::int64_t l1_data_cache_bytes();

// The C++ spelling of a kind's tile element and its kiln_cpu::K_* class.
std::string ctype(Kind k);
std::string kind_class(Kind k);
std::int64_t ctype_bytes(Kind k);
// An exact C++ literal of kind k (floats as hex or bit patterns).
std::string literal(Kind k, double f, std::int64_t i);

class Emitter {
public:
    Emitter(const ir::Program& p, const EmitOptions& o) : p_(p), opts_(o) {}
    Emitted emit();

    // ---- text
    void line(const std::string& text) { body_.line(text); }
    void open(const std::string& head) { body_.open(head); }  // "head {", one level deeper
    void close() { body_.close(); }                          // "}"
    void open_else() { body_.otherwise(); }                  // "} else {"
    // Nested for-loops over constant extents, variables prefix0, prefix1, ...
    std::vector<std::string> open_loops(const std::vector<std::int64_t>& extents, const std::string& prefix);
    void close_loops(const std::vector<std::string>& vars);
    // The same nest with `body` (statements over the variables) inside. The
    // innermost loop, when its extent is not a multiple of 16, runs as a loop
    // over the largest multiple of 16 and one over the rest: GCC's default -O2
    // cost model vectorises only loops that need no scalar epilogue.
    // `independent`: the innermost loop's iterations touch no common memory,
    // which the host compiler is told (a store's loop: it writes a view that
    // nothing it reads can overlap, see find_view_tiles), so it vectorises
    // without a run-time alias check (which GCC's -O2 cost model never adds).
    void loop_nest(const std::vector<std::int64_t>& extents, const std::string& prefix,
                   const std::function<void(const std::vector<std::string>&)>& body, bool independent = false);

    // The plan's note on how n is computed or held (Emitted::notes); several join with "; ".
    void note(const Node& n, const std::string& how) {
        std::string& s = notes_[&n];
        s += (s.empty() ? "" : "; ") + how;
    }

    // ---- values
    const Storage& storage(const Node* n) const;
    // Element `index` (a C++ expression) of n's value; a one-element value is
    // the same element for every index (the interpreter's scalar broadcast).
    // For a fused value, the expression computing that element.
    std::string at(const Node* n, const Index& index);
    // Declares n's storage in the current scope (uninitialised) and returns its name.
    std::string define(const Node& n);
    void alias(const Node& n, const Node& of) { storage_[&n] = storage(&of); }
    std::string id(const Node* n) const { return std::to_string(ids_.at(n)); }
    // n's value for every element: a scalar, one vectorisable loop, or nothing
    // yet when n is fused into its consumer (element_expr gives each element).
    void elementwise(const Node& n);
    std::string element_expr(const Node& n, const Index& e);
    // Whether n's expression (through the values fused into it) reads an element
    // by coordinates (a strided load, an expanding broadcast): its loops then run
    // over its dims, not over one linear index.
    bool reads_by_coords(const Node& n) const;
    Index broadcast_source(const Node& n, const Index& e) const;
    static bool inserts_dims_only(const Node& broadcast);
    // Emits a loop nest (`loops`, which only writes storage declared before it)
    // with f32 exp in its vectorisable form (kiln_cpu::exp32). If any element's
    // result was in doubt, the nest runs again with kiln_rt's scalar exp, so the
    // values are always those of the interpreter.
    void with_fast_math(const std::function<void()>& loops);
    // `name` (a declared array of n's count) filled with the elements of the
    // elementwise op n.
    void materialize(const Node& n, const std::string& name);

    // ---- emit_memory.cpp
    void emit_constant(const Node& n);
    void emit_param(const Node& n);
    void emit_load(const Node& n);
    void emit_store(const Node& n);
    // `direct`, when set, is a condition and a statement: inside the view, when the
    // condition holds at run time, the statement replaces the element loops.
    // `stream`, when set (a store whose view takes streaming stores), gives an
    // element's stored value: inside the view each innermost row is computed into
    // an aligned buffer and written by kiln_cpu::stream_store instead.
    void emit_access(const Node& n, const std::vector<ir::Dim>& dims, const std::string& pointer_decl,
                     const std::function<std::string(const Index&, const std::string&)>& element, const std::function<void()>& partial,
                     const std::pair<std::string, std::string>& direct = {}, const std::function<std::string(const Index&)>& stream = {});
    // Streamed rows of a store (emit_access with `stream`): the loops over the
    // outer dims, each innermost row in buffered chunks.
    bool streams(const Node& store) const;
    void emit_streamed_rows(const Node& n, const std::vector<std::int64_t>& extents, const std::vector<std::string>& strides,
                            const std::function<std::string(const Index&)>& stream);

    // ---- emit_ops.cpp: every op that computes a tile from tiles
    void emit_op(const Node& n);

private:
    // Who uses what (live users only; the grid's first extent is not a use), each
    // node's region and enclosing loop, and its position in an instance's order of
    // execution (a pre-order walk; a loop's span ends after its body).
    struct Uses {
        std::unordered_map<const Node*, std::vector<const Node*>> users;
        std::unordered_map<const Node*, const ir::Region*> region;
        std::unordered_map<const Node*, const Node*> loop;  // null: the kernel body
        std::unordered_map<const Node*, int> position, span_end;
        std::vector<const Node*> stores;
    };
    Uses uses() const;  // emit_plan.cpp
    static constexpr std::int64_t kMaxTileElements = std::int64_t{1} << 28;
    void check_tile_sizes() const;  // every tile, fused or not, at most kMaxTileElements
    void check_frame() const;       // an instance's tiles must fit a thread's stack
    void find_fusible(const Uses& u);
    void bound_fusion(const Uses& u);
    void find_view_tiles(const Uses& u);
    // An op that only copies its operand's elements (fused into any number of consumers: find_fusible).
    static bool copies_only(const Node& n);
    static bool reads_by_element(const Node& consumer, const Node& value);
    static bool reads_by_coords_only(const Node& consumer, const Node& value);
    void find_in_place_mma(const Uses& u);
    void find_topk_twins(const Uses& u);
    bool dead(const Node& n) const;
    // The expression of a math function of kind k at x: in precision standard
    // kiln_cpu::exp32_fast for f32/f16/bf16 exp; else kiln_cpu::exp32 inside
    // with_fast_math, else the interpreter's kiln_rt call rounded once.
    std::string math(OpCode op, Kind k, const std::string& x);
    void emit_nodes(const std::vector<Node*>& nodes);
    void emit_node(const Node& n);
    void emit_loop(const Node& loop);
    void emit_yield(const Node& yield, const Node& loop);
    void emit_grid_function(const std::vector<Node*>& prologue);
    void emit_run_function(const std::vector<Node*>& prologue, const std::vector<Node*>& epilogue);
    // emit_prefetch.cpp: at the top of an instance, the next instance's windows
    // (kiln_cpu::PrefetchLines, cpu_prelude.h); the statement that issues a few
    // lines of each, which loop_nest's long loops then run in chunks to call
    // ("" when there are none).
    std::string emit_instance_prefetch(const Node& grid, const std::string& L);
    // ... and at the top of a serial loop's iteration, the next iteration's.
    std::string emit_iteration_prefetch(const Node& loop, const std::string& L);
    // Both: the windows of `loop`'s body found computable ahead, declared, and set
    // where `guard` holds after `indices_ahead` has named the indices ahead: the next
    // ones, or, where `may_reach_further` and the windows would crowd L1
    // (far_ahead), those two iterations on (indices_ahead's argument says which).
    std::string emit_windows_ahead(const Node& loop, const std::string& guard, bool may_reach_further,
                                   const std::function<void(bool far)>& indices_ahead);
    void copy_into(const Storage& dst, const Node* src);
    std::string access_context() const;  // "st, <access>, phase, pid" tail of an out_of_range call
    int access_number(const Node& n);

    // The ops emit_ops.cpp handles, split by shape of the loop nest; in_block
    // declares the result and runs one of them in a block of its own.
    void in_block(const Node& n, void (Emitter::*emit)(const Node&));
    void emit_reduce(const Node& n);
    void emit_scan(const Node& n);
    void emit_arg_reduce(const Node& n);
    void emit_sort(const Node& n);
    void emit_mma(const Node& n);
    void emit_gather(const Node& n);
    void emit_reindex(const Node& n);
    void emit_relayout(const Node& n);  // broadcast, permute, slice

    const ir::Program& p_;
    EmitOptions opts_;
    targets::SourceWriter body_;  // the two kernel functions
    std::ostringstream globals_;  // constants, at namespace scope
    std::unordered_map<const Node*, int> ids_;
    std::unordered_map<const Node*, Storage> storage_;
    std::unordered_set<const Node*> constants_done_;
    passes::Lowered lowered_;  // the middle end's decisions (passes/lower.h)
    std::unordered_set<const Node*> fusible_;  // computed inside their consumer's loop (find_fusible)
    std::unordered_set<const Node*> cut_;      // where bound_fusion cut a long chain of fused values
    std::unordered_set<const Node*> view_tiles_;  // loads read where they lie in the view (find_view_tiles)
    std::unordered_set<const Node*> strided_tiles_;  // ... at the view's row strides (find_view_tiles)
    std::unordered_map<const Node*, std::vector<int>> guarded_tiles_;  // ... when disjoint from these params' views
    std::unordered_set<const Node*> in_place_mma_;  // mma accumulating in a carried slot (find_in_place_mma)
    std::unordered_map<const Node*, std::string> notes_;
    std::unordered_map<const Node*, const Node*> topk_twin_;  // topk values <-> indices of one selection (find_topk_twins)
    std::string math_flag_;  // inside with_fast_math: the variable that records results in doubt
    bool math_flag_used_ = false;
    int math_flags_ = 0;
    std::unordered_map<const Node*, int> access_ids_;
    std::vector<const Node*> accesses_;
    std::int64_t frame_bytes_ = 0;
    std::string prefetch_step_;  // loop_nest: long innermost loops in chunks, each first running this (emit_prefetch.cpp)
    int prefetch_chunks_ = 0;    // the chunked loops loop_nest wrote
    std::vector<const Node*> prefetched_;  // the accesses emit_instance_prefetch found
    // Where emission is: the phase reported with an error, and the pid expression.
    kiln_cpu::Phase phase_ = kiln_cpu::before_grid;
    std::string pid_ = "-1";
    std::string error_value_ = "1";  // what the function returns on an error (cpu_abi.h)
};

}  // namespace kiln::native
