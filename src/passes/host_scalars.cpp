#include "passes/host_scalars.h"

#include <algorithm>
#include <limits>

#include "interp/semantics.h"
#include "ir/attrs.h"

namespace kiln::passes {

using detail::OpCode;
using ir::Node;

bool host_evaluable(const Node& n) {
    if (!n.type.dims.empty() && n.op != OpCode::constant) return false;
    switch (ir::category(n.op)) {
        case ir::OpCategory::leaf: return n.op != OpCode::iota;
        case ir::OpCategory::unary: case ir::OpCategory::binary: case ir::OpCategory::compare: case ir::OpCategory::select:
        case ir::OpCategory::cast: case ir::OpCategory::shape:
            for (const Node* o : n.operands)
                if (!host_evaluable(*o)) return false;
            return n.type.dims.empty();
        case ir::OpCategory::reduction: case ir::OpCategory::arg_reduction: case ir::OpCategory::scan: case ir::OpCategory::contraction:
        case ir::OpCategory::movement: case ir::OpCategory::sort: case ir::OpCategory::memory: case ir::OpCategory::control:
            return false;
    }
    return false;
}

std::int64_t HostScalars::integer(const Node* n, const Node& where) {
    for (std::size_t i = 0; i < std::min(count_, kInline); ++i)
        if (ints_[i].first == n) return ints_[i].second;
    for (const auto& [node, v] : more_ints_)
        if (node == n) return v;
    std::int64_t v = 0;
    Kind k = n->type.kind;
    bool wide = is_int(k);  // bool goes through eval's path
    const detail::Arg* arg = ir::has_attr(n->op, ir::attr_param) ? &args_[static_cast<std::size_t>(ir::param_index(*n))] : nullptr;
    if (n->op == OpCode::constant && wide && n->data->ints.size() == 1) v = n->data->ints[0];
    else if (n->op == OpCode::view_extent) v = arg->extents[static_cast<std::size_t>(ir::view_dim(*n))];
    else if (n->op == OpCode::view_stride) v = arg->strides[static_cast<std::size_t>(ir::view_dim(*n))];
    else if (n->op == OpCode::param && wide) v = ref::wrap_to(k, arg->i);
    else if (ir::category(n->op) == ir::OpCategory::binary && wide && n->op != OpCode::pow)
        v = ref::int_binary(n->op, k, integer(n->operands[0], where), integer(n->operands[1], where));
    else v = value(n, where)->ints.at(0);
    if (count_ < kInline) ints_[count_] = {n, v};
    else more_ints_.emplace_back(n, v);
    ++count_;
    return v;
}

std::optional<ref::DataPtr> HostScalars::try_value(const Node* n) {
    if (!host_evaluable(*n)) return std::nullopt;
    return value(n, *n);
}

ref::DataPtr HostScalars::value(const Node* n, const Node& where) {
    if (auto it = values_.find(n); it != values_.end()) return it->second;
    if (!host_evaluable(*n))
        fail(where.loc, detail::op_name(where.op),
             "depends on a " + std::string(detail::op_name(n->op)) + ", which the host cannot evaluate before the launch");
    auto scalar_int = [](std::int64_t v) {
        auto d = std::make_shared<ir::EagerData>();
        d->ints.push_back(v);
        return ref::DataPtr(d);
    };
    ref::DataPtr v;
    const detail::Arg* arg = ir::has_attr(n->op, ir::attr_param) ? &args_[static_cast<std::size_t>(ir::param_index(*n))] : nullptr;
    if (n->op == OpCode::view_extent) {
        v = scalar_int(arg->extents[static_cast<std::size_t>(ir::view_dim(*n))]);
    } else if (n->op == OpCode::view_stride) {
        v = scalar_int(arg->strides[static_cast<std::size_t>(ir::view_dim(*n))]);
    } else if (n->op == OpCode::param) {
        auto d = std::make_shared<ir::EagerData>();
        if (is_float(n->type.kind)) d->floats.push_back(ref::round_to(n->type.kind, arg->f));
        else d->ints.push_back(ref::wrap_to(n->type.kind, arg->i));
        v = d;
    } else {
        std::vector<ref::DataPtr> keep;
        std::vector<const ir::EagerData*> in;
        for (const Node* o : n->operands) {
            keep.push_back(value(o, where));
            in.push_back(keep.back().get());
        }
        v = ref::eval(*n, in);
    }
    values_[n] = v;
    return v;
}

double scalar_param_float(Kind k, double value) { return ref::round_to(k, value); }
std::int64_t scalar_param_int(Kind k, std::int64_t value) { return ref::wrap_to(k, value); }

std::optional<std::vector<std::int64_t>> grid_extents(const ir::Program& p, const std::vector<detail::Arg>& args) {
    if (!p.grid) return std::vector<std::int64_t>{};
    HostScalars scalars(args);
    std::vector<std::int64_t> ext;
    for (const Node* e : ir::loop_extents(*p.grid)) {
        if (!host_evaluable(*e)) return std::nullopt;
        ext.push_back(scalars.integer(e, *p.grid));
        if (ext.back() < 0) fail(p.grid->loc, "parallel", "negative grid extent " + std::to_string(ext.back()));
    }
    return ext;
}

std::int64_t grid_instances(const ir::Program& p, const std::vector<detail::Arg>& args) {
    if (!p.grid) return 1;
    passes::HostScalars scalars(args);
    std::int64_t total = 1;
    for (int k = 0; k < ir::loop_rank(*p.grid); ++k) {
        std::int64_t e = scalars.integer(p.grid->operands[static_cast<std::size_t>(k)], *p.grid);
        if (e < 0) fail(p.grid->loc, "parallel", "negative grid extent " + std::to_string(e));
        if (e != 0 && total > std::numeric_limits<std::int64_t>::max() / e)
            fail(p.grid->loc, "parallel", "the grid has more than 2^63 instances");
        total *= e;
    }
    return total;
}

}  // namespace kiln::passes
