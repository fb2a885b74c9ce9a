// FlashAttention forward kernels written the way different users write them (a sweep
// of 72 spellings: block sizes, causal and window masks, scales, online-softmax forms,
// extra parameters, layouts, output kinds), kept as the users wrote them.
// attention_variants_test.cpp says, for each, whether the cuda target takes it to the
// Hopper FlashAttention kernel (passes/attention_match.h) or why not, and checks each
// on the cpu target against the interpreter and, on a device, on cuda.
// Each function returns a new kiln::Kernel; each kernel's name is its function's.
// (tests/unit/attention_variants.h holds other forms, shared with the matcher tests.)
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include <kiln/kiln.h>

namespace kiln::variants::attention {

inline constexpr float NEG_INF = -std::numeric_limits<float>::infinity();
inline constexpr float LOG2E = 1.4426950408889634f;

// ================================================================ first batch

// ---------------------------------------------------------------- user A: a template over tile sizes
// Plain non-causal FA2 forward; scale applied to the scores; key tail masked; -inf init.
template <std::int64_t BQ, std::int64_t BK, bool CAUSAL>
inline Kernel fa_blocks(const char* name) {
    return kernel(name, [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> o) {
        auto SQ = q.extent<2>(), SK = k.extent<2>();
        auto gb = axis("b", q.extent<0>()), gh = axis("h", q.extent<1>()), gq = axis("qb", ceil_div(SQ, BQ));
        auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());
        const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
        for (auto& p : parallel(shape(gb, gh, gq))) {
            auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
            auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
            auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);
            auto l_i = zeros<f32>(shape(ub, uh, M));
            auto acc = zeros<f32>(shape(ub, uh, M, D));
            auto nblocks = ceil_div(SK, BK);
            auto kb = CAUSAL ? axis("kb", min((m0 + BQ + BK - 1) / BK, nblocks)) : axis("kb", nblocks);
            for (auto& st : p.pipeline(shape(kb), {.window = 2})) {
                auto n0 = st.index() * BK;
                auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
                auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
                auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
                auto keep = iota(N) + n0 < SK;
                if (CAUSAL) keep = keep && (iota(N) + n0 <= iota(M) + m0);
                s = ite(keep, s, NEG_INF);
                auto m_new = max(m_i, reduce(s, N, maximum));
                auto pr = exp(s - m_new);
                auto alpha = exp(m_i - m_new);
                l_i = l_i * alpha + reduce(pr, N, add);
                acc = mma(cast<bf16>(pr), vt, acc * alpha);
                m_i = m_new;
            }
            o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
        }
    });
}

// fa_blocks: 128 queries x 64 keys a block.
inline Kernel fa_q128_k64() { return fa_blocks<128, 64, false>("fa_q128_k64"); }
// fa_blocks: 64 queries x 64 keys.
inline Kernel fa_q64_k64() { return fa_blocks<64, 64, false>("fa_q64_k64"); }
// fa_blocks: 128 queries x 128 keys.
inline Kernel fa_q128_k128() { return fa_blocks<128, 128, false>("fa_q128_k128"); }
// fa_blocks: 128 queries x 32 keys.
inline Kernel fa_q128_k32() { return fa_blocks<128, 32, false>("fa_q128_k32"); }
// fa_blocks: 64 queries x 32 keys.
inline Kernel fa_q64_k32() { return fa_blocks<64, 32, false>("fa_q64_k32"); }
// fa_blocks: 64 queries x 128 keys.
inline Kernel fa_q64_k128() { return fa_blocks<64, 128, false>("fa_q64_k128"); }
// fa_blocks, causal (mask and trip count): 128 x 64.
inline Kernel fa_causal_q128_k64() { return fa_blocks<128, 64, true>("fa_causal_q128_k64"); }
// fa_blocks, causal: 64 x 64.
inline Kernel fa_causal_q64_k64() { return fa_blocks<64, 64, true>("fa_causal_q64_k64"); }
// fa_blocks, causal: 128 x 128.
inline Kernel fa_causal_q128_k128() { return fa_blocks<128, 128, true>("fa_causal_q128_k128"); }
// fa_blocks, causal: 128 x 32.
inline Kernel fa_causal_q128_k32() { return fa_blocks<128, 32, true>("fa_causal_q128_k32"); }

