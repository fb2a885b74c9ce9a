#include "ir/attrs.h"

#include <kiln/error.h>

namespace kiln::ir {

void require_attr(const Node& n, Attr, const char* accessor) {
    internal_fail(std::string(accessor) + " read from a '" + std::string(detail::op_name(n.op)) + "' node, which has no such attribute");
}

bool MmaDims::is_matmul() const { return out == std::vector<Pair>{{0, -1}, {-1, 1}} && contract == std::vector<Pair>{{1, 0}}; }
bool MmaDims::is_matmul_bt() const { return out == std::vector<Pair>{{0, -1}, {-1, 0}} && contract == std::vector<Pair>{{1, 1}}; }

MmaDims mma_dims(const Node& n) {
    Ints m = dim_map(n);
    MmaDims d;
    std::size_t n_out = static_cast<std::size_t>(m[0]);
    for (std::size_t k = 0; k < n_out; ++k) d.out.push_back({static_cast<int>(m[1 + 2 * k]), static_cast<int>(m[2 + 2 * k])});
    std::size_t base = 1 + 2 * n_out;
    std::size_t n_con = static_cast<std::size_t>(m[base]);
    for (std::size_t k = 0; k < n_con; ++k)
        d.contract.push_back({static_cast<int>(m[base + 1 + 2 * k]), static_cast<int>(m[base + 2 + 2 * k])});
    return d;
}

std::vector<std::int64_t> encode_mma_dims(const MmaDims& d) {
    std::vector<std::int64_t> m{static_cast<std::int64_t>(d.out.size())};
    for (auto p : d.out) m.insert(m.end(), {p.a, p.b});
    m.push_back(static_cast<std::int64_t>(d.contract.size()));
    for (auto p : d.contract) m.insert(m.end(), {p.a, p.b});
    return m;
}

std::string_view policy_name(bounds::Policy p) {
    switch (p) {
        case bounds::Policy::zero: return "zero";
        case bounds::Policy::check: return "check";
        case bounds::Policy::assume: return "assume";
    }
    return "?";
}

int access_rank(const Node& n) {
    expect(n, attr_bounds, "access_rank");
    // load: origins [, fallback]; store: origins, value.
    if (n.op == detail::OpCode::store) return static_cast<int>(n.operands.size()) - 1;
    return static_cast<int>(n.operands.size()) - (has_fallback(n) ? 1 : 0);
}

std::string_view loop_kind_name(detail::LoopKind k) {
    switch (k) {
        case detail::LoopKind::parallel: return "parallel";
        case detail::LoopKind::serial: return "serial";
        case detail::LoopKind::pipeline: return "pipeline";
    }
    return "?";
}

}  // namespace kiln::ir
