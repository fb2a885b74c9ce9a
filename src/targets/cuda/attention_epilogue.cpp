// The FlashAttention kernel's epilogue (attention_epilogue.h).
#include "targets/cuda/attention_epilogue.h"

#include "ir/attrs.h"
#include "targets/cuda/emitter.h"

namespace kiln::cu {

using ir::Node;

std::string attention_epilogue(FragmentValues& values, const passes::AttentionMatch& m) {
    std::string s;
    s += "#pragma unroll\n";
    s += "    for (int jp = 0; jp < " + num(m.dv / 2) + "; jp += 2) {\n";
    s += "        const int h = (jp >> 1) & 1;\n";
    s += "        const long long r = kiln_row[h];\n";
    s += "        if (r >= kiln_rows) continue;\n";
    for (const Node* st : m.stores) {
        const Node* v = st->operands.back();
        const int rank = ir::access_rank(*st);
        const std::string a = "a" + num(ir::param_index(*st));
        // The row is the store's second-to-last coordinate; the leading ones are per CTA.
        std::string ok = "r < " + a + "_e" + num(rank - 2), off = "r * " + a + "_s" + num(rank - 2);
        for (int i = 0; i + 2 < rank; ++i) {
            std::string c = "(long long)(" + values.expr(st->operands[static_cast<std::size_t>(i)], Where::cta) + ")";
            ok += " && " + c + " < " + a + "_e" + num(i);
            off += " + " + c + " * " + a + "_s" + num(i);
        }
        s += "#pragma unroll\n";
        s += "        for (int e = 0; e < 2; ++e) {\n";
        s += "            const int j = jp + e;\n";
        s += "            const int oc = 8 * (j >> 2) + 2 * (lane & 3) + e;\n";
        s += "            if (" + ok + " && oc < " + a + "_e" + num(rank - 1) + ") " + a + "[" + off + " + oc * " + a + "_s" + num(rank - 1) +
             "] = " + to_storage(v->type.kind, values.expr(v, Where::out)) + ";\n";
        s += "        }\n";
    }
    s += "    }\n";
    return s;
}

}  // namespace kiln::cu