// ---------------------------------------------------------------- user B: one configurable body
// Each flag is one change a user makes to a plain FA2 forward (q128 x k64, bf16 unless stated).
namespace user_b {
enum Flags : unsigned {
    SCALE_Q_BF16 = 1u << 0,    // q * scale in bf16 before the product
    SCALE_Q_F32 = 1u << 1,     // bf16(f32(q) * scale) before the product
    SCALE_IN_EXP = 1u << 2,    // raw scores; exp((s - m) * scale)
    SCALE_IN_EXP2 = 1u << 3,   // raw scores; pow(2, (s - m) * scale * log2 e)
    CAUSAL_BIAS = 1u << 4,     // causal as an additive 0/-inf bias, trip count skipped
    CAUSAL_NOSKIP = 1u << 5,   // causal by ite, loop over every key block
    SOFTCAP = 1u << 6,         // 50 * tanh(s / 50)
    RESCALE_ALT = 1u << 7,     // acc * alpha + P V (fresh accumulator), m = max(block max, m_old)
    RESCALE_ALT2 = 1u << 8,    // alpha * acc operand order, l = sum + l * alpha, alpha = 1 / exp(m_new - m_old)
    NORM_RECIP = 1u << 9,      // out = acc * (1 / l)
    SERIAL = 1u << 10,         // nest.serial instead of nest.pipeline
    NO_TAIL_MASK = 1u << 11,   // no key-tail mask (user assumes keys % 64 == 0)
    FINITE_INIT = 1u << 12,    // row max starts at -1e30 (older FA code)
    CAUSAL_ITE = 1u << 13,     // causal by ite, trip count skipped (reference style)
    MASK_FINITE = 1u << 14,    // masked scores set to -1e30 instead of -inf (HF masked_fill(finfo.min) style)
    CAUSAL_WHERE_NOT = 1u << 15,  // causal written as ite(key > query, -inf, s)
};

template <class T, unsigned F>
inline Kernel fa_flags(const char* name) {
    return kernel(name, [](View<const T, 4> q, View<const T, 4> k, View<const T, 4> v, View<T, 4> o) {
        constexpr std::int64_t BQ = 128, BK = 64;
        auto SQ = q.extent(2), SK = k.extent(2);
        auto gb = axis("batch", q.extent(0)), gh = axis("head", q.extent(1)), gq = axis("qblk", ceil_div(SQ, BQ));
        auto ub = axis("b1", 1), uh = axis("h1", 1), M = axis("rows", BQ), N = axis("cols", BK);
        auto D = axis("dim", q.extent(3)), DV = axis("vdim", v.extent(3));
        const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent(3)));
        const float masked_value = (F & MASK_FINITE) ? -1e30f : NEG_INF;
        for (auto& p : parallel(shape(gb, gh, gq))) {
            auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
            auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
            if constexpr ((F & SCALE_Q_BF16) != 0) qt = qt * scale;
            if constexpr ((F & SCALE_Q_F32) != 0) qt = cast<T>(cast<f32>(qt) * scale);
            auto m_i = full<f32>(shape(ub, uh, M), (F & FINITE_INIT) ? -1e30f : NEG_INF);
            auto l_i = zeros<f32>(shape(ub, uh, M));
            auto acc = zeros<f32>(shape(ub, uh, M, DV));
            constexpr bool skip = (F & (CAUSAL_BIAS | CAUSAL_ITE | CAUSAL_WHERE_NOT)) != 0;
            auto kb = skip ? axis("kblk", min((m0 + BQ + BK - 1) / BK, ceil_div(SK, BK))) : axis("kblk", ceil_div(SK, BK));
            auto body = [&](auto& st) {
                auto n0 = st.index() * BK;
                auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
                auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, DV)];
                auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N)));
                if constexpr ((F & (SCALE_Q_BF16 | SCALE_Q_F32 | SCALE_IN_EXP | SCALE_IN_EXP2)) == 0) s = s * scale;
                if constexpr ((F & SOFTCAP) != 0) s = tanh(s / 50.0f) * 50.0f;
                auto key = iota(N) + n0;
                auto qry = iota(M) + m0;
                if constexpr ((F & NO_TAIL_MASK) == 0) s = ite(key < SK, s, masked_value);
                if constexpr ((F & (CAUSAL_ITE | CAUSAL_NOSKIP)) != 0) s = ite(key <= qry, s, masked_value);
                if constexpr ((F & CAUSAL_WHERE_NOT) != 0) s = ite(key > qry, masked_value, s);
                if constexpr ((F & CAUSAL_BIAS) != 0) {
                    auto bias = ite(key <= qry, zeros<f32>(shape(M, N)), full<f32>(shape(M, N), NEG_INF));
                    s = s + bias;
                }
                Tile<f32> m_new = ((F & RESCALE_ALT) != 0) ? max(reduce(s, N, maximum), m_i) : max(m_i, reduce(s, N, maximum));
                Tile<f32> alpha = [&] {
                    if constexpr ((F & SCALE_IN_EXP) != 0) return exp((m_i - m_new) * scale);
                    else if constexpr ((F & SCALE_IN_EXP2) != 0) return pow(2.0f, (m_i - m_new) * (scale * LOG2E));
                    else if constexpr ((F & RESCALE_ALT2) != 0) return 1.0f / exp(m_new - m_i);
                    else return exp(m_i - m_new);
                }();
                Tile<f32> pr = [&] {
                    if constexpr ((F & SCALE_IN_EXP) != 0) return exp((s - m_new) * scale);
                    else if constexpr ((F & SCALE_IN_EXP2) != 0) return pow(2.0f, (s - m_new) * (scale * LOG2E));
                    else return exp(s - m_new);
                }();
                if constexpr ((F & RESCALE_ALT) != 0) {
                    acc = acc * alpha + mma(cast<T>(pr), vt, zeros<f32>(shape(ub, uh, M, DV)));
                    l_i = alpha * l_i + reduce(pr, N, add);
                } else if constexpr ((F & RESCALE_ALT2) != 0) {
                    acc = mma(cast<T>(pr), vt, alpha * acc);
                    l_i = reduce(pr, N, add) + l_i * alpha;
                } else {
                    l_i = l_i * alpha + reduce(pr, N, add);
                    acc = mma(cast<T>(pr), vt, acc * alpha);
                }
                m_i = m_new;
            };
            if constexpr ((F & SERIAL) != 0) {
                for (auto& st : p.serial(shape(kb))) body(st);
            } else {
                for (auto& st : p.pipeline(shape(kb), {.window = 2})) body(st);
            }
            auto out = ((F & NORM_RECIP) != 0) ? acc * (1.0f / l_i) : acc / l_i;
            o(coord(b, h, m0, 0), shape(ub, uh, M, DV)).store(cast<T>(out));
        }
    });
}

}  // namespace user_b

// fa_flags: q scaled in bf16 before the score product.
inline Kernel fa_scale_q_bf16() { using namespace user_b; return fa_flags<bf16, SCALE_Q_BF16>("fa_scale_q_bf16"); }
// fa_flags: q scaled in f32 and rounded to bf16 before the product.
inline Kernel fa_scale_q_f32() { using namespace user_b; return fa_flags<bf16, SCALE_Q_F32>("fa_scale_q_f32"); }
// fa_flags: raw scores, the scale inside both exponents.
inline Kernel fa_scale_in_exp() { using namespace user_b; return fa_flags<bf16, SCALE_IN_EXP>("fa_scale_in_exp"); }
// fa_flags: raw scores, pow(2, x * scale * log2 e) for exp.
inline Kernel fa_scale_in_exp2() { using namespace user_b; return fa_flags<bf16, SCALE_IN_EXP2>("fa_scale_in_exp2"); }
// fa_flags: causal by ite(key <= query), trip count cut.
inline Kernel fa_causal_ite() { using namespace user_b; return fa_flags<bf16, CAUSAL_ITE>("fa_causal_ite"); }
// fa_flags: causal by ite(key > query, -inf, s).
inline Kernel fa_causal_where_not() { using namespace user_b; return fa_flags<bf16, CAUSAL_WHERE_NOT>("fa_causal_where_not"); }
// fa_flags: causal as an additive 0 / -inf bias tile.
inline Kernel fa_causal_bias() { using namespace user_b; return fa_flags<bf16, CAUSAL_BIAS>("fa_causal_bias"); }
// fa_flags: causal by ite, every key block visited.
inline Kernel fa_causal_noskip() { using namespace user_b; return fa_flags<bf16, CAUSAL_NOSKIP>("fa_causal_noskip"); }
// fa_flags: causal by ite with the exp2 spelling.
inline Kernel fa_causal_exp2() { using namespace user_b; return fa_flags<bf16, CAUSAL_ITE | SCALE_IN_EXP2>("fa_causal_exp2"); }
// fa_flags: Gemma-style soft cap 50 tanh(s / 50).
inline Kernel fa_softcap() { using namespace user_b; return fa_flags<bf16, SOFTCAP>("fa_softcap"); }
// fa_flags: acc * alpha + P V from zeros, max(block max, m).
inline Kernel fa_rescale_alt() { using namespace user_b; return fa_flags<bf16, RESCALE_ALT>("fa_rescale_alt"); }
// fa_flags: alpha = 1 / exp(m' - m), alpha * acc, l = sum + l * alpha.
inline Kernel fa_rescale_alt2() { using namespace user_b; return fa_flags<bf16, RESCALE_ALT2>("fa_rescale_alt2"); }
// fa_flags: output acc * (1 / l).
inline Kernel fa_norm_recip() { using namespace user_b; return fa_flags<bf16, NORM_RECIP>("fa_norm_recip"); }
// fa_flags: the key loop a serial nest, not a pipeline.
inline Kernel fa_serial() { using namespace user_b; return fa_flags<bf16, SERIAL>("fa_serial"); }
// fa_flags: no key-tail mask (keys assumed a multiple of 64).
inline Kernel fa_no_tail_mask() { using namespace user_b; return fa_flags<bf16, NO_TAIL_MASK>("fa_no_tail_mask"); }
// fa_flags: the row maximum starts at -1e30.
inline Kernel fa_finite_init() { using namespace user_b; return fa_flags<bf16, FINITE_INIT>("fa_finite_init"); }
// fa_flags: causal, masked scores -1e30 and the maximum from -1e30.
inline Kernel fa_mask_finite() { using namespace user_b; return fa_flags<bf16, MASK_FINITE | FINITE_INIT | CAUSAL_ITE>("fa_mask_finite"); }
// fa_flags: f16 operands and output.
inline Kernel fa_f16() { using namespace user_b; return fa_flags<f16, 0>("fa_f16"); }
// fa_flags: f16, causal by ite.
inline Kernel fa_f16_causal() { using namespace user_b; return fa_flags<f16, CAUSAL_ITE>("fa_f16_causal"); }

