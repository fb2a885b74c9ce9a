// The GEMM variants (gemm_variants.h): for each, its arguments, the problems its
// plan is checked at with the outcome expected there, and its small ragged cpu
// problem. Expected outcomes are what the tree gives (the reason strings are
// passes/gemm_match.h's, through the contraction pass's gemm_why).
#include "gemm_variants.h"
#include "variant_suite.h"

namespace kiln::variants {
namespace {

namespace g = kiln::variants::gemm;
constexpr Kind bf = Kind::BF16;

// The sizes each variant is planned at: whole tiles (512 x 384 outputs, k 256) and a
// ragged problem (200 x 300 x 77: every extent cut inside a tile).
const Dims even{.m = 512, .n = 384, .k = 256};
const Dims ragged{.m = 200, .n = 300, .k = 77};
// The cpu problem: small and ragged.
const Dims small{.m = 100, .n = 130, .k = 70};

// The plan's reasons for missing the Hopper kernel (gemm_why).
std::string gemm_why(const std::string& reason) { return "not the canonical GEMM: " + reason; }
// A batch (or a manual split of k) folded into the k origin: the kernel's TMA maps
// address the batch by a coordinate of its own.
const std::string k_origins = gemm_why("the k origins are not t * bk");

std::vector<Trace> both(const std::string& expected) { return {{even, expected}, {ragged, expected}}; }

// A [m, k], B [k, n] -> C [m, n], of the given kinds.
template <Kind I, Kind O> std::vector<ArgSpec> abc(const Dims& d) { return {In(I, {d.m, d.k}), In(I, {d.k, d.n}), Out(O, {d.m, d.n})}; }
std::vector<ArgSpec> plain(const Dims& d) { return abc<bf, bf>(d); }
// Y [m, n] = X [m, k] W^T with W [n, k].
std::vector<ArgSpec> xw(const Dims& d) { return {In(bf, {d.m, d.k}), In(bf, {d.n, d.k}), Out(bf, {d.m, d.n})}; }
// A stored [k, m].
std::vector<ArgSpec> at_b(const Dims& d) { return {In(bf, {d.k, d.m}), In(bf, {d.k, d.n}), Out(bf, {d.m, d.n})}; }

Variant gemm_variant(const std::string& name, Kernel (*make)(), ArgsFor args, std::vector<Trace> traces, Dims cpu = small) {
    return Variant{name, Family::gemm, make, args, std::move(traces), cpu};
}

std::vector<Variant> gemm_table() {
    using V = std::vector<ArgSpec>;
    return {
        // ---- tiles, element kinds, k-loop forms
        gemm_variant("t64x64x32", g::t64x64x32, plain, both(fast)),
        gemm_variant("t128x128x64", g::t128x128x64, plain, both(fast)),
        gemm_variant("t128x256x64", g::t128x256x64, plain, both(fast)),
        gemm_variant("t256x128x64", g::t256x128x64, plain, both(fast)),
        gemm_variant("t64x256x64", g::t64x256x64, plain, both(fast)),
        gemm_variant("f16_ops", g::f16_ops, abc<Kind::F16, Kind::F16>, both(fast)),
        gemm_variant("out_f32", g::out_f32, abc<bf, Kind::F32>, both(fast)),
        gemm_variant("out_bf16_serial", g::out_bf16_serial, plain, both(fast)),
        gemm_variant("kloop_pipeline_stages", g::kloop_pipeline_stages, plain, both(fast)),
        gemm_variant("kloop_dot_f32", g::kloop_dot_f32, plain, both(fast)),
        // (Operands widened to f32 exactly: read as the bf16 they are.)
        gemm_variant("kloop_mma_widened", g::kloop_mma_widened, plain, both(fast)),
        gemm_variant("kloop_mma_add", g::kloop_mma_add, plain, both(fast)),
        gemm_variant("kloop_pipeline_default", g::kloop_pipeline_default, plain, both(fast)),
        gemm_variant("i8_i32", g::i8_i32,
                     [](const Dims& d) { return V{Ints(Kind::I8, {d.m, d.k}, -128, 127), Ints(Kind::I8, {d.k, d.n}, -128, 127), Out(Kind::I32, {d.m, d.n})}; },
                     // (B stored [K, N]: copied transposed at each launch.)
                     both(fast)),
        gemm_variant("i8_kouter", g::i8_kouter,
                     [](const Dims& d) { return V{Ints(Kind::I8, {d.k, d.m}, -128, 127), Ints(Kind::I8, {d.k, d.n}, -128, 127), Out(Kind::I32, {d.m, d.n})}; },
                     both(fast)),
        gemm_variant("i8_linear", g::i8_linear,
                     [](const Dims& d) { return V{Ints(Kind::I8, {d.m, d.k}, -128, 127), Ints(Kind::I8, {d.n, d.k}, -128, 127), Out(Kind::I32, {d.m, d.n})}; },
                     // (k 80: rows of 80 bytes, staged to whole lines by pitched copies.)
                     {{even, fast}, {ragged, fast}, {{.m = 200, .n = 300, .k = 80}, fast}}),
        gemm_variant("i8_dequant", g::i8_dequant,
                     [](const Dims& d) {
                         return V{Ints(Kind::I8, {d.m, d.k}, -128, 127), Ints(Kind::I8, {d.n, d.k}, -128, 127), In(Kind::F32, {d.m}), In(Kind::F32, {d.n}),
                                  In(bf, {d.n}), Out(bf, {d.m, d.n})};
                     },
                     {{even, fast}, {{.m = 200, .n = 300, .k = 96}, fast}}),
        gemm_variant("i8_acc_from_c", g::i8_acc_from_c,
                     [](const Dims& d) { return V{Ints(Kind::I8, {d.m, d.k}, -128, 127), Ints(Kind::I8, {d.n, d.k}, -128, 127), InOut(Kind::I32, {d.m, d.n})}; },
                     {{even, fast}, {{.m = 200, .n = 300, .k = 96}, fast}}),
        gemm_variant("i8_batched", g::i8_batched,
                     [](const Dims& d) {
                         return V{Ints(Kind::I8, {d.batch, d.m, d.k}, -128, 127), Ints(Kind::I8, {d.n, d.k}, -128, 127), In(Kind::F32, {d.n}),
                                  Out(Kind::F32, {d.batch, d.m, d.n})};
                     },
                     {{{.m = 256, .n = 384, .k = 256, .batch = 3}, fast}, {{.m = 200, .n = 300, .k = 96, .batch = 2}, fast}},
                     {.m = 100, .n = 130, .k = 70, .batch = 2}),
        gemm_variant("i8_bmm_kn", g::i8_bmm_kn,
                     [](const Dims& d) {
                         return V{Ints(Kind::I8, {d.batch, d.m, d.k}, -128, 127), Ints(Kind::I8, {d.batch, d.k, d.n}, -128, 127), In(Kind::F32, {d.n}),
                                  Out(Kind::F32, {d.batch, d.m, d.n})};
                     },
                     {{{.m = 256, .n = 384, .k = 256, .batch = 3}, fast}, {{.m = 200, .n = 300, .k = 96, .batch = 2}, fast}},
                     {.m = 100, .n = 130, .k = 70, .batch = 2}),
        gemm_variant("tf32_plain", g::tf32_plain, abc<Kind::F32, Kind::F32>, both(fast)),
        gemm_variant("tf32_linear", g::tf32_linear,
                     [](const Dims& d) { return V{In(Kind::F32, {d.m, d.k}), In(Kind::F32, {d.n, d.k}), In(Kind::F32, {d.n}), Out(bf, {d.m, d.n})}; },
                     both(fast)),
        gemm_variant("tf32_at_bt", g::tf32_at_bt,
                     [](const Dims& d) { return V{In(Kind::F32, {d.k, d.m}), In(Kind::F32, {d.n, d.k}), Out(Kind::F32, {d.m, d.n})}; }, both(fast)),
        // ---- epilogues
        gemm_variant("bias_n", g::bias_n, [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(Kind::F32, {d.n}), Out(bf, {d.m, d.n})}; },
                     both(fast)),
        gemm_variant("bias_m", g::bias_m, [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(bf, {d.m}), Out(bf, {d.m, d.n})}; },
                     both(fast)),
        gemm_variant("bias_row_2d", g::bias_row_2d,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(Kind::F32, {1, d.n}), Out(bf, {d.m, d.n})}; }, both(fast)),
        gemm_variant("scale_col_2d", g::scale_col_2d,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(Kind::F32, {d.m, 1}), Out(bf, {d.m, d.n})}; }, both(fast)),
        gemm_variant("scale_from_memory", g::scale_from_memory,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(Kind::F32, {1}), Out(bf, {d.m, d.n})}; }, both(fast)),
        gemm_variant("epi_iota_mask", g::epi_iota_mask, plain, both(fast)),
        gemm_variant("epi_lower_triangle", g::epi_lower_triangle, plain, both(fast)),
        gemm_variant("epi_lower_triangle_nm", g::epi_lower_triangle_nm, plain,
                     both(gemm_why("the epilogue computes tiles with the accumulator's axes swapped ([n, m]: an operation whose first operand is over n only)"))),
        gemm_variant("bias_first", g::bias_first,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(Kind::F32, {d.n}), Out(bf, {d.m, d.n})}; }, both(fast)),
        gemm_variant("seed_bias_relu", g::seed_bias_relu,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(Kind::F32, {1, d.n}), Out(bf, {d.m, d.n})}; }, both(fast)),
        gemm_variant("seed_row_scale", g::seed_row_scale,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(Kind::F32, {d.m, 1}), Out(bf, {d.m, d.n})}; }, both(fast)),
        // (The bias has max(m, n) elements: read at n0 + r - m0.)
        gemm_variant("vector_crossed", g::vector_crossed,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(Kind::F32, {std::max(d.m, d.n)}), Out(bf, {d.m, d.n})}; },
                     both(gemm_why("the epilogue broadcasts a vector along the other axis of the tile than the one it was loaded along"))),
        gemm_variant("alpha_beta", g::alpha_beta,
                     [](const Dims& d) {
                         return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(bf, {d.m, d.n}), Out(bf, {d.m, d.n}), Number(Kind::F32, 1.5), Number(Kind::F32, 0.5)};
                     },
                     both(fast)),
        gemm_variant("gelu_tanh", g::gelu_tanh, [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(bf, {d.n}), Out(bf, {d.m, d.n})}; },
                     both(fast)),
        gemm_variant("gelu_erf", g::gelu_erf, plain, both(fast)),
        gemm_variant("silu", g::silu, plain, both(fast)),
        gemm_variant("relu", g::relu, plain, both(fast)),
        gemm_variant("residual", g::residual, [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(bf, {d.m, d.n}), Out(bf, {d.m, d.n})}; },
                     both(fast)),
        gemm_variant("two_outputs", g::two_outputs,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(bf, {d.n}), Out(bf, {d.m, d.n}), Out(bf, {d.m, d.n})}; },
                     both(fast)),
        gemm_variant("row_scale", g::row_scale,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(Kind::F32, {d.m}), Out(bf, {d.m, d.n})}; }, both(fast)),
        gemm_variant("col_scale_f32", g::col_scale_f32,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(Kind::F32, {d.n}), Out(Kind::F32, {d.m, d.n})}; }, both(fast)),
        gemm_variant("acc_from_c", g::acc_from_c, [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), InOut(Kind::F32, {d.m, d.n})}; },
                     both(fast)),
        // ---- layouts and ragged shapes
        gemm_variant("a_trans", g::a_trans, at_b, both(fast)),
        gemm_variant("a_trans_op", g::a_trans_op, at_b, both(fast)),
        gemm_variant("linear_bnk", g::linear_bnk, xw, both(fast)),
        gemm_variant("both_trans", g::both_trans, [](const Dims& d) { return V{In(bf, {d.k, d.m}), In(bf, {d.n, d.k}), Out(bf, {d.m, d.n})}; }, both(fast)),
        gemm_variant("batched", g::batched,
                     [](const Dims& d) { return V{In(bf, {d.batch, d.m, d.k}), In(bf, {d.batch, d.k, d.n}), Out(bf, {d.batch, d.m, d.n})}; },
                     // (The last: batches of 24 rows on 64x128 tiles, counted over the batches.)
                     {{{.m = 512, .n = 384, .k = 256, .batch = 3}, fast},
                      {{.m = 200, .n = 300, .k = 77, .batch = 3}, fast},
                      {{.m = 24, .n = 1100, .k = 64, .batch = 12}, fast}},
                     {.m = 100, .n = 130, .k = 70, .batch = 2}),
        gemm_variant("batched_shared_weight", g::batched_shared_weight,
                     [](const Dims& d) { return V{In(bf, {d.batch, d.m, d.k}), In(bf, {d.n, d.k}), In(Kind::F32, {d.n}), Out(bf, {d.batch, d.m, d.n})}; },
                     {{{.m = 512, .n = 384, .k = 256, .batch = 3}, fast}, {{.m = 200, .n = 300, .k = 77, .batch = 2}, fast}},
                     {.m = 100, .n = 130, .k = 70, .batch = 2}),
        gemm_variant("batched_heads_4d", g::batched_heads_4d,
                     [](const Dims& d) {
                         return V{In(bf, {d.batch, 2, d.m, d.k}), In(bf, {d.batch, 2, d.n, d.k}), Out(Kind::F32, {d.batch, 2, d.m, d.n})};
                     },
                     {{{.m = 256, .n = 384, .k = 128, .batch = 2}, fast}, {{.m = 200, .n = 300, .k = 72, .batch = 3}, fast}},
                     {.m = 100, .n = 130, .k = 64, .batch = 2}),
        gemm_variant("batched_grouped", g::batched_grouped,
                     [](const Dims& d) { return V{In(bf, {d.batch, 4, d.m, d.k}), In(bf, {d.batch, 2, d.k, d.n}), Out(bf, {d.batch, 4, d.m, d.n})}; },
                     {{{.m = 256, .n = 384, .k = 256, .batch = 2}, fast}, {{.m = 200, .n = 136, .k = 80, .batch = 1}, fast}},
                     {.m = 100, .n = 130, .k = 70, .batch = 2}),
        gemm_variant("ragged", g::ragged, plain, both(fast)),
        gemm_variant("ragged_fallback", g::ragged_fallback, plain, both(fast)),
        gemm_variant("decode64", g::decode64, xw, {{even, fast}, {ragged, fast}, {{.m = 16, .n = 512, .k = 256}, fast}}),
        gemm_variant("linear_bias_gelu_res", g::linear_bias_gelu_res,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.n, d.k}), In(bf, {d.n}), In(bf, {d.m, d.n}), Out(bf, {d.m, d.n})}; },
                     both(fast)),
        gemm_variant("ragged_mask", g::ragged_mask, plain, both(fast)),
        // ---- more tiles, batches, grids, accumulator starts
        gemm_variant("t128x192x64", g::t128x192x64, plain, both(fast)),
        gemm_variant("t128x128x128", g::t128x128x128, plain, both(fast)),
        gemm_variant("t32x32x32", g::t32x32x32, plain, both(fast)),
        gemm_variant("t128x64x64", g::t128x64x64, plain, both(fast)),
        // Batches of whole 128-row tiles (a ragged m would reach into the next batch's rows).
        gemm_variant("batched_flat", g::batched_flat,
                     [](const Dims& d) { return V{In(bf, {d.batch * d.m, d.k}), In(bf, {d.batch * d.k, d.n}), Out(bf, {d.batch * d.m, d.n})}; },
                     {{{.m = 256, .n = 384, .k = 256, .batch = 2}, k_origins}, {{.m = 128, .n = 300, .k = 77, .batch = 3}, k_origins}},
                     {.m = 128, .n = 130, .k = 70, .batch = 2}),
        gemm_variant("store_transposed", g::store_transposed, [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), Out(bf, {d.n, d.m})}; },
                     both(fast)),
        gemm_variant("acc_init_bias", g::acc_init_bias,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(Kind::F32, {d.n}), Out(bf, {d.m, d.n})}; }, both(fast)),
        gemm_variant("swiglu_dual", g::swiglu_dual,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.n, d.k}), In(bf, {d.n, d.k}), Out(bf, {d.m, d.n})}; },
                     both(gemm_why("the k loop is not a 1-D loop carrying one value"))),
        gemm_variant("mma_options", g::mma_options, plain, both(fast)),
        gemm_variant("grid_nm", g::grid_nm, plain, both(fast)),
        gemm_variant("grid_flat", g::grid_flat, plain, both(fast)),
        gemm_variant("kloop_none", g::kloop_none, plain, {{{.m = 512, .n = 384, .k = 128}, fast}, {ragged, fast}}),
        // (The last: 2400 x 1000 (19 x 8 tiles), the last group of 3 rows of blocks.)
        gemm_variant("grid_grouped", g::grid_grouped, plain, {{even, fast}, {ragged, fast}, {{.m = 2400, .n = 1000, .k = 64}, fast}}),
        gemm_variant("epi_rowmax", g::epi_rowmax,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), Out(bf, {d.m, d.n}), Out(Kind::F32, {d.m, (d.n + 127) / 128})}; },
                     both(gemm_why("the epilogue has a reduce_max that is not elementwise"))),
        // ---- writable operands, static k, bf16 epilogue, split k
        gemm_variant("nonconst_full0", g::nonconst_full0, [](const Dims& d) { return V{InOut(bf, {d.m, d.k}), InOut(bf, {d.k, d.n}), Out(bf, {d.m, d.n})}; },
                     both(fast)),
        // k a multiple of 64, as the user assumes.
        gemm_variant("static_k", g::static_k, plain, {{even, fast}, {{.m = 200, .n = 300, .k = 128}, fast}}, {.m = 100, .n = 130, .k = 128}),
        gemm_variant("bf16_epilogue", g::bf16_epilogue,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), In(bf, {d.n}), Out(bf, {d.m, d.n})}; }, both(fast)),
        // P [splits, m, n] (batch: the splits).
        gemm_variant("split_k", g::split_k,
                     [](const Dims& d) { return V{In(bf, {d.m, d.k}), In(bf, {d.k, d.n}), Out(Kind::F32, {d.batch, d.m, d.n})}; },
                     {{{.m = 512, .n = 384, .k = 256, .batch = 4}, k_origins}, {{.m = 200, .n = 300, .k = 77, .batch = 2}, k_origins}},
                     {.m = 100, .n = 130, .k = 300, .batch = 3}),
    };
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Gemm, VariantPlan, ::testing::ValuesIn(gemm_table()), variant_name);
INSTANTIATE_TEST_SUITE_P(Gemm, VariantCpu, ::testing::ValuesIn(gemm_table()), variant_name);
INSTANTIATE_TEST_SUITE_P(Gemm, VariantDevice, ::testing::ValuesIn(fast_only(gemm_table())), variant_name);

}  // namespace kiln::variants
