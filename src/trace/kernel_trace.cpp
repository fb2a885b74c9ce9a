// Tracing a kernel: parameters, view accesses and loop nests.
#include "trace/kernel_trace.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "check/shape_rules.h"
#include "check/verify.h"
#include "support/names.h"
#include "trace/builder.h"

namespace kiln::detail {

namespace {

trace::Builder& builder(Loc loc, std::string_view op) {
    auto* b = trace::Builder::current();
    if (!b) fail(loc, op, "only inside a kernel (kernel(name, lambda)); outside, use the eager tile functions");
    return *b;
}

std::string describe_param(const ir::Program& p, int param) {
    return "argument " + std::to_string(param) + " (" + p.params[static_cast<std::size_t>(param)].spelling + ")";
}

std::string arg_kind_text(const Arg& a) {
    if (!a.is_view) return "a scalar " + std::string(kind_name(a.kind));
    return std::string(a.read_only ? "a read-only " : "a ") + "view of " + std::string(kind_name(a.kind)) + " with rank " + std::to_string(a.extents.size());
}

std::string arguments(std::size_t n) { return std::to_string(n) + (n == 1 ? " argument" : " arguments"); }

[[noreturn]] void fail_view_arg(const KernelImpl& k, std::size_t i, const std::string& why, Loc loc) {
    fail(loc, "launch", "kernel '" + k.name + "' argument " + std::to_string(i) + " (" + k.params[i].spelling + "): " + why);
}
}  // namespace

void check_args(const KernelImpl& k, const std::vector<Arg>& args, Loc loc, bool with_data) {
    if (args.size() != k.params.size())
        fail(loc, "launch", "kernel '" + k.name + "' takes " + arguments(k.params.size()) + ", got " + std::to_string(args.size()));
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& p = k.params[i];
        const auto& a = args[i];
        bool ok = p.is_view == a.is_view && (!p.is_view || (p.kind == a.kind && p.rank == static_cast<int>(a.extents.size()))) &&
                  (p.is_view || (is_float(p.kind) == is_float(a.kind)));
        if (!ok)
            fail(loc, "launch", "kernel '" + k.name + "' argument " + std::to_string(i) + " expects " + p.spelling + ", got " + arg_kind_text(a));
        if (p.is_view && p.writable && a.read_only)
            fail(loc, "launch", "kernel '" + k.name + "' argument " + std::to_string(i) + " (" + p.spelling + ") is written, but a read-only view was passed");
        if (!p.is_view) continue;
        // Views may be made by hand (HostView{...}) or by other code: checked here
        // whatever made them. The data only at a launch (a plan needs none).
        std::string why = with_data ? view_problem(a.data, kind_bytes(a.kind), a.extents, a.strides) : view_shape_problem(a.extents, a.strides);
        if (!why.empty()) fail_view_arg(k, i, why, loc);
    }
}

void check_arg_data(const KernelImpl& k, const std::vector<Arg>& args, Loc loc) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const Arg& a = args[i];
        if (!a.is_view || data_pointer_fine(a.data, kind_bytes(a.kind))) continue;
        if (std::string why = view_data_problem(a.data, kind_bytes(a.kind), a.extents); !why.empty()) fail_view_arg(k, i, why, loc);
    }
}

namespace {

bool matches(const ir::Program& p, const std::vector<Arg>& args) {
    for (auto& s : p.specializations) {
        const auto& a = args[static_cast<std::size_t>(s.param)];
        std::int64_t v = s.dim >= 0 ? a.extents[static_cast<std::size_t>(s.dim)] : a.strides[static_cast<std::size_t>(-s.dim - 1)];
        if (v != s.value) return false;
    }
    return true;
}

// With KILN_WARN_RETRACE set, says on stderr that a kernel was traced again and
// which launch values its new program is specialised on (Kernel::traces() counts).
void note_retrace(const KernelImpl& k, const ir::Program& p) {
    const char* env = std::getenv("KILN_WARN_RETRACE");
    if (!env || !*env || std::string_view(env) == "0") return;
    std::string values;
    for (const auto& s : p.specializations)
        values += (values.empty() ? "" : ", ") + std::string("argument ") + std::to_string(s.param) +
                  (s.dim >= 0 ? " extent " + std::to_string(s.dim) : " stride " + std::to_string(-s.dim - 1)) + " = " + std::to_string(s.value);
    std::fprintf(stderr, "kiln: kernel '%s' (%s) traced again, program %zu, for %s\n", k.name.c_str(), k.loc.str().c_str(),
                 k.programs.size(), values.empty() ? "new arguments" : values.c_str());
}

}  // namespace

