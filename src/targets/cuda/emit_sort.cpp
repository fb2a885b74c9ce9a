// sort and topk by ranking: each element's place in its line is the number of
// elements that sort before it, plus the equal ones at lower indices (that is
// what makes it stable, as the contract requires). Every element ranks itself
// in parallel, O(line) work each, and writes itself (or its index) to its place
// in a shared-memory result; topk keeps ranks below k of the descending order.
#include "targets/cuda/emitter.h"

namespace kiln::cu {

void emit_sort(Emitter& E, const Node& n) {
    const Node* x = n.operands[0];
    Kind xk = x->type.kind;
    const auto& xd = x->type.dims;
    auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    bool topk = n.op == OpCode::topk_values || n.op == OpCode::topk_indices;
    bool indices = n.op == OpCode::sort_indices || n.op == OpCode::topk_indices;
    std::int64_t len = xd[axis].extent, keep = topk ? ir::topk_count(n) : len;
    auto xs = strides_of(xd), os = strides_of(n.type.dims);
    // NaN sorts above +inf; -0 and +0 are equal.
    auto less = [&](const std::string& a, const std::string& b) {
        return is_float(xk) ? "kc::less_nan_last((double)" + a + ", (double)" + b + ")" : "(" + a + " < " + b + ")";
    };
    // topk orders descending: "before" means larger.
    auto before = [&](const std::string& a, const std::string& b) { return topk ? less(b, a) : less(a, b); };

    E.begin_shared(n);
    std::string sx = E.stage(x);
    std::string so = E.shared_array(ctype(n.type.kind), n.type.count(), register_bytes(n.type.kind));
    E.barrier();
    E.each_owned(x, [&](const std::string& e, const std::string& v) {
        E.open("");
        E.line("const int p = " + coord(e, xd, axis) + ";");
        E.line("const int base = " + e + " - p * " + num(xs[axis]) + ";");
        E.line("const " + ctype(xk) + " me = " + v + ";");
        E.line("int rank = 0;");
        E.open("for (int q = 0; q < " + num(len) + "; ++q)");
        E.line("const " + ctype(xk) + " y = " + sx + "[base + q * " + num(xs[axis]) + "];");
        E.line("rank += (" + before("y", "me") + " || (q < p && !" + before("me", "y") + ")) ? 1 : 0;");
        E.close();
        // The output position: the same position in the other dims, `rank` along the axis.
        std::string out = "rank * " + num(os[axis]);
        for (std::size_t d = 0; d < xd.size(); ++d)
            if (d != axis) out += " + " + coord(e, xd, d) + " * " + num(os[d]);
        E.line("if (rank < " + num(keep) + ") " + so + "[" + out + "] = " + (indices ? "(long long)p" : "me") + ";");
        E.close();
    });
    E.barrier();
    E.each_element(&n, [&](const std::string& e, const std::string& dst) { E.line(dst + " = " + so + "[" + e + "];"); });
    E.note(n, std::string(topk ? "topk" : "stable sort") + " by parallel ranking in shared memory");
}

}  // namespace kiln::cu
