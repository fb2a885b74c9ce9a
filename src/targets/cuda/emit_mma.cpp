// mma: out[o] = acc[o] + sum over the contraction points k of a[..k..] * b[..k..].
//
// Ordered lowering (exact mode, allow_reassociation = false, and everything the
// tensor-core path does not take): the operands are staged in shared memory and
// each thread computes its own output elements as the contract pins it, in
// row-major k order with a rounding to the accumulator kind after each product
// and each sum (explicit _rn intrinsics: never contracted to FMA).
//
// Tensor cores: A[m, k] B[k, n] + C[m, n] with one contraction dim, for i8 operands
// with i32 accumulation in either mode (exact: see tensor_core_op), and in standard
// mode with allow_reassociation for f16/bf16 operands with f32 accumulation and for
// f32 with allow_tf32. The operands are written to shared memory in the layouts
// mma.sync reads (A row-major, B n-major, each row padded so that the fragment
// loads of a warp hit distinct banks; edges zero-filled to whole 16x8 tiles and
// whole k steps); each warp computes 16x8 output tiles with mma.sync (m16n8k32 for
// s8, m16n8k16 for f16/bf16, m16n8k8 for tf32: fragments in emit_mma_fragments.h)
// and writes them back, and the result is redistributed from there.
#include <functional>
#include <optional>

#include "targets/cuda/emit_mma_fragments.h"
#include "targets/cuda/emitter.h"