std::shared_ptr<KernelImpl> new_kernel(std::string name, std::vector<ParamSig> params, std::function<void()> trace, Loc loc) {
    if (name.empty()) fail(loc, "kernel", "a kernel needs a name");
    // The name reaches generated source, file names and messages.
    if (auto why = support::name_problem(name); !why.empty()) fail(loc, "kernel", "invalid kernel name " + support::quoted(name) + ": " + why);
    auto k = std::make_shared<KernelImpl>();
    k->name = std::move(name);
    k->params = std::move(params);
    k->trace = std::move(trace);
    k->loc = loc;
    return k;
}

std::shared_ptr<const ir::Program> specialize(KernelImpl& k, const std::vector<Arg>& args, Loc loc) {
    check_args(k, args, loc, /*with_data=*/false);
    std::lock_guard<std::mutex> g(k.mutex);
    for (auto& p : k.programs)
        if (matches(*p, args)) return p;
    auto p = std::make_shared<ir::Program>();
    p->name = k.name;
    p->loc = k.loc;
    p->params = k.params;
    {
        trace::Builder b(*p, args);
        k.trace();
        if (b.depth() != 0) fail(k.loc, "kernel", "a loop nest was left open");
    }
    check::verify(*p);
    k.programs.push_back(p);
    if (k.traces.fetch_add(1) > 0) note_retrace(k, *p);
    return p;
}

Value param_value(int index, Kind kind) {
    auto& b = builder({}, "kernel");
    ir::Node* n = b.top_level(OpCode::param, Type{kind, {}}, {});
    ir::set_param_index(*n, index);
    return Value{n, nullptr, n->type};
}

Extent view_extent(int param, int dim, bool stride, Loc loc) {
    auto& b = builder(loc, stride ? "stride" : "extent");
    const auto& a = b.args()[static_cast<std::size_t>(param)];
    if (dim < 0 || dim >= static_cast<int>(a.extents.size()))
        fail(loc, stride ? "stride" : "extent", "dimension " + std::to_string(dim) + " is outside " + describe_param(b.program(), param));
    return Extent::from_view(param, dim, stride ? a.strides[static_cast<std::size_t>(dim)] : a.extents[static_cast<std::size_t>(dim)], stride);
}

namespace {
std::vector<ir::Node*> origin_nodes(trace::Builder& b, const Coord& origin, int rank, Loc loc, std::string_view op, int param) {
    if (static_cast<int>(origin.values.size()) != rank)
        fail(loc, op, "coord has " + std::to_string(origin.values.size()) + " components for " + describe_param(b.program(), param));
    std::vector<ir::Node*> nodes;
    for (auto& v : origin.values) {
        if (v.type.kind != Kind::I64 || !v.type.dims.empty()) fail(loc, op, "coordinates must be i64 scalars");
        nodes.push_back(b.node_of(v));
    }
    return nodes;
}

// Makes `v` fit a destination of `dims`: identical, the same named axes in another
// order, a scalar, the same extents by position, or the same non-unit extents.
Value conform_store(const Value& v, const std::vector<Dim>& dims, Loc loc, std::string_view op) {
    if (v.type.dims == dims) return v;
    if (v.type.dims.empty()) return full(v, dims, loc);
    auto named = [](const std::vector<Dim>& d) { return std::all_of(d.begin(), d.end(), [](const Dim& x) { return x.axis != 0; }); };
    if (named(v.type.dims) && named(dims) && v.type.dims.size() == dims.size()) {
        std::vector<int> order;
        for (auto& d : dims) {
            auto it = std::find_if(v.type.dims.begin(), v.type.dims.end(), [&](const Dim& x) { return x.axis == d.axis && x.extent == d.extent; });
            if (it == v.type.dims.end()) break;
            order.push_back(static_cast<int>(it - v.type.dims.begin()));
        }
        if (order.size() == dims.size()) return reshape(permute(v, order, loc), dims, loc);
    }
    std::vector<std::int64_t> a, b;
    for (auto& d : v.type.dims)
        if (d.extent != 1) a.push_back(d.extent);
    for (auto& d : dims)
        if (d.extent != 1) b.push_back(d.extent);
    if (a == b) return reshape(v, dims, loc);
    fail(loc, op, "shape mismatch: value " + check::dims_str(v.type.dims) + " vs destination " + check::dims_str(dims) +
                      ir::same_name_note(v.type.dims, dims));
}
}  // namespace

