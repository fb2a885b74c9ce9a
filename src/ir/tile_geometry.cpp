#include "ir/tile_geometry.h"

#include "ir/attrs.h"

namespace kiln::ir {

AffineSource relayout_source(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const auto xs = strides_of(xd);
    AffineSource a;
    a.coef.assign(n.type.dims.size(), 0);
    for (std::size_t d = 0; d < a.coef.size(); ++d) {
        if (n.op == OpCode::permute) a.coef[d] = xs[static_cast<std::size_t>(dim_map(n)[d])];
        if (n.op == OpCode::slice) {
            a.coef[d] = xs[d];
            a.base += slice_starts(n)[d] * xs[d];
        }
    }
    if (n.op == OpCode::broadcast)  // a dim of extent 1 is read at 0 whatever the result's coordinate
        for (std::size_t d = 0; d < xd.size(); ++d)
            if (xd[d].extent != 1) a.coef[static_cast<std::size_t>(dim_map(n)[d])] += xs[d];
    return a;
}

}  // namespace kiln::ir
