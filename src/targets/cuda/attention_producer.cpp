// The FlashAttention kernel's start (attention_producer.h).
#include "targets/cuda/attention_producer.h"

#include <algorithm>

#include "ir/attrs.h"
#include "targets/cuda/emitter.h"

namespace kiln::cu {

using ir::Node;

namespace {

// The TMA coordinates of a tile load: innermost (channel) first, then the row,
// then the leading indices from the innermost out.
std::string coords(FragmentValues& values, const Node* load, const std::string& channel, const std::string& row) {
    const int rank = ir::access_rank(*load);
    std::string c = channel + ", " + row;
    for (int i = rank - 3; i >= 0; --i) c += ", (int)(" + values.expr(load->operands[static_cast<std::size_t>(i)], Where::cta) + ")";
    return c;
}

}  // namespace

AttentionRing attention_ring(const passes::AttentionMatch& m, const AttentionKernel& k) {
    AttentionRing r;
    r.q_bytes = std::int64_t{kAttentionRows} * m.d * 2;
    r.k_bytes = std::int64_t{k.bn} * m.d * 2;
    r.v_bytes = std::int64_t{k.bn} * m.dv * 2;
    r.stage_bytes = r.k_bytes + r.v_bytes;
    return r;
}

std::string attention_cta_and_producer(FragmentValues& values, const passes::AttentionMatch& m, const AttentionKernel& k) {
    constexpr int kRows = kAttentionRows;
    std::string s;
    const ir::Node* grid = m.grid;
    const int rank = static_cast<int>(grid->operands.size());
    // Per-CTA coordinates. The other grid indices (batch, head) are taken in groups
    // of a few, so that the CTAs running at once share their keys and values in L2:
    // numbered across every head, the 132 CTAs in flight read 132 heads' keys and
    // values (264 MB at 4096 keys, d 128), far more than the 50 MB of L2, and every
    // query block read them from memory again (an H200: 67% of DRAM bandwidth, 28% L2
    // hits). A group spans about two waves of CTAs, its keys and values (about
    // 264 x 128 rows at every head dimension) well inside L2. Within a group the last
    // query blocks (the longest under a causal trip count) come first.
    const std::int64_t group_ctas = 2 * 132 * 128 / std::max<std::int64_t>(128, std::max(m.d, m.dv));
    s += "    const long long kiln_others = kiln_ctas / kiln_row_ctas;\n";
    if (k.l2_groups)
        s += "    const long long kiln_group = kiln_row_ctas >= " + num(group_ctas) + " ? 1 : " + num(group_ctas) + " / kiln_row_ctas;\n";
    else
        s += "    const long long kiln_group = kiln_others;  // one group: KILN_ATTENTION_L2_GROUPS=0\n";
    s += "    const long long kiln_first = (long long)blockIdx.x / (kiln_group * kiln_row_ctas) * kiln_group;  // the group's first index\n";
    s += "    const long long kiln_members = kiln_others - kiln_first < kiln_group ? kiln_others - kiln_first : kiln_group;\n";
    s += "    const long long kiln_local = (long long)blockIdx.x - kiln_first * kiln_row_ctas;\n";
    s += "    const long long kiln_rb = kiln_row_ctas - 1 - kiln_local / kiln_members;\n";
    s += "    [[maybe_unused]] long long kiln_rest = kiln_first + kiln_local % kiln_members;\n";
    for (int a = rank - 1; a >= 0; --a) {
        if (a == m.row_axis) continue;
        s += "    const long long kiln_g" + num(a) + " = kiln_rest % kiln_ge" + num(a) + "; kiln_rest /= kiln_ge" + num(a) + ";\n";
    }
    s += "    const long long kiln_R0 = kiln_rb * " + num(kRows) + ";\n";
    s += "    const long long kiln_rows = kiln_ge" + num(m.row_axis) + " * " + num(m.bq) + ";  // rows the program covers\n";
    // The program's key limit of query block i: T(i) key blocks. The CTA runs
    // enough blocks for its longest row and masks per row past that row's limit.
    s += "    auto kiln_limit = [&](long long kiln_i) -> long long {\n";
    s += "        [[maybe_unused]] const long long kiln_gi[2] = {kiln_i, kiln_i};\n";
    s += "        [[maybe_unused]] const int h = 0;\n";
    s += "        const long long t = (long long)(" + values.expr(m.loop->operands[0], Where::row) + ");\n";
    s += "        return kiln_i < kiln_ge" + num(m.row_axis) + " && t > 0 ? t * " + num(m.bk) + " : 0;\n";
    s += "    };\n";
    s += "    long long kiln_lim_min = 0x7fffffffffffffffLL, kiln_lim_max = 0;\n";
    s += "    for (long long i = kiln_R0 / " + num(m.bq) + "; i <= (kiln_R0 + " + num(kRows - 1) + ") / " + num(m.bq) + "; ++i) {\n";
    s += "        const long long l = kiln_limit(i);\n";
    s += "        kiln_lim_min = l < kiln_lim_min ? l : kiln_lim_min;\n";
    s += "        kiln_lim_max = l > kiln_lim_max ? l : kiln_lim_max;\n";
    s += "    }\n";
    s += "    const int kiln_blocks = (int)((kiln_lim_max + " + num(k.bn - 1) + ") / " + num(k.bn) + ");\n";
    // Shared memory: Q (D/64 boxes of [128 rows][64]), then per stage K (D/64 boxes
    // of [BN][64]) and V (DV/64 boxes of [BN][64]), then the mbarriers.
    const AttentionRing ring = attention_ring(m, k);
    const std::int64_t q_bytes = ring.q_bytes, k_bytes = ring.k_bytes, v_bytes = ring.v_bytes, stage_bytes = ring.stage_bytes;
    s += "    unsigned char* const kiln_q = kiln_smem + ((1024 - (kg::smem_u32(kiln_smem) & 1023)) & 1023);\n";
    s += "    unsigned char* const kiln_ring = kiln_q + " + num(q_bytes) + ";\n";
    s += "    unsigned long long* const kiln_bars = reinterpret_cast<unsigned long long*>(kiln_ring + " + num(k.stages * stage_bytes) + ");\n";
    s += "    unsigned long long* const kiln_qfull = kiln_bars;\n";
    s += "    unsigned long long* const kiln_kfull = kiln_bars + 1;\n";
    s += "    unsigned long long* const kiln_vfull = kiln_kfull + " + num(k.stages) + ";\n";
    s += "    unsigned long long* const kiln_kempty = kiln_vfull + " + num(k.stages) + ";\n";
    s += "    unsigned long long* const kiln_vempty = kiln_kempty + " + num(k.stages) + ";\n";
    s += "    if (threadIdx.x == 0) {\n";
    s += "        kg::mbar_init(kiln_qfull, 1);\n";
    s += "        for (int i = 0; i < " + num(k.stages) + "; ++i) {\n";
    s += "            kg::mbar_init(&kiln_kfull[i], 1); kg::mbar_init(&kiln_vfull[i], 1);\n";
    s += "            kg::mbar_init(&kiln_kempty[i], 8); kg::mbar_init(&kiln_vempty[i], 8);  // one arrival per consumer warp\n";
    s += "        }\n";
    s += "        asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n";
    s += "    }\n";
    s += "    __syncthreads();\n";
    s += "    const int kiln_wg = kg::warpgroup_index();  // (emit_gemm_sm90.cuh: through a shuffle under KILN_UNIFORM_WARPGROUP)\n";
    // Producer.
    s += "    if (kiln_wg == 0) {\n";
    s += "        kg::setmaxnreg_dec<24>();\n";
    s += "        if (threadIdx.x != 0) return;\n";
    s += "        kg::mbar_expect_tx(kiln_qfull, " + num(q_bytes) + ");\n";
    s += "        for (int x = 0; x < " + num(m.d / 64) + "; ++x) kg::tma_load(kiln_q + x * " + num(kRows * 128) + ", &kiln_tq, kiln_qfull, " +
         coords(values, m.load_q, "x * 64", "(int)kiln_R0") + ");\n";
    s += "        int stage = 0;\n";
    s += "        unsigned phase = 0;\n";
    s += "        for (int kb = 0; kb < kiln_blocks; ++kb) {\n";
    s += "            unsigned char* const kst = kiln_ring + stage * " + num(stage_bytes) + ";\n";
    s += "            kg::mbar_wait(&kiln_kempty[stage], phase ^ 1);\n";
    s += "            kg::mbar_expect_tx(&kiln_kfull[stage], " + num(k_bytes) + ");\n";
    s += "            for (int x = 0; x < " + num(m.d / 64) + "; ++x) kg::tma_load(kst + x * " + num(k.bn * 128) + ", &kiln_tk, &kiln_kfull[stage], " +
         coords(values, m.load_k, "x * 64", "kb * " + num(k.bn)) + ");\n";
    s += "            kg::mbar_wait(&kiln_vempty[stage], phase ^ 1);\n";
    s += "            kg::mbar_expect_tx(&kiln_vfull[stage], " + num(v_bytes) + ");\n";
    s += "            for (int x = 0; x < " + num(m.dv / 64) + "; ++x) kg::tma_load(kst + " + num(k_bytes) + " + x * " + num(k.bn * 128) +
         ", &kiln_tv, &kiln_vfull[stage], " + coords(values, m.load_v, "x * 64", "kb * " + num(k.bn)) + ");\n";
    s += "            if (++stage == " + num(k.stages) + ") stage = 0, phase ^= 1;\n";
    s += "        }\n";
    s += "    } else {\n";
    return s;
}

}  // namespace kiln::cu