Value load_view(int param, const Coord& origin, const Shape& shape, bounds::Policy policy, const Value* fallback, Loc loc) {
    if (!loc.known()) loc = origin.loc;
    auto& b = builder(loc, "load");
    const auto& p = b.program().params[static_cast<std::size_t>(param)];
    if (shape.rank() != p.rank) fail(loc, "load", "shape has rank " + std::to_string(shape.rank()) + " for " + describe_param(b.program(), param));
    auto dims = shape.dims(loc);
    for (auto& d : dims)
        if (d.extent <= 0) fail(loc, "load", "non-positive shape: " + check::dims_str(dims));
    auto operands = origin_nodes(b, origin, p.rank, loc, "load", param);
    if (fallback) {
        if (fallback->type.kind != p.kind || !fallback->type.dims.empty()) fail(loc, "load", "the fallback must be a scalar of the view's kind");
        // Only bounds::zero reads a fallback: a fallback beside another policy is a
        // mistake about what that policy does.
        if (policy == bounds::check) fail(loc, "load", "a fallback with bounds::check is never read (out-of-range elements raise); use bounds::zero");
        if (policy == bounds::assume) fail(loc, "load", "a fallback with bounds::assume is never read (accesses are assumed in range); use bounds::zero");
        operands.push_back(b.node_of(*fallback));
    }
    ir::Node* n = b.make(OpCode::load, Type{p.kind, dims}, std::move(operands), loc);
    ir::set_param_index(*n, param);
    ir::set_bounds(*n, policy, fallback != nullptr);
    return Value{n, nullptr, n->type};
}

void store_view(int param, const Coord& origin, const Shape& shape, bounds::Policy policy, const Value& value, Loc loc) {
    if (!loc.known()) loc = origin.loc;
    auto& b = builder(loc, "store");
    const auto& p = b.program().params[static_cast<std::size_t>(param)];
    if (!p.writable) {
        std::string writable = p.spelling;
        auto c = writable.find("const ");
        if (c != std::string::npos) writable.erase(c, 6);
        fail(loc, "store", describe_param(b.program(), param) + " is read-only; declare it " + writable + " to write to it");
    }
    if (shape.rank() != p.rank) fail(loc, "store", "shape has rank " + std::to_string(shape.rank()) + " for " + describe_param(b.program(), param));
    auto dims = shape.dims(loc);
    // As for a load: an empty or negative window is the mistake, not the value's shape.
    for (auto& d : dims)
        if (d.extent <= 0) fail(loc, "store", "non-positive shape: " + check::dims_str(dims));
    Value v = conform_store(value, dims, loc, "store");
    auto operands = origin_nodes(b, origin, p.rank, loc, "store", param);
    operands.push_back(b.node_of(v));
    ir::Node* n = b.make(OpCode::store, v.type, std::move(operands), loc);
    ir::set_param_index(*n, param);
    ir::set_bounds(*n, policy, false);
}

std::string kernel_ir(const Kernel& k, const std::vector<Arg>& args) {
    if (!k) empty_kernel("ir", {});
    return ir::print(*specialize(*k.shared_impl(), args, {}));
}

void empty_kernel(std::string_view what, Loc loc) {
    fail(loc, what, "this Kernel is empty (default-constructed or moved from); assign it a kernel(name, lambda) first");
}

}  // namespace kiln::detail

namespace kiln {
const std::string& Kernel::name(Loc loc) const { return impl(loc).name; }
const std::vector<detail::ParamSig>& Kernel::params(Loc loc) const { return impl(loc).params; }
int Kernel::traces(Loc loc) const { return impl(loc).traces.load(); }
}  // namespace kiln
