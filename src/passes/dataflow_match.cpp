#include "passes/dataflow_match.h"

#include <utility>

namespace kiln::passes {

using detail::OpCode;
using ir::Node;

std::optional<std::int64_t> int_constant(const Node* n) {
    if (n->op != OpCode::constant || !is_scalar(n) || is_float(n->type.kind) || n->data->ints.size() != 1) return std::nullopt;
    return n->data->ints[0];
}

std::optional<double> float_constant(const Node* n) {
    if (n->op == OpCode::full) n = n->operands[0];
    if (n->op != OpCode::constant || !is_scalar(n) || !is_float(n->type.kind) || n->data->floats.size() != 1) return std::nullopt;
    return n->data->floats[0];
}

bool index_times(const Node* n, const Node* index, std::int64_t extent) {
    if (n->op != OpCode::mul || n->operands.size() != 2) return false;
    const Node *x = n->operands[0], *y = n->operands[1];
    if (x != index) std::swap(x, y);
    return x == index && int_constant(y) == extent;
}

std::vector<detail::Dim> non_unit_dims(const std::vector<detail::Dim>& dims) {
    std::vector<detail::Dim> kept;
    for (const auto& d : dims)
        if (d.extent != 1) kept.push_back(d);
    return kept;
}

std::vector<int> non_unit_axes(const Node* n) {
    std::vector<int> a;
    for (const auto& d : non_unit_dims(n->type.dims)) a.push_back(d.axis);
    return a;
}

// (Whole dims, not axis ids: anonymous dims share id 0, so [128x128] -> [256x64] has
// the same ids and is no unit reshape.)
bool unit_reshape(const Node* n) {
    return n->op == detail::OpCode::reshape && non_unit_dims(n->type.dims) == non_unit_dims(n->operands[0]->type.dims);
}

}  // namespace kiln::passes
