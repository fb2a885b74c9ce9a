// mma: out[o] = acc[o] + sum over the contraction points k of a[..k..] * b[..k..].
//
// Ordered lowering (exact mode, allow_reassociation = false, and everything the
// tensor-core path does not take): the operands are staged in shared memory and
// each thread computes its own output elements as the contract pins it, in
// row-major k order with a rounding to the accumulator kind after each product
// and each sum (explicit _rn intrinsics: never contracted to FMA).
//
// Tensor cores (standard mode, allow_reassociation, f16/bf16 operands with f32
// accumulation, or f32 with allow_tf32): A[m, k] B[k, n] + C[m, n] with one
// contraction dim. The operands are written to shared memory in the layouts
// mma.sync reads (A row-major, B n-major, each row padded so that the fragment
// loads of a warp hit distinct banks; edges zero-filled to whole 16x8xK tiles);
// each warp computes 16x8 output tiles with mma.sync (m16n8k16, or m16n8k8 for
// tf32) and writes them back, and the result is redistributed from there.
#include "targets/cuda/emitter.h"

namespace kiln::cu {

namespace {

// The dim map (ops.def): [n_out, (a, b) per output dim, n_con, (a, b) per contraction dim].
struct DimMap {
    std::vector<std::int64_t> out_a, out_b, con_a, con_b;
    explicit DimMap(const std::vector<std::int64_t>& m) {
        auto n_out = static_cast<std::size_t>(m[0]);
        for (std::size_t d = 0; d < n_out; ++d) {
            out_a.push_back(m[1 + 2 * d]);
            out_b.push_back(m[2 + 2 * d]);
        }
        auto n_con = static_cast<std::size_t>(m[1 + 2 * n_out]);
        for (std::size_t c = 0; c < n_con; ++c) {
            con_a.push_back(m[2 + 2 * n_out + 2 * c]);
            con_b.push_back(m[3 + 2 * n_out + 2 * c]);
        }
    }
};

std::string sum_terms(const std::vector<std::string>& terms) {
    std::string s;
    for (const auto& t : terms)
        if (!t.empty()) s += (s.empty() ? "" : " + ") + t;
    return s.empty() ? "0" : s;
}
std::string term(const std::string& idx, std::int64_t stride) {
    if (idx == "0" || stride == 0) return "";
    return stride == 1 ? idx : idx + " * " + num(stride);
}

// acc + a * b for one contraction point, rounded as the contract says.
std::string ordered_step(Kind k, const std::string& acc, const std::string& a, const std::string& b) {
    switch (k) {
        case Kind::F64: return "__dadd_rn(" + acc + ", __dmul_rn(" + a + ", " + b + "))";
        case Kind::F32: return "__fadd_rn(" + acc + ", __fmul_rn(" + a + ", " + b + "))";
        case Kind::F16: return "kc::r16(__fadd_rn(" + acc + ", kc::r16(__fmul_rn(" + a + ", " + b + "))))";
        case Kind::BF16: return "kc::rb16(__fadd_rn(" + acc + ", kc::rb16(__fmul_rn(" + a + ", " + b + "))))";
        case Kind::I64: return "kc::add64(" + acc + ", kc::mul64(" + a + ", " + b + "))";
        case Kind::I32: return "kc::add32(" + acc + ", kc::mul32(" + a + ", " + b + "))";
        case Kind::I8: return "kc::w8((long long)" + acc + " + (long long)kc::w8((long long)" + a + " * (long long)" + b + "))";
        default: internal_fail("cuda: mma on bool");
    }
}

void ordered(Emitter& E, const Node& n, const DimMap& m) {
    const Node *a = n.operands[0], *b = n.operands[1], *acc = n.operands[2];
    const auto &ad = a->type.dims, &bd = b->type.dims, &od = n.type.dims;
    auto as = strides_of(ad), bs = strides_of(bd);
    std::vector<Dim> cdims;
    for (auto ca : m.con_a) cdims.push_back(ad[static_cast<std::size_t>(ca)]);
    std::int64_t con = 1;
    for (auto& d : cdims) con *= d.extent;
    E.begin_shared(n);
    std::string sa = E.stage(a), sb = E.stage(b);
    E.barrier();
    bool reassociate = !E.exact() && n.flag && is_float(n.type.kind) && (n.type.kind == Kind::F32 || n.type.kind == Kind::F64);
    E.each_element(&n, [&](const std::string& e, const std::string& dst) {
        std::vector<std::string> at_a, at_b, ca, cb;
        for (std::size_t d = 0; d < od.size(); ++d) {
            std::string idx = coord(e, od, d);
            if (m.out_a[d] >= 0) at_a.push_back(term(idx, as[static_cast<std::size_t>(m.out_a[d])]));
            if (m.out_b[d] >= 0) at_b.push_back(term(idx, bs[static_cast<std::size_t>(m.out_b[d])]));
        }
        for (std::size_t c = 0; c < cdims.size(); ++c) {
            std::string idx = coord("k", cdims, c);
            ca.push_back(term(idx, as[static_cast<std::size_t>(m.con_a[c])]));
            cb.push_back(term(idx, bs[static_cast<std::size_t>(m.con_b[c])]));
        }
        E.open("");
        E.line("const int ab = " + sum_terms(at_a) + ", bb = " + sum_terms(at_b) + ";");
        E.line(ctype(n.type.kind) + " r = " + E.at(acc) + ";");
        E.line("#pragma unroll 4");
        E.open("for (int k = 0; k < " + num(con) + "; ++k)");
        std::string x = sa + "[ab + " + sum_terms(ca) + "]", y = sb + "[bb + " + sum_terms(cb) + "]";
        // Standard mode may contract and reassociate f32/f64 (NVRTC --fmad=true).
        E.line(reassociate ? "r = r + " + x + " * " + y + ";" : "r = " + ordered_step(n.type.kind, "r", x, y) + ";");
        E.close();
        E.line(dst + " = r;");
        E.close();
    });
    E.note(n, std::string(reassociate ? "k-loop (FMA allowed)" : "ordered k-loop (contract order)") + ", one thread per output, operands in shared memory");
}

// Which tensor-core instruction applies, if any: "f16", "bf16", "tf32" or "".
std::string tensor_core_kind(const Emitter& E, const Node& n, const DimMap& m) {
    const Node *a = n.operands[0], *b = n.operands[1];
    if (E.exact() || !n.flag || E.options().sm < 80) return "";
    if (n.type.kind != Kind::F32 || n.type.rank() != 2 || a->type.rank() != 2 || b->type.rank() != 2) return "";
    if (m.con_a.size() != 1 || m.out_a[0] < 0 || m.out_b[0] >= 0 || m.out_a[1] >= 0 || m.out_b[1] < 0) return "";
    Kind in = a->type.kind;
    if (in == Kind::F16) return "f16";
    if (in == Kind::BF16) return "bf16";
    if (in == Kind::F32 && n.j) return "tf32";
    return "";
}

void tensor_cores(Emitter& E, const Node& n, const DimMap& m, const std::string& kind) {
    const Node *a = n.operands[0], *b = n.operands[1], *acc = n.operands[2];
    const auto &ad = a->type.dims, &bd = b->type.dims;
    auto am = static_cast<std::size_t>(m.out_a[0]), ak = static_cast<std::size_t>(m.con_a[0]);
    auto bn = static_cast<std::size_t>(m.out_b[1]), bk = static_cast<std::size_t>(m.con_b[0]);
    bool tf32 = kind == "tf32";
    std::int64_t M = ad[am].extent, N = bd[bn].extent, K = ad[ak].extent, kstep = tf32 ? 8 : 16;
    std::int64_t Mp = (M + 15) / 16 * 16, Np = (N + 7) / 8 * 8, Kp = (K + kstep - 1) / kstep * kstep;
    // Row pitch in elements: pad by 16 bytes so rows g = 0..7 of a fragment load
    // start in different banks.
    std::int64_t pitch = Kp + (tf32 ? 4 : 8);
    std::string et = tf32 ? "unsigned" : "unsigned short";
    int eb = tf32 ? 4 : 2;
    std::string conv = tf32 ? "kc::tf32" : kind == "f16" ? "kc::f2h" : "kc::f2b";

    E.begin_shared(n);
    std::string sa = E.shared_array(et, Mp * pitch, eb), sb = E.shared_array(et, Np * pitch, eb);
    std::string sc = E.shared_array("float", Mp * Np, 4);
    // Zero the padding (disjoint from the elements written next: one barrier suffices).
    if (M != Mp || K != Kp) {
        E.open("for (int q = tid; q < " + num(Mp * Kp) + "; q += " + num(E.threads()) + ")");
        E.line("const int r = q / " + num(Kp) + ", c = q % " + num(Kp) + ";");
        E.line("if (r >= " + num(M) + " || c >= " + num(K) + ") " + sa + "[r * " + num(pitch) + " + c] = 0;");
        E.close();
    }
    if (N != Np || K != Kp) {
        E.open("for (int q = tid; q < " + num(Np * Kp) + "; q += " + num(E.threads()) + ")");
        E.line("const int r = q / " + num(Kp) + ", c = q % " + num(Kp) + ";");
        E.line("if (r >= " + num(N) + " || c >= " + num(K) + ") " + sb + "[r * " + num(pitch) + " + c] = 0;");
        E.close();
    }
    E.each_owned(a, [&](const std::string& e, const std::string& v) {
        E.line(sa + "[" + coord(e, ad, am) + " * " + num(pitch) + " + " + coord(e, ad, ak) + "] = " + conv + "(" + v + ");");
    });
    E.each_owned(b, [&](const std::string& e, const std::string& v) {
        E.line(sb + "[" + coord(e, bd, bn) + " * " + num(pitch) + " + " + coord(e, bd, bk) + "] = " + conv + "(" + v + ");");
    });
    E.each_owned(acc, [&](const std::string& e, const std::string& v) {
        E.line(sc + "[" + coord(e, n.type.dims, 0) + " * " + num(Np) + " + " + coord(e, n.type.dims, 1) + "] = " + v + ";");
    });
    E.barrier();
    // Fragment coordinates (PTX ISA, mma.m16n8k16 / m16n8k8): g = lane / 4, t = lane % 4.
    std::int64_t warps = E.threads() / 32, tiles_n = Np / 8, tiles = (Mp / 16) * tiles_n;
    std::string kh = tf32 ? "4" : "8";    // the k offset of the second fragment half
    std::string kt = tf32 ? "t" : "2 * t";  // a thread's k within a half
    E.open("");
    E.line("const int warp = tid / 32, g = (tid % 32) / 4, t = tid % 4;");
    E.open("for (int tile = warp; tile < " + num(tiles) + "; tile += " + num(warps) + ")");
    E.line("const int m0 = (tile / " + num(tiles_n) + ") * 16, n0 = (tile % " + num(tiles_n) + ") * 8;");
    E.line("float* const c0 = " + sc + " + (m0 + g) * " + num(Np) + " + n0 + 2 * t;");
    E.line("float* const c1 = c0 + 8 * " + num(Np) + ";");
    E.line("float d[4] = {c0[0], c0[1], c1[0], c1[1]};");
    E.line("const " + et + "* const pa = " + sa + " + (m0 + g) * " + num(pitch) + " + " + kt + ";");
    E.line("const " + et + "* const pb = " + sb + " + (n0 + g) * " + num(pitch) + " + " + kt + ";");
    E.open("for (int k0 = 0; k0 < " + num(Kp) + "; k0 += " + num(kstep) + ")");
    auto word = [&](const std::string& base, const std::string& off) {
        return tf32 ? base + "[" + off + "]" : "*reinterpret_cast<const unsigned*>(" + base + " + " + off + ")";
    };
    std::string row8 = num(8 * pitch);
    E.line("const unsigned fa[4] = {" + word("pa", "k0") + ", " + word("pa", row8 + " + k0") + ", " + word("pa", "k0 + " + kh) + ", " +
           word("pa", row8 + " + k0 + " + kh) + "};");
    E.line("const unsigned fb[2] = {" + word("pb", "k0") + ", " + word("pb", "k0 + " + kh) + "};");
    E.line("kc::mma_" + kind + "(d, fa, fb);");
    E.close();
    E.line("c0[0] = d[0]; c0[1] = d[1]; c1[0] = d[2]; c1[1] = d[3];");
    E.close();
    E.close();
    E.barrier();
    E.each_element(&n, [&](const std::string& e, const std::string& dst) {
        E.line(dst + " = " + sc + "[" + coord(e, n.type.dims, 0) + " * " + num(Np) + " + " + coord(e, n.type.dims, 1) + "];");
    });
    E.count_tensor_core_op();
    E.note(n, "tensor cores: mma.sync " + std::string(tf32 ? "m16n8k8 tf32" : "m16n8k16 " + kind) + " -> f32, " + num(tiles) +
                  " tiles of 16x8 over " + num(warps) + " warps, operands staged in shared memory in fragment order");
}

}  // namespace

void emit_mma(Emitter& E, const Node& n) {
    DimMap m(n.ints);
    std::string tc = tensor_core_kind(E, n, m);
    if (!tc.empty()) tensor_cores(E, n, m, tc);
    else ordered(E, n, m);
}

}  // namespace kiln::cu