// ---------------------------------------------------------------- user C: extra parameters and layouts
// Causal, bottom-right aligned (q_len <= k_len: the last query sees every key).
inline Kernel fa_causal_offset() { return kernel("fa_causal_offset", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v,
                                                        View<bf16, 4> o) {
    constexpr std::int64_t BQ = 128, BK = 64;
    auto SQ = q.extent<2>(), SK = k.extent<2>();
    auto gb = axis("b", q.extent<0>()), gh = axis("h", q.extent<1>()), gq = axis("qb", ceil_div(SQ, BQ));
    auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto shift = SK - SQ;  // query i sees keys <= i + shift
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);
        auto l_i = zeros<f32>(shape(ub, uh, M));
        auto acc = zeros<f32>(shape(ub, uh, M, D));
        auto kb = axis("kb", min((m0 + shift + BQ + BK - 1) / BK, ceil_div(SK, BK)));
        for (auto& st : p.pipeline(shape(kb), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            s = ite((iota(N) + n0 < SK) && (iota(N) + n0 <= iota(M) + m0 + shift), s, NEG_INF);
            auto m_new = max(m_i, reduce(s, N, maximum));
            auto pr = exp(s - m_new);
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce(pr, N, add);
            acc = mma(cast<bf16>(pr), vt, acc * alpha);
            m_i = m_new;
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// Sliding window (Mistral-style local causal attention, window 1024): only the key blocks
// that overlap [q - W + 1, q] are visited.
inline Kernel fa_window() { return kernel("fa_window", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> o) {
    constexpr std::int64_t BQ = 128, BK = 64, W = 1024;
    auto SQ = q.extent<2>(), SK = k.extent<2>();
    auto gb = axis("b", q.extent<0>()), gh = axis("h", q.extent<1>()), gq = axis("qb", ceil_div(SQ, BQ));
    auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);
        auto l_i = zeros<f32>(shape(ub, uh, M));
        auto acc = zeros<f32>(shape(ub, uh, M, D));
        auto lo = max(m0 - (W - 1), 0) / BK;
        auto hi = min((m0 + BQ + BK - 1) / BK, ceil_div(SK, BK));
        for (auto& st : p.pipeline(shape(axis("kb", hi - lo)), {.window = 2})) {
            auto n0 = (lo + st.index()) * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            auto key = iota(N) + n0, qry = iota(M) + m0;
            s = ite((key < SK) && (key <= qry) && (key > qry - W), s, NEG_INF);
            auto m_new = max(m_i, reduce(s, N, maximum));
            auto pr = exp(s - m_new);
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce(pr, N, add);
            acc = mma(cast<bf16>(pr), vt, acc * alpha);
            m_i = m_new;
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// ALiBi: a per-head slope vector; scores += slope[h] * (key - query); causal.
inline Kernel fa_alibi() { return kernel("fa_alibi", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v,
                                        View<const f32, 1> slopes, View<bf16, 4> o) {
    constexpr std::int64_t BQ = 128, BK = 64;
    auto SQ = q.extent<2>(), SK = k.extent<2>();
    auto gb = axis("b", q.extent<0>()), gh = axis("h", q.extent<1>()), gq = axis("qb", ceil_div(SQ, BQ));
    auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        auto slope = slopes[coord(h), shape(uh)];
        auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);
        auto l_i = zeros<f32>(shape(ub, uh, M));
        auto acc = zeros<f32>(shape(ub, uh, M, D));
        auto kb = axis("kb", min((m0 + BQ + BK - 1) / BK, ceil_div(SK, BK)));
        for (auto& st : p.pipeline(shape(kb), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto key = iota(N) + n0, qry = iota(M) + m0;
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale + slope * cast<f32>(key - qry);
            s = ite((key < SK) && (key <= qry), s, NEG_INF);
            auto m_new = max(m_i, reduce(s, N, maximum));
            auto pr = exp(s - m_new);
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce(pr, N, add);
            acc = mma(cast<bf16>(pr), vt, acc * alpha);
            m_i = m_new;
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// Key padding: key_len[b] valid keys per batch (i32), the rest masked.
inline Kernel fa_padmask() { return kernel("fa_padmask", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v,
                                            View<const i32, 1> key_len, View<bf16, 4> o) {
    constexpr std::int64_t BQ = 128, BK = 64;
    auto SQ = q.extent<2>(), SK = k.extent<2>();
    auto gb = axis("b", q.extent<0>()), gh = axis("h", q.extent<1>()), gq = axis("qb", ceil_div(SQ, BQ));
    auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        auto len = cast<i64>(key_len[coord(b), shape(ub)]);
        auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);
        auto l_i = zeros<f32>(shape(ub, uh, M));
        auto acc = zeros<f32>(shape(ub, uh, M, D));
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            auto key = iota(N) + n0;
            s = ite((key < SK) && (key < len), s, NEG_INF);
            auto m_new = max(m_i, reduce(s, N, maximum));
            auto pr = exp(s - m_new);
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce(pr, N, add);
            acc = mma(cast<bf16>(pr), vt, acc * alpha);
            m_i = m_new;
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// GQA: kv heads = k.extent(1); query head h reads kv head h / (H / Hkv).
inline Kernel fa_gqa() { return kernel("fa_gqa", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> o) {
    constexpr std::int64_t BQ = 128, BK = 64;
    auto SQ = q.extent<2>(), SK = k.extent<2>();
    auto gb = axis("b", q.extent<0>()), gh = axis("h", q.extent<1>()), gq = axis("qb", ceil_div(SQ, BQ));
    auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto hk = h / (q.extent<1>() / k.extent<1>());
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);
        auto l_i = zeros<f32>(shape(ub, uh, M));
        auto acc = zeros<f32>(shape(ub, uh, M, D));
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, hk, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, hk, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            auto m_new = max(m_i, reduce(s, N, maximum));
            auto pr = exp(s - m_new);
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce(pr, N, add);
            acc = mma(cast<bf16>(pr), vt, acc * alpha);
            m_i = m_new;
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// f32 output and the log-sum-exp per row (for the backward pass).
inline Kernel fa_out_f32_lse() { return kernel("fa_out_f32_lse", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v,
                                                    View<f32, 4> o, View<f32, 3> lse) {
    constexpr std::int64_t BQ = 128, BK = 64;
    auto SQ = q.extent<2>(), SK = k.extent<2>();
    auto gb = axis("b", q.extent<0>()), gh = axis("h", q.extent<1>()), gq = axis("qb", ceil_div(SQ, BQ));
    auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);
        auto l_i = zeros<f32>(shape(ub, uh, M));
        auto acc = zeros<f32>(shape(ub, uh, M, D));
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            auto m_new = max(m_i, reduce(s, N, maximum));
            auto pr = exp(s - m_new);
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce(pr, N, add);
            acc = mma(cast<bf16>(pr), vt, acc * alpha);
            m_i = m_new;
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(acc / l_i);
        lse(coord(b, h, m0), shape(ub, uh, M)).store(m_i + log(l_i));
    }
}); }

// f32 output only (no lse).
inline Kernel fa_out_f32() { return kernel("fa_out_f32", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<f32, 4> o) {
    constexpr std::int64_t BQ = 128, BK = 64;
    auto SQ = q.extent<2>(), SK = k.extent<2>();
    auto gb = axis("b", q.extent<0>()), gh = axis("h", q.extent<1>()), gq = axis("qb", ceil_div(SQ, BQ));
    auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);
        auto l_i = zeros<f32>(shape(ub, uh, M));
        auto acc = zeros<f32>(shape(ub, uh, M, D));
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            auto m_new = max(m_i, reduce(s, N, maximum));
            auto pr = exp(s - m_new);
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce(pr, N, add);
            acc = mma(cast<bf16>(pr), vt, acc * alpha);
            m_i = m_new;
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(acc / l_i);
    }
}); }

// bf16 output plus lse (the usual forward-for-training signature).
inline Kernel fa_lse() { return kernel("fa_lse", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> o,
                                    View<f32, 3> lse) {
    constexpr std::int64_t BQ = 128, BK = 64;
    auto SQ = q.extent<2>(), SK = k.extent<2>();
    auto gb = axis("b", q.extent<0>()), gh = axis("h", q.extent<1>()), gq = axis("qb", ceil_div(SQ, BQ));
    auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);
        auto l_i = zeros<f32>(shape(ub, uh, M));
        auto acc = zeros<f32>(shape(ub, uh, M, D));
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            auto m_new = max(m_i, reduce(s, N, maximum));
            auto pr = exp(s - m_new);
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce(pr, N, add);
            acc = mma(cast<bf16>(pr), vt, acc * alpha);
            m_i = m_new;
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
        lse(coord(b, h, m0), shape(ub, uh, M)).store(m_i + log(l_i));
    }
}); }

// Triton's FlashAttention tutorial as ported: the grid (query blocks, batch * heads),
// the query block first, the batch and head split from one index (off_hz / H,
// off_hz % H) over 4-D views.
inline Kernel fa_triton_grid() { return kernel("fa_triton_grid", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> o) {
    constexpr std::int64_t BQ = 128, BK = 64;
    auto H = q.extent<1>(), SQ = q.extent<2>(), SK = k.extent<2>();
    auto gq = axis("start_m", ceil_div(SQ, BQ)), ghz = axis("off_hz", q.extent<0>() * H);
    auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gq, ghz))) {
        auto off_hz = p.index(ghz);
        auto b = off_hz / H, h = off_hz % H, m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);
        auto l_i = zeros<f32>(shape(ub, uh, M));
        auto acc = zeros<f32>(shape(ub, uh, M, D));
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            auto m_new = max(m_i, reduce(s, N, maximum));
            auto pr = exp(s - m_new);
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce(pr, N, add);
            acc = mma(cast<bf16>(pr), vt, acc * alpha);
            m_i = m_new;
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// 3-D views [batch * heads, seq, dim].
inline Kernel fa_3d() { return kernel("fa_3d", [](View<const bf16, 3> q, View<const bf16, 3> k, View<const bf16, 3> v, View<bf16, 3> o) {
    constexpr std::int64_t BQ = 128, BK = 64;
    auto SQ = q.extent<1>(), SK = k.extent<1>();
    auto gbh = axis("bh", q.extent<0>()), gq = axis("qb", ceil_div(SQ, BQ));
    auto u = axis("u", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<2>());
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<2>()));
    for (auto& p : parallel(shape(gbh, gq))) {
        auto bh = p.index(gbh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(bh, m0, 0), shape(u, M, D)];
        auto m_i = full<f32>(shape(u, M), NEG_INF);
        auto l_i = zeros<f32>(shape(u, M));
        auto acc = zeros<f32>(shape(u, M, D));
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(bh, n0, 0), shape(u, N, D)];
            auto vt = v[coord(bh, n0, 0), shape(u, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(u, M, N))) * scale;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            auto m_new = max(m_i, reduce(s, N, maximum));
            auto pr = exp(s - m_new);
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce(pr, N, add);
            acc = mma(cast<bf16>(pr), vt, acc * alpha);
            m_i = m_new;
        }
        o(coord(bh, m0, 0), shape(u, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// 3-D views with 2-D tiles (no unit axis): the most "Triton-like" spelling.
inline Kernel fa_3d_2dtiles() { return kernel("fa_3d_2dtiles", [](View<const bf16, 3> q, View<const bf16, 3> k, View<const bf16, 3> v,
                                                  View<bf16, 3> o) {
    constexpr std::int64_t BQ = 128, BK = 64;
    auto SQ = q.extent<1>(), SK = k.extent<1>();
    auto gbh = axis("bh", q.extent<0>()), gq = axis("qb", ceil_div(SQ, BQ));
    auto u = axis("u", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<2>());
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<2>()));
    for (auto& p : parallel(shape(gbh, gq))) {
        auto bh = p.index(gbh), m0 = p.index(gq) * BQ;
        auto qt = reshape(q[coord(bh, m0, 0), shape(u, M, D)], shape(M, D));
        auto m_i = full<f32>(shape(M), NEG_INF);
        auto l_i = zeros<f32>(shape(M));
        auto acc = zeros<f32>(shape(M, D));
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = reshape(k[coord(bh, n0, 0), shape(u, N, D)], shape(N, D));
            auto vt = reshape(v[coord(bh, n0, 0), shape(u, N, D)], shape(N, D));
            auto s = mma(qt, kt, zeros<f32>(shape(M, N))) * scale;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            auto m_new = max(m_i, reduce(s, N, maximum));
            auto pr = exp(s - m_new);
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce(pr, N, add);
            acc = mma(cast<bf16>(pr), vt, acc * alpha);
            m_i = m_new;
        }
        o(coord(bh, m0, 0), shape(u, M, D)).store(cast<bf16>(reshape(acc / l_i, shape(u, M, D))));
    }
}); }

