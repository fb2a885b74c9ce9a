// The builder of the kernel being traced on this thread: the region stack, the
// loop frames with their inferred loop-carried state, and the launch arguments
// the trace is specialised for.
#pragma once

#include <unordered_map>
#include <vector>

#include <kiln/target.h>

#include "ir/attrs.h"

namespace kiln::trace {

using detail::OpCode;

// A variable seen by a loop: read through a proxy (a region argument) so that, if
// the body assigns it, the proxy becomes the carried value; otherwise the proxy is
// replaced by the initial value when the loop closes.
struct CarryEntry {
    detail::VarPtr var;
    ir::Node* init = nullptr;
    ir::Node* proxy = nullptr;
    bool assigned = false;
};

struct Frame {
    ir::Node* loop = nullptr;
    int depth = 0;  // 1 for the outermost loop
    std::vector<CarryEntry> entries;
    std::unordered_map<std::uint64_t, std::size_t> by_var;
};

// A value traced by another kernel, read here (captured by reference, say).
inline constexpr const char* kEscapedValue = "a traced value escaped from another kernel's trace";

class Builder {
public:
    Builder(ir::Program& program, const std::vector<detail::Arg>& args);
    ~Builder();
    Builder(const Builder&) = delete;
    Builder& operator=(const Builder&) = delete;

    static Builder* current();

    ir::Program& program() { return program_; }
    const std::vector<detail::Arg>& args() const { return args_; }
    int depth() const { return static_cast<int>(frames_.size()); }
    std::uint64_t serial() const { return serial_; }

    // Appends a node to the innermost region.
    ir::Node* append(ir::Node* n);
    ir::Node* make(OpCode op, detail::Type type, std::vector<ir::Node*> operands, Loc loc);
    // A node for a value: traced as is, eager data becomes a constant in the body.
    ir::Node* node_of(const detail::Value& v);
    ir::Node* top_level(OpCode op, detail::Type type, Loc loc);  // hoisted to the kernel body

    // Loops.
    ir::Node* open_loop(detail::LoopKind kind, std::vector<ir::Node*> extents, std::vector<int> axis_ids, Loc loc);
    void close_loop(ir::Node* loop);
    bool inside_loop(ir::Node* loop) const;

    // Variables.
    detail::Value read(const detail::VarPtr& v);
    void assign(const detail::VarPtr& v, detail::Value value);

    void specialize(int param, int dim, std::int64_t value);

private:
    bool defined_inside(const ir::Node* n, const ir::Region* r) const;
    void replace_uses(ir::Region& r, ir::Node* from, ir::Node* to);

    ir::Program& program_;
    const std::vector<detail::Arg>& args_;
    std::vector<ir::Region*> regions_;
    std::vector<Frame> frames_;
    Builder* previous_;
    std::uint64_t serial_;
};

}  // namespace kiln::trace
