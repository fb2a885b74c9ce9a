#include "trace/builder.h"

#include <algorithm>
#include <atomic>

namespace kiln::trace {

namespace {
thread_local Builder* g_current = nullptr;
std::atomic<std::uint64_t> g_next_var{1};
std::atomic<std::uint64_t> g_next_trace{1};
}  // namespace

Builder::Builder(ir::Program& program, const std::vector<detail::Arg>& args)
    : program_(program), args_(args), previous_(g_current), serial_(g_next_trace.fetch_add(1)) {
    regions_.push_back(&program_.body);
    g_current = this;
}

Builder::~Builder() { g_current = previous_; }

Builder* Builder::current() { return g_current; }

ir::Node* Builder::append(ir::Node* n) {
    n->parent = regions_.back();
    regions_.back()->nodes.push_back(n);
    return n;
}

ir::Node* Builder::make(OpCode op, detail::Type type, std::vector<ir::Node*> operands, Loc loc) {
    ir::Node* n = program_.make(op);
    n->type = std::move(type);
    n->operands = std::move(operands);
    n->loc = loc;
    return append(n);
}

ir::Node* Builder::top_level(OpCode op, detail::Type type, Loc loc) {
    ir::Node* n = program_.make(op);
    n->type = std::move(type);
    n->loc = loc;
    n->parent = &program_.body;
    // Before the first loop of the body, so that every region can use it.
    auto& nodes = program_.body.nodes;
    auto pos = std::find_if(nodes.begin(), nodes.end(), [](ir::Node* m) { return m->op == OpCode::loop; });
    nodes.insert(pos, n);
    return n;
}

ir::Node* Builder::node_of(const detail::Value& v) {
    if (v.node) return v.node;
    if (!v.data) fail({}, "kernel", kEscapedValue);
    ir::Node* n = top_level(OpCode::constant, v.type, {});
    n->data = v.data;
    return n;
}

bool Builder::defined_inside(const ir::Node* n, const ir::Region* r) const {
    for (const ir::Region* p = n->parent; p; p = p->owner ? p->owner->parent : nullptr)
        if (p == r) return true;
    return false;
}

ir::Node* Builder::open_loop(detail::LoopKind kind, std::vector<ir::Node*> extents, std::vector<int> axis_ids, Loc loc) {
    ir::Node* loop = make(OpCode::loop, {}, std::move(extents), loc);
    ir::set_loop(*loop, kind, std::vector<std::int64_t>(axis_ids.begin(), axis_ids.end()));
    loop->body = std::make_unique<ir::Region>();
    loop->body->owner = loop;
    for (std::size_t k = 0; k < axis_ids.size(); ++k) {
        ir::Node* idx = program_.make(OpCode::region_arg);
        idx->type = detail::Type{Kind::I64, {}};
        ir::set_slot(*idx, static_cast<int>(k));
        idx->parent = loop->body.get();
        idx->loc = loc;
        loop->body->args.push_back(idx);
    }
    regions_.push_back(loop->body.get());
    frames_.push_back(Frame{loop, static_cast<int>(frames_.size()) + 1, {}, {}});
    return loop;
}

bool Builder::inside_loop(ir::Node* loop) const {
    return std::any_of(frames_.begin(), frames_.end(), [&](const Frame& f) { return f.loop == loop; });
}

void Builder::replace_uses(ir::Region& r, ir::Node* from, ir::Node* to) {
    ir::walk(r, [&](ir::Node& n) {
        for (auto*& o : n.operands)
            if (o == from) o = to;
    });
}

void Builder::close_loop(ir::Node* loop) {
    if (frames_.empty() || frames_.back().loop != loop)
        fail(loop->loc, "loop", "loops must close in the order they open (an inner loop outlived its parent?)");
    Frame frame = std::move(frames_.back());
    frames_.pop_back();
    regions_.pop_back();
    ir::Region& body = *loop->body;

    std::vector<ir::Node*> next_values;
    int slot = 0;
    for (CarryEntry& e : frame.entries) {
        if (!e.assigned) {
            // Read but never assigned: the proxy was just the outer value.
            replace_uses(body, e.proxy, e.init);
            body.args.erase(std::find(body.args.begin(), body.args.end(), e.proxy));
            if (e.var->value.node == e.proxy) e.var->value.node = e.init;
            continue;
        }
        ir::Node* next = node_of(detail::read(e.var));
        // Instances run independently, in any order and at once: a value one of them
        // assigns cannot reach another. Refused here, for every target alike.
        if (ir::loop_kind(*loop) == detail::LoopKind::parallel)
            fail(next->loc.known() ? next->loc : loop->loc, "parallel",
                 "a value assigned inside the parallel nest cannot be carried across instances (instances are independent)");
        if (next->type != e.init->type)
            fail(loop->loc, "loop",
                 "loop-carried value changes shape or kind: " + detail::type_str(e.init->type) + " before the loop, " +
                     detail::type_str(next->type) + " after one iteration");
        ir::set_slot(*e.proxy, ir::loop_rank(*loop) + slot);
        loop->operands.push_back(e.init);
        next_values.push_back(next);
        ir::Node* result = program_.make(OpCode::loop_result);
        result->type = e.init->type;
        result->operands = {loop};
        ir::set_slot(*result, slot);
        result->loc = loop->loc;
        append(result);
        e.var->value = detail::Value{result, nullptr, result->type};
        ++slot;
    }
    // A carried variable assigned an outer value that is itself read-only here
    // (acc = w) holds that value's proxy, which the first loop above removed:
    // the yield takes the outer value instead.
    for (const CarryEntry& e : frame.entries)
        if (!e.assigned) std::replace(next_values.begin(), next_values.end(), e.proxy, e.init);
    ir::Node* y = program_.make(OpCode::yield);
    y->operands = std::move(next_values);
    y->parent = &body;
    y->loc = loop->loc;
    body.nodes.push_back(y);
}

detail::Value Builder::read(const detail::VarPtr& v) {
    if (v->trace != serial_) {
        // A tile captured from outside the kernel: a constant of this program. The
        // variable itself belongs to the caller and is left untouched.
        // Handed on as a value with neither node nor data: the operation that uses it
        // reports the mistake at its own line (frontend.cpp emit).
        if (v->value.node) return detail::Value{nullptr, nullptr, v->value.type};
        detail::Value c = v->value;
        c.node = node_of(c);
        return c;
    }
    if (!v->value.node && v->value.data) v->value.node = node_of(v->value);
    for (Frame& f : frames_) {
        if (f.depth <= v->birth_depth) continue;
        if (f.by_var.count(v->id)) continue;
        ir::Node* cur = v->value.node;
        if (defined_inside(cur, f.loop->body.get())) continue;
        ir::Node* proxy = program_.make(OpCode::region_arg);
        proxy->type = cur->type;
        proxy->parent = f.loop->body.get();
        proxy->loc = cur->loc;
        f.loop->body->args.push_back(proxy);
        f.by_var[v->id] = f.entries.size();
        f.entries.push_back(CarryEntry{v, cur, proxy, false});
        v->value.node = proxy;
    }
    return v->value;
}

void Builder::assign(const detail::VarPtr& v, detail::Value value) {
    if (v->trace != serial_)
        fail(value.node ? value.node->loc : Loc{}, "assign",
             "a tile captured from outside the kernel cannot be assigned inside it (capture it by value, "
             "or declare the variable inside the kernel)");
    if (v->value.node || v->value.data) read(v);
    for (Frame& f : frames_) {
        if (f.depth <= v->birth_depth) continue;
        auto it = f.by_var.find(v->id);
        if (it != f.by_var.end()) f.entries[it->second].assigned = true;
    }
    if (!value.node && value.data) value.node = node_of(value);
    v->value = std::move(value);
}

void Builder::specialize(int param, int dim, std::int64_t value) {
    for (auto& s : program_.specializations)
        if (s.param == param && s.dim == dim) return;
    program_.specializations.push_back({param, dim, value});
}

}  // namespace kiln::trace

namespace kiln::detail {

VarPtr new_var(Value v) {
    auto var = std::make_shared<Var>();
    var->value = std::move(v);
    var->id = trace::g_next_var.fetch_add(1);
    if (auto* b = trace::Builder::current()) {
        var->birth_depth = b->depth();
        var->trace = b->serial();
    }
    return var;
}

Value read(const VarPtr& v) {
    if (!v) internal_fail("read of a moved-from tile");
    auto* b = trace::Builder::current();
    if (!b || (!v->value.node && !v->value.data)) return v->value;
    return b->read(v);
}

void assign(const VarPtr& v, Value value) {
    if (!v) internal_fail("assignment to a moved-from tile");
    auto* b = trace::Builder::current();
    if (!b) {
        v->value = std::move(value);
        return;
    }
    b->assign(v, std::move(value));
}

bool tracing() { return trace::Builder::current() != nullptr; }

}  // namespace kiln::detail