// Seed 000's style: anonymous 2-D tiles throughout (reduce_rows, broadcast_rows),
// K kept channel-major so the score product is [BQ, D] x [D, BK] by position. The Hopper kernel tells rows, keys and channels apart by their named
// axes, and with square blocks nothing else does: this one runs the generic kernel.
inline Kernel fa_anonymous() { return kernel("fa_anonymous", [](View<const bf16, 3> q, View<const bf16, 3> k, View<const bf16, 3> v, View<bf16, 3> o) {
    constexpr std::int64_t BQ = 64, BK = 64;
    auto SK = k.extent<2>();
    auto D = q.extent<2>();
    auto gbh = axis("bh", q.extent<0>()), gq = axis("qb", ceil_div(q.extent<1>(), BQ));
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<2>()));
    auto add_ = [](auto a, auto x) { return a + x; };
    for (auto& p : parallel(shape(gbh, gq))) {
        auto bh = p.index(gbh), m0 = p.index(gq) * BQ;
        auto qt = reshape(q[coord(bh, m0, 0), shape(1, BQ, D)], shape(BQ, D));
        auto m_i = full<f32>(shape(BQ, 1), NEG_INF);
        auto l_i = zeros<f32>(shape(BQ, 1));
        auto acc = zeros<f32>(shape(BQ, D));
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = reshape(k[coord(bh, 0, n0), shape(1, D, BK)], shape(D, BK));  // (K kept [.., channels, keys])
            auto vt = reshape(v[coord(bh, n0, 0), shape(1, BK, D)], shape(BK, D));
            auto s = mma(qt, kt, zeros<f32>(shape(BQ, BK))) * scale;
            auto m_new = max(m_i, reduce_rows(s, NEG_INF, [](auto a, auto x) { return max(a, x); }));
            auto pr = broadcast_rows(s, m_new, [](auto x, auto m) { return exp(x - m); });
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce_rows(pr, 0.0f, add_);
            acc = mma(cast<bf16>(pr), vt, broadcast_rows(acc, alpha, [](auto a, auto x) { return a * x; }));
            m_i = m_new;
        }
        auto out = broadcast_rows(acc, l_i, [](auto a, auto l) { return a / l; });
        o(coord(bh, m0, 0), shape(1, BQ, D)).store(reshape(cast<bf16>(out), shape(1, BQ, D)));
    }
}); }

