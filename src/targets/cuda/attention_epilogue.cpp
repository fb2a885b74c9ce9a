// The FlashAttention kernel's epilogue (attention_epilogue.h).
#include "targets/cuda/attention_epilogue.h"

#include <functional>

#include "ir/attrs.h"
#include "targets/cuda/emitter.h"

namespace kiln::cu {

using ir::Node;

namespace {

// A store's bounds and element offset for row `r` (its coordinate along the rows:
// passes::tile_dim), without its last (column) coordinate.
struct RowAccess {
    std::string array;  // "a3"
    std::string ok;     // the row and the per-CTA coordinates in bounds
    std::string off;    // their part of the element offset
    std::string last;   // the column dimension's suffix: a3_e<last>, a3_s<last>
};

RowAccess row_access(FragmentValues& values, const passes::AttentionMatch& m, const Node* st) {
    const int row_dim = passes::tile_dim(st->operands.back(), m.axis_rows);
    const int rank = ir::access_rank(*st);
    RowAccess a;
    a.array = "a" + num(ir::param_index(*st));
    // The other coordinates but the last are per CTA.
    a.ok = "r < " + a.array + "_e" + num(row_dim);
    a.off = "r * " + a.array + "_s" + num(row_dim);
    for (int i = 0; i + 1 < rank; ++i) {
        if (i == row_dim) continue;
        std::string c = "(long long)(" + values.expr(st->operands[static_cast<std::size_t>(i)], Where::cta) + ")";
        a.ok += " && " + c + " < " + a.array + "_e" + num(i);
        a.off += " + " + c + " * " + a.array + "_s" + num(i);
    }
    a.last = num(rank - 1);
    return a;
}

// Element by element: each thread stores its own pairs (8 of every 32 bytes a store
// instruction moves are used).
std::string direct_epilogue(FragmentValues& values, const passes::AttentionMatch& m) {
    std::string s;
    s += "#pragma unroll\n";
    s += "    for (int jp = 0; jp < " + num(m.dv / 2) + "; jp += 2) {\n";
    s += "        const int h = (jp >> 1) & 1;\n";
    s += "        const long long r = kiln_R0 + kiln_wgc * 64 + kiln_warp * 16 + lane / 4 + 8 * h;\n";
    s += "        if (r >= kiln_rows) continue;\n";
    for (const Node* st : m.stores) {
        const Node* v = st->operands.back();
        const RowAccess a = row_access(values, m, st);
        s += "#pragma unroll\n";
        s += "        for (int e = 0; e < 2; ++e) {\n";
        s += "            const int j = jp + e;\n";
        s += "            const int oc = 8 * (j >> 2) + 2 * (lane & 3) + e;\n";
        s += "            if (" + a.ok + " && oc < " + a.array + "_e" + a.last + ") " + a.array + "[" + a.off + " + oc * " + a.array + "_s" +
             a.last + "] = " + to_storage(v->type.kind, values.expr(v, Where::out)) + ";\n";
        s += "        }\n";
    }
    s += "    }\n";
    return s;
}

// Through shared memory: each warp writes its 16 rows into the rows of Q's shared
// memory that its own products read (done with by now; no other warp's), 16-byte
// chunks swizzled by row so that neither the pair writes nor the chunk reads
// conflict, then stores whole 16-byte chunks, consecutive lanes along a row. On an
// H200 the element-by-element stores used a quarter of every 32-byte sector.
std::string staged_epilogue(FragmentValues& values, const passes::AttentionMatch& m) {
    const Node* st = m.stores[0];
    const Node* v = st->operands.back();
    const RowAccess a = row_access(values, m, st);
    const std::string e_last = a.array + "_e" + a.last, s_last = a.array + "_s" + a.last;
    const std::string chunks = num(m.dv / 8);  // 16-byte chunks per row
    // Byte offset of (row rr, chunk) in the warp's rows: 64-column boxes of [128 rows][128 bytes].
    const std::string at = "(chunk >> 3) * 16384 + rr * 128 + (((chunk & 7) ^ (rr & 7)) << 4)";
    std::string s;
    s += "    {\n";
    s += "    unsigned char* const kiln_st = kiln_q + (kiln_wgc * 64 + kiln_warp * 16) * 128;\n";
    s += "#pragma unroll\n";
    s += "    for (int jp = 0; jp < " + num(m.dv / 2) + "; jp += 2) {\n";
    s += "        const int h = (jp >> 1) & 1;\n";
    s += "        unsigned short kiln_pair[2];\n";
    s += "#pragma unroll\n";
    s += "        for (int e = 0; e < 2; ++e) {\n";
    s += "            const int j = jp + e;\n";
    s += "            kiln_pair[e] = " + to_storage(v->type.kind, values.expr(v, Where::out)) + ";\n";
    s += "        }\n";
    s += "        const int rr = lane / 4 + 8 * h, chunk = jp >> 2;\n";
    s += "        *reinterpret_cast<unsigned*>(kiln_st + " + at + " + (lane & 3) * 4) = (unsigned)kiln_pair[0] | ((unsigned)kiln_pair[1] << 16);\n";
    s += "    }\n";
    s += "    __syncwarp();\n";
    s += "    for (int q = lane; q < 16 * " + chunks + "; q += 32) {\n";
    s += "        const int rr = q / " + chunks + ", chunk = q % " + chunks + ";\n";
    s += "        const long long r = kiln_R0 + kiln_wgc * 64 + kiln_warp * 16 + rr;\n";
    s += "        if (r >= kiln_rows || !(" + a.ok + ")) continue;\n";
    s += "        const uint4 kiln_v = *reinterpret_cast<const uint4*>(kiln_st + " + at + ");\n";
    s += "        const long long oc = (long long)chunk * 8;\n";
    s += "        unsigned short* const kiln_to = " + a.array + " + (" + a.off + " + oc * " + s_last + ");\n";
    s += "        if (" + s_last + " == 1 && oc + 8 <= " + e_last + " && (reinterpret_cast<unsigned long long>(kiln_to) & 15) == 0) {\n";
    s += "            *reinterpret_cast<uint4*>(kiln_to) = kiln_v;\n";
    s += "        } else {\n";
    s += "            const unsigned short* const kiln_h = reinterpret_cast<const unsigned short*>(&kiln_v);\n";
    s += "            for (int e = 0; e < 8; ++e)\n";
    s += "                if (oc + e < " + e_last + ") kiln_to[e * " + s_last + "] = kiln_h[e];\n";
    s += "        }\n";
    s += "    }\n";
    s += "    }\n";
    return s;
}

// Through registers: each quad of lanes holds 4 adjacent 8-column chunks of a row
// (2 columns of each a lane); with the pairs packed, a 4x4 transpose inside the quad
// (kg::quad_transpose: 4 shuffles) gives each lane one whole chunk, stored as 16
// bytes. The same 16-byte stores as staged_epilogue without its shared memory, so
// the query rows' memory is free once the last S = Q K^T has read it.
//
// The output value pairs of chunk group g of row half h, packed and transposed into
// kiln_w[4] (quad_epilogue; attention_quad_pack keeps them for the next tile).
std::string quad_words(FragmentValues& values, const passes::AttentionMatch& m) {
    const Node* v = m.stores[0]->operands.back();
    std::string s;
    s += "            unsigned kiln_w[4];\n";
    s += "#pragma unroll\n";
    s += "            for (int i = 0; i < 4; ++i) {\n";
    s += "                unsigned short kiln_pair[2];\n";
    s += "#pragma unroll\n";
    s += "                for (int e = 0; e < 2; ++e) {\n";
    s += "                    const int j = 4 * (g + i) + 2 * h + e;\n";
    s += "                    kiln_pair[e] = " + to_storage(v->type.kind, values.expr(v, Where::out)) + ";\n";
    s += "                }\n";
    s += "                kiln_w[i] = (unsigned)kiln_pair[0] | ((unsigned)kiln_pair[1] << 16);\n";
    s += "            }\n";
    s += "            kg::quad_transpose(kiln_w);\n";
    return s;
}

// The row's bounds (kiln_row_ok) for row half h, at the top of its loop.
std::string quad_row(const RowAccess& a) {
    return "        const long long r = kiln_R0 + kiln_wgc * 64 + kiln_warp * 16 + lane / 4 + 8 * h;\n"
           "        const bool kiln_row_ok = r < kiln_rows && " + a.ok + ";\n";
}

// Stores this lane's chunk of group g, its four words `word(0..3)`, whole where it can.
std::string quad_store_chunk(const RowAccess& a, const std::function<std::string(const std::string&)>& word) {
    const std::string e_last = a.array + "_e" + a.last, s_last = a.array + "_s" + a.last;
    std::string s;
    s += "            const long long oc = 8LL * (g + (lane & 3));\n";
    s += "            if (!kiln_row_ok) continue;\n";
    s += "            unsigned short* const kiln_to = " + a.array + " + (" + a.off + " + oc * " + s_last + ");\n";
    s += "            if (" + s_last + " == 1 && oc + 8 <= " + e_last + " && (reinterpret_cast<unsigned long long>(kiln_to) & 15) == 0) {\n";
    s += "                *reinterpret_cast<uint4*>(kiln_to) = make_uint4(" + word("0") + ", " + word("1") + ", " + word("2") + ", " + word("3") + ");\n";
    s += "            } else {\n";
    s += "#pragma unroll\n";  // (an index into kiln_w that is not a constant would put it in local memory)
    s += "                for (int e = 0; e < 8; ++e)\n";
    s += "                    if (oc + e < " + e_last + ") kiln_to[e * " + s_last + "] = (unsigned short)(" + word("e / 2") + " >> (16 * (e % 2)));\n";
    s += "            }\n";
    return s;
}

// The loops over row halves h and groups g of four 8-column chunks around `body`.
std::string quad_loops(const passes::AttentionMatch& m, const std::string& row, const std::string& body) {
    std::string s;
    s += "#pragma unroll\n";
    s += "    for (int h = 0; h < 2; ++h) {\n";
    s += row;
    s += "#pragma unroll\n";
    s += "        for (int g = 0; g < " + num(m.dv / 8) + "; g += 4) {\n";
    s += body;
    s += "        }\n";
    s += "    }\n";
    return s;
}

std::string quad_epilogue(FragmentValues& values, const passes::AttentionMatch& m) {
    const RowAccess a = row_access(values, m, m.stores[0]);
    return quad_loops(m, quad_row(a), quad_words(values, m) + quad_store_chunk(a, [](const std::string& i) { return "kiln_w[" + i + "]"; }));
}

}  // namespace

std::string attention_row_stores(FragmentValues& values, const passes::AttentionMatch& m) {
    if (m.row_stores.empty()) return "";
    std::string s;
    s += "    // Values per query row (a log-sum-exp, row statistics): one lane of each quad\n";
    s += "    // (the four hold a row's maximum and sum alike), each of its two rows.\n";
    s += "    if ((lane & 3) == 0) {\n";
    s += "#pragma unroll\n";
    s += "    for (int h = 0; h < 2; ++h) {\n";
    s += "        const long long r = kiln_R0 + kiln_wgc * 64 + kiln_warp * 16 + lane / 4 + 8 * h;\n";
    s += "        if (r >= kiln_rows) continue;\n";
    for (const Node* st : m.row_stores) {
        const int rank = ir::access_rank(*st);
        RowAccess a = row_access(values, m, st);  // every coordinate but the row's and the last
        if (passes::tile_dim(st->operands.back(), m.axis_rows) != rank - 1) {  // the last is a unit dim of its own ([rows, 1])
            const std::string c = "(long long)(" + values.expr(st->operands[static_cast<std::size_t>(rank - 1)], Where::cta) + ")";
            a.ok += " && " + c + " < " + a.array + "_e" + a.last;
            a.off += " + " + c + " * " + a.array + "_s" + a.last;
        }
        s += "        if (" + a.ok + ") " + a.array + "[" + a.off + "] = " + to_storage(st->operands.back()->type.kind, values.expr(st->operands.back(), Where::out)) +
             ";\n";
    }
    s += "    }\n";
    s += "    }\n";
    return s;
}

// kiln_out holds row half h's words from h * DV / 8 on, group g's at + g.
std::string attention_quad_pack(FragmentValues& values, const passes::AttentionMatch& m) {
    const std::string words = num(m.dv / 8);
    return quad_loops(m, "", quad_words(values, m) + "#pragma unroll\n            for (int i = 0; i < 4; ++i) kiln_out[h * " + words + " + g + i] = kiln_w[i];\n");
}

std::string attention_quad_store(FragmentValues& values, const passes::AttentionMatch& m) {
    const RowAccess a = row_access(values, m, m.stores[0]);
    const std::string words = num(m.dv / 8);
    return quad_loops(m, quad_row(a), quad_store_chunk(a, [&](const std::string& i) { return "kiln_out[h * " + words + " + g + " + i + "]"; }));
}

// The output fits the rows of Q's shared memory when it is one store of 16-bit
// elements whose DV columns are whole 64-column boxes, DV <= D.
bool attention_output_staged(const passes::AttentionMatch& m) {
    if (m.stores.size() != 1 || m.dv > m.d || m.dv % 64 != 0) return false;
    const Kind k = m.stores[0]->operands.back()->type.kind;
    return k == Kind::BF16 || k == Kind::F16;
}

bool attention_output_quads(const passes::AttentionMatch& m) {
    if (m.stores.size() != 1 || m.dv % 32 != 0) return false;
    const Kind k = m.stores[0]->operands.back()->type.kind;
    return k == Kind::BF16 || k == Kind::F16;
}

std::string attention_epilogue(FragmentValues& values, const passes::AttentionMatch& m, AttentionStores how) {
    switch (how) {
        case AttentionStores::quads: return quad_epilogue(values, m);
        case AttentionStores::staged: return staged_epilogue(values, m);
        case AttentionStores::direct: break;
    }
    return direct_epilogue(values, m);
}

}  // namespace kiln::cu
