// The attention variants (attention_variants.h): for each, its arguments, the
// problems its plan is checked at with the outcome expected there, and its small
// ragged cpu problem. Expected outcomes are what the tree gives (the reason
// strings are passes/attention_match.h's, through the contraction pass's
// attention_why).
#include <cmath>
#include <string>

#include "attention_variants.h"
#include "variant_suite.h"

namespace kiln::variants {
namespace {

namespace a = kiln::variants::attention;
constexpr Kind bf = Kind::BF16;

// The sizes each variant is planned at: q [1, 4, 256, d], k/v [1, 4, 384, d], and a
// ragged problem (200 queries, 333 keys); the grouped-query forms with fewer kv heads.
Dims at(std::int64_t d, std::int64_t queries = 256, std::int64_t keys = 384, std::int64_t heads = 4, std::int64_t kv_heads = 4, std::int64_t dv = 0) {
    return {.batch = 1, .heads = heads, .kv_heads = kv_heads, .queries = queries, .keys = keys, .d = d, .dv = dv ? dv : d};
}
// The plan's reasons for missing the Hopper kernel (attention_why).
std::string attention_why(const std::string& reason) { return "not FlashAttention: " + reason; }
std::string head_dims(int d, int dv) {
    return attention_why("head dimensions " + std::to_string(d) + " and " + std::to_string(dv) + " are not multiples of 8 up to 256");
}
// A key block the kernel cannot take from a row maximum starting at -inf.
std::string key_block(int keys, int kernel_keys, int d) {
    const std::string k = std::to_string(keys), dd = std::to_string(d);
    return attention_why("the kernel's key block must be the program's (its row maximum starts at -inf: a first key block whose keys are all masked "
                         "gives NaN, which the kernel reproduces only on blocks holding whole program blocks, and " +
                         k + " keys do not divide its " + std::to_string(kernel_keys) + "), and " + k + " keys is not one it takes with head dimensions " +
                         dd + " and " + dd +
                         " (64, or 128 with at most 128 value channels and at most 256 channels in all); a row maximum starting at a finite floor "
                         "(-1e30, say) would let the kernel take its own");
}
const std::string window_moves = attention_why(
    "the key blocks start at an offset that moves with the query block, and the query block (64 rows) is not a whole number of the kernel's 128-row tiles");

std::vector<Trace> both(const std::string& expected, std::int64_t d = 128) { return {{at(d), expected}, {at(d, 200, 333), expected}}; }
// The cpu problem: one head, 150 queries and 200 keys (two query blocks of 128, a
// ragged last key block), d 64.
const Dims small = at(64, 150, 200, 1, 1);

// q, k, v -> o, of the given kinds.
template <Kind I, Kind O> std::vector<ArgSpec> qkvo(const Dims& d) {
    return {In(I, {d.batch, d.heads, d.queries, d.d}), In(I, {d.batch, d.kv_heads, d.keys, d.d}), In(I, {d.batch, d.kv_heads, d.keys, d.dv}),
            Out(O, {d.batch, d.heads, d.queries, d.dv})};
}
std::vector<ArgSpec> plain(const Dims& d) { return qkvo<bf, bf>(d); }
// q, k, v, then a parameter view, then o.
std::vector<ArgSpec> with_slopes(const Dims& d) {
    auto v = plain(d);
    v.insert(v.begin() + 3, In(Kind::F32, {d.heads}));
    return v;
}
std::vector<ArgSpec> with_lengths(const Dims& d) {
    auto v = plain(d);
    v.insert(v.begin() + 3, Ints(Kind::I32, {d.batch}, 1, d.keys));
    return v;
}
std::vector<ArgSpec> with_mask(const Dims& d) {
    auto v = plain(d);
    v.insert(v.begin() + 3, In(bf, {d.batch, 1, d.queries, d.keys}));
    return v;
}
// o, then f32 row statistics [batch, heads, queries].
template <Kind O, int Stats> std::vector<ArgSpec> with_stats(const Dims& d) {
    auto v = qkvo<bf, O>(d);
    for (int s = 0; s < Stats; ++s) v.push_back(Out(Kind::F32, {d.batch, d.heads, d.queries}));
    return v;
}
// [batch * heads, seq, d].
std::vector<ArgSpec> three_d(const Dims& d) {
    return {In(bf, {d.batch * d.heads, d.queries, d.d}), In(bf, {d.batch * d.heads, d.keys, d.d}), In(bf, {d.batch * d.heads, d.keys, d.dv}),
            Out(bf, {d.batch * d.heads, d.queries, d.dv})};
}
// v stored [batch, heads, dv, keys]; k stored [batch, heads, d, keys].
std::vector<ArgSpec> v_transposed(const Dims& d) {
    return {In(bf, {d.batch, d.heads, d.queries, d.d}), In(bf, {d.batch, d.kv_heads, d.keys, d.d}), In(bf, {d.batch, d.kv_heads, d.dv, d.keys}),
            Out(bf, {d.batch, d.heads, d.queries, d.dv})};
}
std::vector<ArgSpec> k_transposed(const Dims& d) {
    return {In(bf, {d.batch, d.heads, d.queries, d.d}), In(bf, {d.batch, d.kv_heads, d.d, d.keys}), In(bf, {d.batch, d.kv_heads, d.keys, d.dv}),
            Out(bf, {d.batch, d.heads, d.queries, d.dv})};
}
// [batch, seq, heads, d].
std::vector<ArgSpec> sequence_major(const Dims& d) {
    return {In(bf, {d.batch, d.queries, d.heads, d.d}), In(bf, {d.batch, d.keys, d.kv_heads, d.d}), In(bf, {d.batch, d.keys, d.kv_heads, d.dv}),
            Out(bf, {d.batch, d.queries, d.heads, d.dv})};
}
std::vector<ArgSpec> with_scale(const Dims& d) {
    auto v = plain(d);
    v.push_back(Number(Kind::F32, 1.0 / std::sqrt(static_cast<double>(d.d))));
    return v;
}

Variant attention_variant(const std::string& name, Kernel (*make)(), ArgsFor args, std::vector<Trace> traces, Dims cpu = small) {
    return Variant{name, Family::attention, make, args, std::move(traces), cpu};
}

std::vector<Variant> attention_table() {
    const Dims gqa_cpu = at(64, 150, 200, 2, 1);
    return {
        // ---- fa_blocks: block sizes, causal, head dimensions
        attention_variant("fa_q128_k64", a::fa_q128_k64, plain,
                          {{at(128), fast}, {at(128, 200, 333), fast}, {at(64), fast}, {at(256), fast}, {at(192), fast},
                           {at(96), fast}, {at(32), fast}, {at(80), fast}, {at(160), fast}, {at(96, 200, 333), fast}, {at(40, 200, 333), fast},
                           {at(100), head_dims(100, 100)}}),
        attention_variant("fa_q64_k64", a::fa_q64_k64, plain, {{at(128), fast}, {at(128, 200, 333), fast}, {at(256), fast}, {at(96), fast}}),
        attention_variant("fa_q128_k128", a::fa_q128_k128, plain, {{at(128), fast}, {at(128, 200, 333), fast}, {at(256), key_block(128, 64, 256)}}),
        attention_variant("fa_q128_k32", a::fa_q128_k32, plain, both(fast)),
        attention_variant("fa_q64_k32", a::fa_q64_k32, plain, both(fast)),
        attention_variant("fa_q64_k128", a::fa_q64_k128, plain, both(fast)),
        attention_variant("fa_causal_q128_k64", a::fa_causal_q128_k64, plain,
                          {{at(128), fast}, {at(128, 200, 333), fast}, {at(64), fast}, {at(256), fast}}),
        attention_variant("fa_causal_q64_k64", a::fa_causal_q64_k64, plain, both(fast)),
        attention_variant("fa_causal_q128_k128", a::fa_causal_q128_k128, plain,
                          {{at(128), fast}, {at(128, 200, 333), fast}, {at(256), key_block(128, 64, 256)}}),
        attention_variant("fa_causal_q128_k32", a::fa_causal_q128_k32, plain, both(fast)),
        // ---- fa_flags: one change each to a plain forward
        // (96 and 80 channels: the query prologue leaves the padding past them zero.)
        attention_variant("fa_scale_q_bf16", a::fa_scale_q_bf16, plain, {{at(128), fast}, {at(128, 200, 333), fast}, {at(96), fast}, {at(80, 200, 333), fast}}),
        attention_variant("fa_scale_q_f32", a::fa_scale_q_f32, plain, both(fast)),
        attention_variant("fa_scale_in_exp", a::fa_scale_in_exp, plain, both(fast)),
        attention_variant("fa_scale_in_exp2", a::fa_scale_in_exp2, plain, both(fast)),
        attention_variant("fa_causal_ite", a::fa_causal_ite, plain, both(fast)),
        attention_variant("fa_causal_where_not", a::fa_causal_where_not, plain, both(fast)),
        attention_variant("fa_causal_bias", a::fa_causal_bias, plain, both(fast)),
        attention_variant("fa_causal_noskip", a::fa_causal_noskip, plain, both(fast)),
        attention_variant("fa_causal_exp2", a::fa_causal_exp2, plain, both(fast)),
        attention_variant("fa_softcap", a::fa_softcap, plain, both(fast)),
        attention_variant("fa_rescale_alt", a::fa_rescale_alt, plain, both(fast)),
        attention_variant("fa_rescale_alt2", a::fa_rescale_alt2, plain, both(fast)),
        attention_variant("fa_norm_recip", a::fa_norm_recip, plain, {{at(128), fast}, {at(128, 200, 333), fast}, {at(192, 256, 384, 4, 4, 128), fast}, {at(96, 200, 333, 4, 4, 64), fast}, {at(64, 200, 333, 4, 4, 40), fast}}),
        attention_variant("fa_serial", a::fa_serial, plain, both(fast)),
        attention_variant("fa_no_tail_mask", a::fa_no_tail_mask, plain, both(fast)),
        attention_variant("fa_finite_init", a::fa_finite_init, plain, both(fast)),
        attention_variant("fa_mask_finite", a::fa_mask_finite, plain, both(fast)),
        attention_variant("fa_f16", a::fa_f16, qkvo<Kind::F16, Kind::F16>, both(fast)),
        attention_variant("fa_f16_causal", a::fa_f16_causal, qkvo<Kind::F16, Kind::F16>, both(fast)),
        // ---- extra parameters and layouts
        attention_variant("fa_causal_offset", a::fa_causal_offset, plain, both(fast)),
        attention_variant("fa_window", a::fa_window, plain, both(fast)),
        attention_variant("fa_alibi", a::fa_alibi, with_slopes, both(fast)),
        attention_variant("fa_padmask", a::fa_padmask, with_lengths, both(fast)),
        attention_variant("fa_gqa", a::fa_gqa, plain,
                          {{at(128, 256, 384, 4, 2), fast}, {at(128, 200, 333, 4, 2), fast}, {at(128, 256, 384, 4, 1), fast}}, gqa_cpu),
        attention_variant("fa_out_f32_lse", a::fa_out_f32_lse, with_stats<Kind::F32, 1>, both(fast)),
        attention_variant("fa_out_f32", a::fa_out_f32, qkvo<bf, Kind::F32>, both(fast)),
        attention_variant("fa_lse", a::fa_lse, with_stats<bf, 1>, {{at(128), fast}, {at(128, 200, 333), fast}, {at(80, 200, 333), fast}}),
        attention_variant("fa_triton_grid", a::fa_triton_grid, plain, both(fast)),
        attention_variant("fa_3d", a::fa_3d, three_d, both(fast)),
        attention_variant("fa_3d_2dtiles", a::fa_3d_2dtiles, three_d, both(fast)),
        attention_variant("fa_anonymous", a::fa_anonymous,
                          [](const Dims& d) {
                              return std::vector<ArgSpec>{In(bf, {d.batch * d.heads, d.queries, d.d}), In(bf, {d.batch * d.heads, d.d, d.keys}),
                                                          In(bf, {d.batch * d.heads, d.keys, d.dv}), Out(bf, {d.batch * d.heads, d.queries, d.dv})};
                          },
                          both(attention_why("the query rows, keys and channels are not distinct named axes (the kernel tells values apart by their axes)"))),
        attention_variant("fa_vT", a::fa_vT, v_transposed, both(attention_why("the value tile is not [keys, value channels]"))),
        attention_variant("fa_bshd", a::fa_bshd, sequence_major, both(fast)),
        // ---- fa_flags2: the online softmax's spellings, one change each
        attention_variant("fa_acc_add", a::fa_acc_add, plain, both(fast)),
        attention_variant("fa_acc_add_split", a::fa_acc_add_split, plain, both(fast)),
        attention_variant("fa_max_swapped", a::fa_max_swapped, plain, both(fast)),
        attention_variant("fa_operand_order", a::fa_operand_order, plain, both(fast)),
        attention_variant("fa_alpha_recip", a::fa_alpha_recip, plain, both(fast)),
        attention_variant("fa_l_after", a::fa_l_after, plain, both(fast)),
        attention_variant("fa_scale_left", a::fa_scale_left, plain, both(fast)),
        attention_variant("fa_scale_div", a::fa_scale_div, plain, both(fast)),
        // ---- fa_tiles: other block sizes
        attention_variant("fa_q256_k64", a::fa_q256_k64, plain, both(fast)),
        attention_variant("fa_q32_k64", a::fa_q32_k64, plain, both(fast)),
        attention_variant("fa_q128_k16", a::fa_q128_k16, plain, both(fast)),
        attention_variant("fa_q128_k256", a::fa_q128_k256, plain, {{at(128), key_block(256, 128, 128)}, {at(128, 200, 333), key_block(256, 128, 128)}, {at(64), key_block(256, 128, 64)}}),
        attention_variant("fa_q128_k96", a::fa_q128_k96, plain, both(key_block(96, 128, 128))),
        // ---- hand-written: parameters loaded in the loop, masks, layouts, statistics
        attention_variant("fa_scale_param", a::fa_scale_param, with_scale, both(fast)),
        attention_variant("fa_alibi_inloop", a::fa_alibi_inloop, with_slopes, both(fast)),
        attention_variant("fa_padmask_inloop", a::fa_padmask_inloop, with_lengths, both(fast)),
        attention_variant("fa_attn_mask", a::fa_attn_mask, with_mask, both(fast)),
        attention_variant("fa_key_mask", a::fa_key_mask,
                          [](const Dims& d) {
                              auto v = plain(d);
                              v.insert(v.begin() + 3, Ints(Kind::I32, {d.batch, d.keys}, 0, 2));
                              return v;
                          },
                          both(fast)),
        attention_variant("fa_rel_bias_causal", a::fa_rel_bias_causal,
                          [](const Dims& d) {
                              auto v = plain(d);
                              v.insert(v.begin() + 3, In(Kind::F32, {d.heads, d.queries, d.keys}));
                              return v;
                          },
                          {{at(128), fast}, {at(128, 200, 333), fast}, {at(64), fast}}),
        attention_variant("fa_window_masked", a::fa_window_masked, plain, both(fast)),
        attention_variant("fa_window_offset", a::fa_window_offset, plain, both(fast)),
        attention_variant("fa_window_q64", a::fa_window_q64, plain, both(window_moves)),
        // (333 keys: K's rows of 666 bytes are no stride TMA takes, and the launch takes the generic kernel.)
        attention_variant("fa_kT", a::fa_kT, k_transposed, {{at(128), fast}, {at(128, 200, 333), fast}, {at(128, 200, 320), fast}, {at(64), fast}}),
        // h / 4: four query heads a kv head.
        attention_variant("fa_gqa_const", a::fa_gqa_const, plain, {{at(128, 256, 384, 8, 2), fast}, {at(128, 200, 333, 8, 2), fast}},
                          at(64, 150, 200, 4, 1)),
        attention_variant("fa_stats", a::fa_stats, with_stats<bf, 2>, both(fast)),
        // ---- fa3: dead values, a finite start at d 256, model combinations
        attention_variant("fa_l_after_clean", a::fa_l_after_clean, plain, both(fast)),
        attention_variant("fa_dead_value", a::fa_dead_value, plain, both(fast)),
        attention_variant("fa_q128_k128_finite", a::fa_q128_k128_finite, plain, {{at(128), fast}, {at(128, 200, 333), fast}, {at(256), fast}}),
        attention_variant("fa_gemma2", a::fa_gemma2, plain, {{at(256, 256, 384, 4, 2), fast}, {at(128, 200, 333, 4, 2), fast}}, gqa_cpu),
        attention_variant("fa_llama_f32", a::fa_llama_f32, qkvo<bf, Kind::F32>, {{at(128, 256, 384, 4, 2), fast}, {at(128, 200, 333, 4, 2), fast}},
                          gqa_cpu),
    };
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Attention, VariantPlan, ::testing::ValuesIn(attention_table()), variant_name);
INSTANTIATE_TEST_SUITE_P(Attention, VariantCpu, ::testing::ValuesIn(attention_table()), variant_name);
INSTANTIATE_TEST_SUITE_P(Attention, VariantDevice, ::testing::ValuesIn(fast_only(attention_table())), variant_name);

}  // namespace kiln::variants