// V stored transposed: [batch, head, dim, seq].
inline Kernel fa_vT() { return kernel("fa_vT", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> vt_view, View<bf16, 4> o) {
    constexpr std::int64_t BQ = 128, BK = 64;
    auto SQ = q.extent<2>(), SK = k.extent<2>();
    auto gb = axis("b", q.extent<0>()), gh = axis("h", q.extent<1>()), gq = axis("qb", ceil_div(SQ, BQ));
    auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());
    auto DV = axis("dv", vt_view.extent<2>());
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);
        auto l_i = zeros<f32>(shape(ub, uh, M));
        auto acc = zeros<f32>(shape(ub, uh, M, DV));
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = vt_view[coord(b, h, 0, n0), shape(ub, uh, DV, N)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            auto m_new = max(m_i, reduce(s, N, maximum));
            auto pr = exp(s - m_new);
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce(pr, N, add);
            acc = mma(cast<bf16>(pr), vt, acc * alpha);
            m_i = m_new;
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, DV)).store(cast<bf16>(acc / l_i));
    }
}); }

// Sequence-major layout [batch, seq, head, dim] (what torch/HF hand over before transpose).
inline Kernel fa_bshd() { return kernel("fa_bshd", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> o) {
    constexpr std::int64_t BQ = 128, BK = 64;
    auto SQ = q.extent<1>(), SK = k.extent<1>();
    auto gb = axis("b", q.extent<0>()), gh = axis("h", q.extent<2>()), gq = axis("qb", ceil_div(SQ, BQ));
    auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, m0, h, 0), shape(ub, M, uh, D)];
        auto m_i = full<f32>(shape(ub, M, uh), NEG_INF);
        auto l_i = zeros<f32>(shape(ub, M, uh));
        auto acc = zeros<f32>(shape(ub, M, uh, D));
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, n0, h, 0), shape(ub, N, uh, D)];
            auto vt = v[coord(b, n0, h, 0), shape(ub, N, uh, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, M, uh, N))) * scale;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            auto m_new = max(m_i, reduce(s, N, maximum));
            auto pr = exp(s - m_new);
            auto alpha = exp(m_i - m_new);
            l_i = l_i * alpha + reduce(pr, N, add);
            acc = mma(cast<bf16>(pr), vt, acc * alpha);
            m_i = m_new;
        }
        o(coord(b, m0, h, 0), shape(ub, M, uh, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// ================================================================ second batch
// The second batch isolates the online-softmax spellings of fa_rescale_alt/alt2 one change at a
// time, and adds spellings that came up after the first plans (parameter vectors loaded in the
// loop, a runtime scale, an additive mask matrix, K stored transposed, other block sizes).

namespace batch2 {
enum Flags : unsigned {
    ACC_ADD = 1u << 0,         // acc = acc * alpha + mma(p, v, zeros)
    MAX_SWAPPED = 1u << 1,     // m_new = max(block max, m_old)
    OPERAND_ORDER = 1u << 2,   // mma(p, v, alpha * acc); l = sum + l * alpha
    ALPHA_RECIP = 1u << 3,     // alpha = 1 / exp(m_new - m_old)
    SCALE_LEFT = 1u << 4,      // s = scale * mma(...)
    SCALE_DIV = 1u << 5,       // s = mma(...) / sqrt(d)
    ACC_ADD_SPLIT = 1u << 6,   // acc = acc * alpha; acc = acc + mma(p, v, zeros)
    L_AFTER = 1u << 7,         // l updated after the P V product, alpha recomputed inline
};

template <unsigned F>
inline Kernel fa_flags2(const char* name) {
    return kernel(name, [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> o) {
        constexpr std::int64_t BQ = 128, BK = 64;
        auto SQ = q.extent(2), SK = k.extent(2);
        auto gb = axis("b", q.extent(0)), gh = axis("h", q.extent(1)), gq = axis("qb", ceil_div(SQ, BQ));
        auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent(3));
        const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent(3)));
        const float sqrt_d = std::sqrt(static_cast<float>(q.extent(3)));
        for (auto& p : parallel(shape(gb, gh, gq))) {
            auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
            auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
            auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);
            auto l_i = zeros<f32>(shape(ub, uh, M));
            auto acc = zeros<f32>(shape(ub, uh, M, D));
            for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
                auto n0 = st.index() * BK;
                auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
                auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
                auto raw = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N)));
                Tile<f32> s = [&] {
                    if constexpr ((F & SCALE_LEFT) != 0) return scale * raw;
                    else if constexpr ((F & SCALE_DIV) != 0) return raw / sqrt_d;
                    else return raw * scale;
                }();
                s = ite(iota(N) + n0 < SK, s, NEG_INF);
                Tile<f32> m_new = ((F & MAX_SWAPPED) != 0) ? max(reduce(s, N, maximum), m_i) : max(m_i, reduce(s, N, maximum));
                Tile<f32> alpha = ((F & ALPHA_RECIP) != 0) ? 1.0f / exp(m_new - m_i) : exp(m_i - m_new);
                auto pr = exp(s - m_new);
                if constexpr ((F & ACC_ADD) != 0) {
                    l_i = l_i * alpha + reduce(pr, N, add);
                    acc = acc * alpha + mma(cast<bf16>(pr), vt, zeros<f32>(shape(ub, uh, M, D)));
                } else if constexpr ((F & ACC_ADD_SPLIT) != 0) {
                    l_i = l_i * alpha + reduce(pr, N, add);
                    acc = acc * alpha;
                    acc = acc + mma(cast<bf16>(pr), vt, zeros<f32>(shape(ub, uh, M, D)));
                } else if constexpr ((F & OPERAND_ORDER) != 0) {
                    acc = mma(cast<bf16>(pr), vt, alpha * acc);
                    l_i = reduce(pr, N, add) + l_i * alpha;
                } else if constexpr ((F & L_AFTER) != 0) {
                    acc = mma(cast<bf16>(pr), vt, acc * exp(m_i - m_new));
                    l_i = l_i * exp(m_i - m_new) + reduce(pr, N, add);
                } else {
                    l_i = l_i * alpha + reduce(pr, N, add);
                    acc = mma(cast<bf16>(pr), vt, acc * alpha);
                }
                m_i = m_new;
            }
            o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
        }
    });
}

}  // namespace batch2