namespace kiln::cu {

namespace {

using DimMap = ir::MmaDims;

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
    for (auto c : m.contract) cdims.push_back(ad[static_cast<std::size_t>(c.a)]);
    std::int64_t con = 1;
    for (auto& d : cdims) con *= d.extent;
    E.begin_shared(n);
    std::string sa = E.stage(a), sb = E.stage(b);
    E.barrier();
    bool reassociate = !E.exact() && ir::mma_options(n).allow_reassociation && is_float(n.type.kind) && (n.type.kind == Kind::F32 || n.type.kind == Kind::F64);
    E.each_element(&n, [&](const std::string& e, const std::string& dst) {
        std::vector<std::string> at_a, at_b, ca, cb;
        for (std::size_t d = 0; d < od.size(); ++d) {
            std::string idx = coord(e, od, d);
            if (m.out[d].a >= 0) at_a.push_back(term(idx, as[static_cast<std::size_t>(m.out[d].a)]));
            if (m.out[d].b >= 0) at_b.push_back(term(idx, bs[static_cast<std::size_t>(m.out[d].b)]));
        }
        for (std::size_t c = 0; c < cdims.size(); ++c) {
            std::string idx = coord("k", cdims, c);
            ca.push_back(term(idx, as[static_cast<std::size_t>(m.contract[c].a)]));
            cb.push_back(term(idx, bs[static_cast<std::size_t>(m.contract[c].b)]));
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

// A tensor-core instruction: mma.sync.aligned.<shape>.row.col.<acc>.<in>.<in>.<acc>,
// called through the prelude's kc::mma_<name>.
struct TensorCoreOp {
    std::string name;     // kc::mma_<name>: "f16", "bf16", "tf32", "s8"
    std::string shape;    // "m16n8k16"
    std::string storage;  // the element type of A and B in shared memory
    int bytes = 0;        // its size
    std::string convert;  // register value -> storage
    Kind acc = Kind::F32; // F32 or I32
};

// The instruction of the contraction pass's choice (passes/contraction.cpp says
// when each is exact or allowed).
TensorCoreOp tensor_core_op(passes::TensorCoreShape shape) {
    switch (shape) {
        case passes::TensorCoreShape::s8_m16n8k32: return TensorCoreOp{"s8", "m16n8k32", "signed char", 1, "(signed char)", Kind::I32};
        case passes::TensorCoreShape::f16_m16n8k16: return TensorCoreOp{"f16", "m16n8k16", "unsigned short", 2, "kc::f2h", Kind::F32};
        case passes::TensorCoreShape::bf16_m16n8k16: return TensorCoreOp{"bf16", "m16n8k16", "unsigned short", 2, "kc::f2b", Kind::F32};
        case passes::TensorCoreShape::tf32_m16n8k8: return TensorCoreOp{"tf32", "m16n8k8", "unsigned", 4, "kc::tf32", Kind::F32};
        case passes::TensorCoreShape::none: break;
    }
    internal_fail("cuda: no tensor-core instruction for this mma");
}

void tensor_cores(Emitter& E, const Node& n, const DimMap& m, const TensorCoreOp& op) {
    namespace fr = mma_fragment;
    const Node *a = n.operands[0], *b = n.operands[1], *acc = n.operands[2];
    const auto &ad = a->type.dims, &bd = b->type.dims;
    auto am = static_cast<std::size_t>(m.out[0].a), ak = static_cast<std::size_t>(m.contract[0].a);
    auto bn = static_cast<std::size_t>(m.out[1].b), bk = static_cast<std::size_t>(m.contract[0].b);
    const int eb = op.bytes;
    const std::int64_t kstep = fr::kStepBytes / eb;
    std::int64_t M = ad[am].extent, N = bd[bn].extent, K = ad[ak].extent;
    std::int64_t Mp = (M + fr::kTileM - 1) / fr::kTileM * fr::kTileM, Np = (N + fr::kTileN - 1) / fr::kTileN * fr::kTileN;
    std::int64_t Kp = (K + kstep - 1) / kstep * kstep;
    std::int64_t pitch = fr::staged_pitch(Kp, eb);
    std::string ct = ctype(op.acc);

    E.begin_shared(n);
    std::string sa = E.shared_array(op.storage, Mp * pitch, eb), sb = E.shared_array(op.storage, Np * pitch, eb);
    std::string sc = E.shared_array(ct, Mp * Np, 4);
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
        E.line(sa + "[" + coord(e, ad, am) + " * " + num(pitch) + " + " + coord(e, ad, ak) + "] = " + op.convert + "(" + v + ");");
    });
    E.each_owned(b, [&](const std::string& e, const std::string& v) {
        E.line(sb + "[" + coord(e, bd, bn) + " * " + num(pitch) + " + " + coord(e, bd, bk) + "] = " + op.convert + "(" + v + ");");
    });
    E.each_owned(acc, [&](const std::string& e, const std::string& v) {
        E.line(sc + "[" + coord(e, n.type.dims, 0) + " * " + num(Np) + " + " + coord(e, n.type.dims, 1) + "] = " + v + ";");
    });
    E.barrier();
    // Each warp takes 16x8 tiles of the output in turn; the fragments are the
    // words emit_mma_fragments.h names, read from each lane's start (row g, byte 4t).
    std::int64_t warps = E.threads() / 32, tiles_n = Np / fr::kTileN, tiles = (Mp / fr::kTileM) * tiles_n;
    auto list = [](int count, const std::function<std::string(int)>& item) {
        std::string s;
        for (int i = 0; i < count; ++i) s += (i ? ", " : "") + item(i);
        return s;
    };
    auto word = [&](const std::string& base, std::int64_t offset) {
        return "*reinterpret_cast<const unsigned*>(" + base + " + k0 + " + num(offset) + ")";
    };
    E.open("");
    E.line("const int warp = tid / 32, g = (tid % 32) / 4, t = tid % 4;");
    E.open("for (int tile = warp; tile < " + num(tiles) + "; tile += " + num(warps) + ")");
    E.line("const int m0 = (tile / " + num(tiles_n) + ") * " + num(fr::kTileM) + ", n0 = (tile % " + num(tiles_n) + ") * " +
           num(fr::kTileN) + ";");
    E.line(ct + "* const pc = " + sc + " + (m0 + g) * " + num(Np) + " + n0 + " + num(fr::kCColsPerLane) + " * t;");
    E.line(ct + " d[" + num(fr::kCRegisters) + "] = {" + list(fr::kCRegisters, [&](int i) { return "pc[" + num(fr::c_offset(i, Np)) + "]"; }) +
           "};");
    std::string lane_k = num(fr::kWordBytes / eb) + " * t";
    E.line("const " + op.storage + "* const pa = " + sa + " + (m0 + g) * " + num(pitch) + " + " + lane_k + ";");
    E.line("const " + op.storage + "* const pb = " + sb + " + (n0 + g) * " + num(pitch) + " + " + lane_k + ";");
    E.open("for (int k0 = 0; k0 < " + num(Kp) + "; k0 += " + num(kstep) + ")");
    E.line("const unsigned fa[" + num(fr::kARegisters) + "] = {" +
           list(fr::kARegisters, [&](int r) { return word("pa", fr::a_offset(r, pitch, eb)); }) + "};");
    E.line("const unsigned fb[" + num(fr::kBRegisters) + "] = {" + list(fr::kBRegisters, [&](int r) { return word("pb", fr::b_offset(r, eb)); }) +
           "};");
    E.line("kc::mma_" + op.name + "(d, fa, fb);");
    E.close();
    for (int i = 0; i < fr::kCRegisters; ++i) E.line("pc[" + num(fr::c_offset(i, Np)) + "] = d[" + num(i) + "];");
    E.close();
    E.close();
    E.barrier();
    E.each_element(&n, [&](const std::string& e, const std::string& dst) {
        E.line(dst + " = " + sc + "[" + coord(e, n.type.dims, 0) + " * " + num(Np) + " + " + coord(e, n.type.dims, 1) + "];");
    });
    E.count_tensor_core_op();
    std::string kinds = op.name == "s8" ? "s8 -> s32 (exact: integer sums wrap at 32 bits in any order)" : op.name + " -> f32";
    E.note(n, "tensor cores: mma.sync " + op.shape + " " + kinds + ", " + num(tiles) + " tiles of 16x8 over " + num(warps) +
                  " warps, operands staged in shared memory in fragment order");
}

}  // namespace

void emit_mma(Emitter& E, const Node& n) {
    DimMap m = ir::mma_dims(n);
    const passes::MmaPlan& plan = E.lowered().contractions.of(n);
    if (plan.shape != passes::TensorCoreShape::none) tensor_cores(E, n, m, tensor_core_op(plan.shape));
    else ordered(E, n, m);
}

}  // namespace kiln::cu
