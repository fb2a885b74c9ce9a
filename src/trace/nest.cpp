// Loop nests: parallel (the grid), serial and pipeline regions, and the element
// nests that reindex hands to its coordinate function.
#include <kiln/kernel.h>

#include "check/shape_rules.h"
#include "support/names.h"
#include "trace/builder.h"

namespace kiln::detail {

struct NestState {
    ir::Node* loop = nullptr;
    std::vector<Axis> axes;
    std::vector<Value> indices;
    const NestState* parent = nullptr;
    bool element = false;
    std::vector<Dim> element_dims;
};

namespace {
std::string_view kind_word(LoopKind k) {
    return k == LoopKind::parallel ? "parallel" : k == LoopKind::serial ? "serial" : "pipeline";
}
}  // namespace

std::shared_ptr<NestState> open_nest(LoopKind kind, const Shape& domain, const Nest* parent, PipelineOptions opts, Loc loc) {
    auto* b = trace::Builder::current();
    if (!b) fail(loc, kind_word(kind), "only inside a kernel (kernel(name, lambda))");
    if (domain.rank() == 0) fail(loc, kind_word(kind), "the domain needs at least one axis");
    if (kind == LoopKind::parallel) {
        if (b->depth() != 0) fail(loc, "parallel", "the grid must be the outermost nest; use nest.serial or nest.pipeline inside it");
        if (b->program().grid) fail(loc, "parallel", "a kernel has one parallel nest (its grid)");
    } else {
        if (!parent || parent->state().element) internal_fail("nested loop without a parent nest");
        if (!b->inside_loop(parent->state().loop)) fail(loc, kind_word(kind), "the parent nest's loop has already ended");
    }
    if (kind == LoopKind::pipeline && (opts.window == 0 || opts.interval == 0))
        fail(loc, "pipeline", "window and interval must be positive");
    std::vector<ir::Node*> extents;
    std::vector<int> ids;
    for (const Axis& a : domain.axes()) {
        extents.push_back(b->node_of(a.extent().symbolic()));
        ids.push_back(a.id());
    }
    auto s = std::make_shared<NestState>();
    s->loop = b->open_loop(kind, extents, ids, loc);
    ir::set_pipeline_window(*s->loop, static_cast<int>(opts.window));
    s->axes = domain.axes();
    s->parent = parent ? &parent->state() : nullptr;
    for (ir::Node* arg : s->loop->body->args) s->indices.push_back(Value{arg, nullptr, arg->type});
    if (kind == LoopKind::parallel) b->program().grid = s->loop;
    return s;
}

void close_nest(NestState& s) {
    auto* b = trace::Builder::current();
    if (!b) internal_fail("close_nest outside a trace");
    b->close_loop(s.loop);
}

Value nest_index(const NestState& s, const Axis* a, Loc loc) {
    // Dimensions are found by their axis's identity; a plain extent has none.
    if (a && a->anonymous())
        fail(loc, "index", "an anonymous dimension has no name to look up; give the nest's axes names (axis(\"name\", extent))");
    if (s.element) {
        if (!a) {
            if (s.element_dims.size() != 1) fail(loc, "index", "this element nest has " + std::to_string(s.element_dims.size()) + " dimensions; name the axis");
            return iota(s.element_dims[0], loc);
        }
        for (const Dim& d : s.element_dims)
            if (d.axis == a->id() && a->id() != 0) return iota(d, loc);
        fail(loc, "index", "axis '" + a->name() + "' is not a dimension of the reindexed shape");
    }
    auto* b = trace::Builder::current();
    if (!b || !b->inside_loop(s.loop)) fail(loc, "index", "the nest's loop has ended (or the kernel is not being traced)");
    if (!a) {
        if (s.axes.size() != 1) fail(loc, "index", "this nest has " + std::to_string(s.axes.size()) + " dimensions; name the axis: nest.index(axis)");
        return s.indices[0];
    }
    for (const NestState* n = &s; n; n = n->parent)
        for (std::size_t k = 0; k < n->axes.size(); ++k)
            if (n->axes[k].id() == a->id() && a->id() != 0) return n->indices[k];
    fail(loc, "index", "axis '" + a->name() + "' is not a dimension of this nest or its ancestors");
}

void nest_stage(const NestState& s, const std::string& name, Loc loc) {
    auto* b = trace::Builder::current();
    if (!b || !b->inside_loop(s.loop)) fail(loc, "stage", "only inside the nest's loop body");
    if (ir::loop_kind(*s.loop) != LoopKind::pipeline) fail(loc, "stage", "stages belong to pipeline nests");
    if (auto why = support::name_problem(name); !why.empty()) fail(loc, "stage", "invalid stage name " + support::quoted(name) + ": " + why);
    ir::Node* n = b->make(OpCode::stage, Type{}, {}, loc);
    ir::set_stage_label(*n, name);
}

std::shared_ptr<NestState> element_nest(const std::vector<Dim>& dims) {
    auto s = std::make_shared<NestState>();
    s->element = true;
    s->element_dims = dims;
    return s;
}

}  // namespace kiln::detail