// fa_flags2: acc = acc * alpha + mma(p, v, zeros).
inline Kernel fa_acc_add() { using namespace batch2; return fa_flags2<ACC_ADD>("fa_acc_add"); }
// fa_flags2: acc = acc * alpha; acc = acc + mma(p, v, zeros).
inline Kernel fa_acc_add_split() { using namespace batch2; return fa_flags2<ACC_ADD_SPLIT>("fa_acc_add_split"); }
// fa_flags2: m' = max(block max, m).
inline Kernel fa_max_swapped() { using namespace batch2; return fa_flags2<MAX_SWAPPED>("fa_max_swapped"); }
// fa_flags2: mma(p, v, alpha * acc), l = sum + l * alpha.
inline Kernel fa_operand_order() { using namespace batch2; return fa_flags2<OPERAND_ORDER>("fa_operand_order"); }
// fa_flags2: alpha = 1 / exp(m' - m).
inline Kernel fa_alpha_recip() { using namespace batch2; return fa_flags2<ALPHA_RECIP>("fa_alpha_recip"); }
// fa_flags2: exp(m - m') inline twice, l after the product (alpha left unused).
inline Kernel fa_l_after() { using namespace batch2; return fa_flags2<L_AFTER>("fa_l_after"); }
// fa_flags2: s = scale * mma(...).
inline Kernel fa_scale_left() { using namespace batch2; return fa_flags2<SCALE_LEFT>("fa_scale_left"); }
// fa_flags2: s = mma(...) / sqrt(d).
inline Kernel fa_scale_div() { using namespace batch2; return fa_flags2<SCALE_DIV>("fa_scale_div"); }

// Non-causal FA with a block-size template (other tile sizes than the first batch).
template <std::int64_t BQ, std::int64_t BK>
inline Kernel fa_tiles(const char* name) {
    return kernel(name, [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> o) {
        auto SQ = q.extent<2>(), SK = k.extent<2>();
        auto gb = axis("b", q.extent<0>()), gh = axis("h", q.extent<1>()), gq = axis("qb", ceil_div(SQ, BQ));
        auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());
        const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
        for (auto& p : parallel(shape(gb, gh, gq))) {
            auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
            auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
            auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);
            auto l_i = zeros<f32>(shape(ub, uh, M));
            auto acc = zeros<f32>(shape(ub, uh, M, D));
            for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
                auto n0 = st.index() * BK;
                auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
                auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
                auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
                s = ite(iota(N) + n0 < SK, s, NEG_INF);
                auto m_new = max(m_i, reduce(s, N, maximum));
                auto pr = exp(s - m_new);
                auto alpha = exp(m_i - m_new);
                l_i = l_i * alpha + reduce(pr, N, add);
                acc = mma(cast<bf16>(pr), vt, acc * alpha);
                m_i = m_new;
            }
            o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
        }
    });
}
// fa_tiles: 256 queries x 64 keys.
inline Kernel fa_q256_k64() { return fa_tiles<256, 64>("fa_q256_k64"); }
// fa_tiles: 32 queries x 64 keys.
inline Kernel fa_q32_k64() { return fa_tiles<32, 64>("fa_q32_k64"); }
// fa_tiles: 128 queries x 16 keys.
inline Kernel fa_q128_k16() { return fa_tiles<128, 16>("fa_q128_k16"); }
// fa_tiles: 128 queries x 256 keys.
inline Kernel fa_q128_k256() { return fa_tiles<128, 256>("fa_q128_k256"); }
// fa_tiles: 128 queries x 96 keys.
inline Kernel fa_q128_k96() { return fa_tiles<128, 96>("fa_q128_k96"); }

// Common body pieces for the hand-written kernels below.
#define FA_PROLOGUE(BQv, BKv)                                                                                              \
    constexpr std::int64_t BQ = BQv, BK = BKv;                                                                             \
    auto SQ = q.extent<2>(), SK = k.extent<2>();                                                                           \
    auto gb = axis("b", q.extent<0>()), gh = axis("h", q.extent<1>()), gq = axis("qb", ceil_div(SQ, BQ));                  \
    auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent<3>());       \
    (void)SQ;
