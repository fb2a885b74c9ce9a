// The Metal emitter's state, shared by its parts: emit_msl.cpp (program
// structure: the kernel, regions, loops, the grid, the translation unit),
// emit_values.cpp (storage, the distribution of work over lanes, leaves and
// elementwise ops), emit_memory.cpp (view loads and stores), emit_ops.cpp (shape
// ops, folds, scans, sorts, gathers) and emit_mma.cpp (contractions).
#pragma once

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/attrs.h"
#include "passes/lower.h"
#include "targets/common/source_writer.h"
#include "targets/metal/emit_msl.h"
#include "targets/metal/launch_block.h"

namespace kiln::mtl {

using detail::OpCode;
using ir::Node;

// Where a value lives. Scalars (rank 0) are private variables, computed by every
// thread that needs them; tiles are private arrays (per-thread lowering) or
// threadgroup arrays (simdgroup lowering), constants tables in constant memory.
enum class Space { scalar, thread, threadgroup, constant };

struct Storage {
    std::string name;
    Space space = Space::scalar;
    std::int64_t count = 1;
    Kind kind = Kind::F32;
};

class Emitter {
public:
    Emitter(const ir::Program& p, const EmitOptions& o) : p_(p), o_(o) {}
    Emitted emit();

    // ---- text
    void line(const std::string& s) { body_.line(s); }
    void open(const std::string& head) { body_.open(head); }
    void close() { body_.close(); }
    std::string id(const Node* n) const { return std::to_string(ids_.at(n)); }
    std::string fresh(const std::string& prefix) { return prefix + std::to_string(fresh_++); }
    bool simdgroup() const { return simdgroup_; }

    // ---- values (emit_values.cpp)
    const Storage& storage(const Node* n) const;
    // Element `index` of n as its register type (a one-element value: element 0 for any index).
    std::string read(const Node* n, const std::string& index) const;
    // The statement that sets element `index` of n.
    std::string write(const Node* n, const std::string& index, const std::string& value) const;
    // Declares n's storage: a private scalar, a private array here, or a threadgroup
    // array at the kernel's scope.
    void define(const Node& n);
    void alias(const Node& n, const Node& of) { storage_[&n] = storage(&of); }
    // A private scalar or array of `count` elements of kind k named `name` (a
    // threadgroup array in the simdgroup lowering when count > 1 or `shared`).
    Storage declare(const std::string& name, Kind k, std::int64_t count, bool scalar);
    // body(e) for every e in [0, count): in each thread (per-thread lowering), or
    // strided across the simdgroup's lanes and followed by a barrier. For a value
    // with private storage every thread runs every e.
    void for_each(std::int64_t count, bool each_thread, const std::function<void(const std::string&)>& body);
    // Runs body(e) for every element of n's value, writing n (distributed unless n is a scalar).
    void for_each_element(const Node& n, const std::function<void(const std::string&)>& body);
    void barrier();

    void emit_constant(const Node& n);
    void emit_param(const Node& n);
    void emit_elementwise(const Node& n);
    std::string element(const Node& n, const std::string& e);  // element e of an elementwise op

    // ---- emit_memory.cpp
    void emit_load(const Node& n);
    void emit_store(const Node& n);

    // ---- emit_ops.cpp
    void emit_relayout(const Node& n);  // broadcast, permute, slice
    void emit_reduce(const Node& n);
    void emit_arg_reduce(const Node& n);
    void emit_scan(const Node& n);
    void emit_sort(const Node& n);
    void emit_gather(const Node& n);
    void emit_reindex(const Node& n);

    // ---- emit_mma.cpp
    void emit_mma(const Node& n);

    const ir::Program& program() const { return p_; }
    const EmitOptions& options() const { return o_; }
    const LaunchSlots& slots() const { return slots_; }
    std::string launch_word(int slot) const { return "kiln_launch[" + std::to_string(slot) + "]"; }

private:
    void emit_node(const Node& n);
    void emit_nodes(const std::vector<Node*>& nodes);
    void emit_loop(const Node& loop);
    void emit_yield(const Node& y, const Node& loop, const std::vector<Storage>& slots);
    void emit_grid(const Node& grid);
    void emit_op(const Node& n);
    void mma_blocks(const Node& n);
    void mma_ordered(const Node& n);
    std::string signature() const;
    void check_supported() const;

    const ir::Program& p_;
    EmitOptions o_;
    passes::Lowered lowered_;
    bool simdgroup_ = false;
    LaunchSlots slots_;
    targets::SourceWriter body_{1};
    std::ostringstream constants_;           // program-scope constant tables
    std::vector<std::string> threadgroup_;   // threadgroup declarations, at the kernel's scope
    std::unordered_map<const Node*, int> ids_;
    std::unordered_map<const Node*, Storage> storage_;
    std::int64_t private_bytes_ = 0, threadgroup_bytes_ = 0;
    bool barriers_ = false;
    std::string entry_;  // the kernel function's name (constant tables are named after it)
    int fresh_ = 0;
};

}  // namespace kiln::mtl