#define FA_UPDATE()                                                                                                        \
    auto m_new = max(m_i, reduce(s, N, maximum));                                                                          \
    auto pr = exp(s - m_new);                                                                                              \
    auto alpha = exp(m_i - m_new);                                                                                         \
    l_i = l_i * alpha + reduce(pr, N, add);                                                                                \
    acc = mma(cast<bf16>(pr), vt, acc * alpha);                                                                            \
    m_i = m_new;
#define FA_STATE()                                                                                                         \
    auto m_i = full<f32>(shape(ub, uh, M), NEG_INF);                                                                       \
    auto l_i = zeros<f32>(shape(ub, uh, M));                                                                               \
    auto acc = zeros<f32>(shape(ub, uh, M, D));

// The softmax scale as a runtime argument (softmax_scale=... in every attention API).
inline Kernel fa_scale_param() { return kernel("fa_scale_param", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v,
                                                    View<bf16, 4> o, Scalar<f32> scale) {
    FA_PROLOGUE(128, 64)
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        FA_STATE()
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            FA_UPDATE()
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// ALiBi with the slope loaded inside the key loop.
inline Kernel fa_alibi_inloop() { return kernel("fa_alibi_inloop", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v,
                                                      View<const f32, 1> slopes, View<bf16, 4> o) {
    FA_PROLOGUE(128, 64)
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        FA_STATE()
        for (auto& st : p.pipeline(shape(axis("kb", min((m0 + BQ + BK - 1) / BK, ceil_div(SK, BK)))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto slope = slopes[coord(h), shape(uh)];
            auto key = iota(N) + n0, qry = iota(M) + m0;
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale + slope * cast<f32>(key - qry);
            s = ite((key < SK) && (key <= qry), s, NEG_INF);
            FA_UPDATE()
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// Key padding with the length loaded inside the key loop.
inline Kernel fa_padmask_inloop() { return kernel("fa_padmask_inloop", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v,
                                                          View<const i32, 1> key_len, View<bf16, 4> o) {
    FA_PROLOGUE(128, 64)
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        FA_STATE()
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto len = cast<i64>(key_len[coord(b), shape(ub)]);
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            auto key = iota(N) + n0;
            s = ite((key < SK) && (key < len), s, NEG_INF);
            FA_UPDATE()
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// Additive attention mask matrix (SDPA attn_mask), bf16 [batch, 1, q_len, k_len], read per block.
inline Kernel fa_attn_mask() { return kernel("fa_attn_mask", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v,
                                                View<const bf16, 4> mask, View<bf16, 4> o) {
    FA_PROLOGUE(128, 64)
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        FA_STATE()
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto bias = cast<f32>(mask[coord(b, 0, m0, n0), shape(ub, uh, M, N)]);
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale + bias;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            FA_UPDATE()
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// Sliding window, every block from 0 visited, the window only masked (no early-block skip).
inline Kernel fa_window_masked() { return kernel("fa_window_masked", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v,
                                                        View<bf16, 4> o) {
    FA_PROLOGUE(128, 64)
    constexpr std::int64_t W = 1024;
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        FA_STATE()
        for (auto& st : p.pipeline(shape(axis("kb", min((m0 + BQ + BK - 1) / BK, ceil_div(SK, BK)))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            auto key = iota(N) + n0, qry = iota(M) + m0;
            s = ite((key < SK) && (key <= qry) && (qry - key < W), s, NEG_INF);
            FA_UPDATE()
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// Sliding window, the first key written as lo_key + t * BK (lo_key a multiple of BK).
inline Kernel fa_window_offset() { return kernel("fa_window_offset", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v,
                                                        View<bf16, 4> o) {
    FA_PROLOGUE(128, 64)
    constexpr std::int64_t W = 1024;
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        FA_STATE()
        auto lo = max(m0 - (W - 1), 0) / BK;
        auto hi = min((m0 + BQ + BK - 1) / BK, ceil_div(SK, BK));
        auto lo_key = lo * BK;
        for (auto& st : p.pipeline(shape(axis("kb", hi - lo)), {.window = 2})) {
            auto n0 = lo_key + st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            auto key = iota(N) + n0, qry = iota(M) + m0;
            s = ite((key < SK) && (key <= qry) && (qry - key < W), s, NEG_INF);
            FA_UPDATE()
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// K stored transposed: [batch, head, dim, seq].
inline Kernel fa_kT() { return kernel("fa_kT", [](View<const bf16, 4> q, View<const bf16, 4> kt_view, View<const bf16, 4> v, View<bf16, 4> o) {
    auto& k = v;  // keys' length from v
    FA_PROLOGUE(128, 64)
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        FA_STATE()
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = kt_view[coord(b, h, 0, n0), shape(ub, uh, D, N)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            FA_UPDATE()
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// GQA with the group as a compile-time constant (4).
inline Kernel fa_gqa_const() { return kernel("fa_gqa_const", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> o) {
    FA_PROLOGUE(128, 64)
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        FA_STATE()
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h / 4, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h / 4, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            FA_UPDATE()
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// lse stored as two statistics, the row max and the row sum (FA1-style backward inputs).
inline Kernel fa_stats() { return kernel("fa_stats", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> o,
                                        View<f32, 3> row_max, View<f32, 3> row_sum) {
    FA_PROLOGUE(128, 64)
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        FA_STATE()
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            s = ite(iota(N) + n0 < SK, s, NEG_INF);
            FA_UPDATE()
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
        row_max(coord(b, h, m0), shape(ub, uh, M)).store(m_i);
        row_sum(coord(b, h, m0), shape(ub, uh, M)).store(l_i);
    }
}); }

// ================================================================ third batch
// The third batch dead values in the loop, a finite-init k128 program at d256, and combinations
// (Gemma-2: GQA + softcap + causal + sliding window; Llama: causal + GQA + f32 output).

namespace batch3 {
enum Flags : unsigned {
    L_AFTER = 1u << 0,     // alpha never named: exp(m - m') written inline twice
    DEAD = 1u << 1,        // an unused value of the carried state (a debugging leftover)
    FINITE = 1u << 2,      // row max starts at -1e30
    GEMMA = 1u << 3,       // GQA by extents + softcap 50 + causal (trip count) + window 4096 mask
    LLAMA = 1u << 4,       // causal + GQA by extents (f32 output: see kernel type)
};

template <unsigned F, std::int64_t BQ, std::int64_t BK, class OUT = bf16>
inline Kernel fa3(const char* name) {
    return kernel(name, [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<OUT, 4> o) {
        auto SQ = q.extent(2), SK = k.extent(2);
        auto gb = axis("b", q.extent(0)), gh = axis("h", q.extent(1)), gq = axis("qb", ceil_div(SQ, BQ));
        auto ub = axis("ub", 1), uh = axis("uh", 1), M = axis("m", BQ), N = axis("n", BK), D = axis("d", q.extent(3));
        const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent(3)));
        constexpr bool causal = (F & (GEMMA | LLAMA)) != 0, gqa = causal;
        for (auto& p : parallel(shape(gb, gh, gq))) {
            auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
            auto hk = gqa ? h / (q.extent(1) / k.extent(1)) : h;
            auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
            auto m_i = full<f32>(shape(ub, uh, M), (F & FINITE) ? -1e30f : NEG_INF);
            auto l_i = zeros<f32>(shape(ub, uh, M));
            auto acc = zeros<f32>(shape(ub, uh, M, D));
            auto kb = causal ? axis("kb", min((m0 + BQ + BK - 1) / BK, ceil_div(SK, BK))) : axis("kb", ceil_div(SK, BK));
            for (auto& st : p.pipeline(shape(kb), {.window = 2})) {
                auto n0 = st.index() * BK;
                auto kt = k[coord(b, hk, n0, 0), shape(ub, uh, N, D)];
                auto vt = v[coord(b, hk, n0, 0), shape(ub, uh, N, D)];
                auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
                if constexpr ((F & GEMMA) != 0) s = tanh(s / 50.0f) * 50.0f;
                auto key = iota(N) + n0, qry = iota(M) + m0;
                auto keep = key < SK;
                if constexpr (causal) keep = keep && (key <= qry);
                if constexpr ((F & GEMMA) != 0) keep = keep && (qry - key < 4096);
                s = ite(keep, s, NEG_INF);
                auto m_new = max(m_i, reduce(s, N, maximum));
                auto pr = exp(s - m_new);
                if constexpr ((F & L_AFTER) != 0) {
                    acc = mma(cast<bf16>(pr), vt, acc * exp(m_i - m_new));
                    l_i = l_i * exp(m_i - m_new) + reduce(pr, N, add);
                } else {
                    auto alpha = exp(m_i - m_new);
                    if constexpr ((F & DEAD) != 0) {
                        auto unused = alpha * 2.0f;  // left over from debugging, never used
                        (void)unused;
                    }
                    l_i = l_i * alpha + reduce(pr, N, add);
                    acc = mma(cast<bf16>(pr), vt, acc * alpha);
                }
                m_i = m_new;
            }
            o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<OUT>(acc / l_i));
        }
    });
}

}  // namespace batch3

// fa3: exp(m - m') inline twice, l after the product, no alpha at all.
inline Kernel fa_l_after_clean() { using namespace batch3; return fa3<L_AFTER, 128, 64>("fa_l_after_clean"); }
// fa3: an unused alpha * 2 left in the loop.
inline Kernel fa_dead_value() { using namespace batch3; return fa3<DEAD, 128, 64>("fa_dead_value"); }
// fa3: 128 x 128 blocks, the row maximum from -1e30.
inline Kernel fa_q128_k128_finite() { using namespace batch3; return fa3<FINITE, 128, 128>("fa_q128_k128_finite"); }
// fa3: Gemma-2: GQA, soft cap, causal, window 4096.
inline Kernel fa_gemma2() { using namespace batch3; return fa3<GEMMA, 128, 64>("fa_gemma2"); }
// fa3: Llama: causal, GQA, f32 output, 128 x 128.
inline Kernel fa_llama_f32() { using namespace batch3; return fa3<LLAMA, 128, 128, f32>("fa_llama_f32"); }

// ---------------------------------------------------------------- tiles over rows and keys (session 25, written beside the kernel's loads)

// A key padding mask [batch, keys] (1 keep, 0 drop), i32, read per key block.
inline Kernel fa_key_mask() { return kernel("fa_key_mask", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v,
                                              View<const i32, 2> keep, View<bf16, 4> o) {
    FA_PROLOGUE(128, 64)
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        FA_STATE()
        for (auto& st : p.pipeline(shape(axis("kb", ceil_div(SK, BK))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto kp = keep[coord(b, n0), shape(ub, N)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            s = ite((iota(N) + n0 < SK) && (kp != 0), s, NEG_INF);
            FA_UPDATE()
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// A relative position bias per head [heads, queries, keys] (f32, T5's), causal, blocks of
// 32 keys from a finite floor (the kernel takes its own 128-key blocks: each element's
// bias read at its key's absolute index).
inline Kernel fa_rel_bias_causal() { return kernel("fa_rel_bias_causal", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v,
                                                     View<const f32, 3> bias, View<bf16, 4> o) {
    FA_PROLOGUE(128, 32)
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        auto m_i = full<f32>(shape(ub, uh, M), -1e30f);
        auto l_i = zeros<f32>(shape(ub, uh, M));
        auto acc = zeros<f32>(shape(ub, uh, M, D));
        for (auto& st : p.pipeline(shape(axis("kb", min((m0 + BQ + BK - 1) / BK, ceil_div(SK, BK)))), {.window = 2})) {
            auto n0 = st.index() * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto rb = bias[coord(h, m0, n0), shape(uh, M, N)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale + rb;
            auto key = iota(N) + n0, qry = iota(M) + m0;
            s = ite((key < SK) && (key <= qry), s, -1e30f);
            FA_UPDATE()
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

// A sliding window whose loop starts at the window's first key block, with 64-row query
// blocks: the key range moves with each block, and two blocks share the kernel's row tile.
inline Kernel fa_window_q64() { return kernel("fa_window_q64", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> o) {
    FA_PROLOGUE(64, 64)
    constexpr std::int64_t W = 512;
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.extent<3>()));
    for (auto& p : parallel(shape(gb, gh, gq))) {
        auto b = p.index(gb), h = p.index(gh), m0 = p.index(gq) * BQ;
        auto qt = q[coord(b, h, m0, 0), shape(ub, uh, M, D)];
        FA_STATE()
        auto lo = max(m0 - (W - 1), 0) / BK;
        auto hi = min((m0 + BQ + BK - 1) / BK, ceil_div(SK, BK));
        for (auto& st : p.pipeline(shape(axis("kb", hi - lo)), {.window = 2})) {
            auto n0 = (lo + st.index()) * BK;
            auto kt = k[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto vt = v[coord(b, h, n0, 0), shape(ub, uh, N, D)];
            auto s = mma(qt, kt, zeros<f32>(shape(ub, uh, M, N))) * scale;
            auto key = iota(N) + n0, qry = iota(M) + m0;
            s = ite((key < SK) && (key <= qry) && (qry - key < W), s, NEG_INF);
            FA_UPDATE()
        }
        o(coord(b, h, m0, 0), shape(ub, uh, M, D)).store(cast<bf16>(acc / l_i));
    }
}); }

#undef FA_PROLOGUE
#undef FA_UPDATE
#undef FA_STATE

}  // namespace kiln::variants::attention
