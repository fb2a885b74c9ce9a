// The FlashAttention kernel's start (attention_producer.h).
#include "targets/cuda/attention_producer.h"

#include <algorithm>

#include "ir/attrs.h"
#include "targets/cuda/emitter.h"

namespace kiln::cu {

using ir::Node;

namespace {

// The TMA coordinates of a tile load: innermost (channel) first, then the row (dim
// `row_dim` of the view), then the other indices from the innermost out: the order of
// the tensor map's dims (launch_args.cpp: attention_launch).
std::string coords(FragmentValues& values, const Node* load, int row_dim, const std::string& channel, const std::string& row) {
    const int rank = ir::access_rank(*load);
    std::string c = channel + ", " + row;
    for (int i = rank - 2; i >= 0; --i)
        if (i != row_dim) c += ", (int)(" + values.expr(load->operands[static_cast<std::size_t>(i)], Where::cta) + ")";
    return c;
}

// A load's leading coordinates (those after the row) as ints named `prefix`0, 1,
// ..., declared once per tile, and the suffix of its tma_load's coordinates: the
// producer runs on 24 registers, and these would otherwise be recomputed from
// 64-bit grid indices held through its loop.
struct Leading {
    std::string declare, suffix;
};
Leading leading(FragmentValues& values, const Node* load, int row_dim, const std::string& prefix) {
    const int rank = ir::access_rank(*load);
    Leading l;
    for (int i = rank - 2, j = 0; i >= 0; --i) {
        if (i == row_dim) continue;
        const std::string name = prefix + num(j++);
        l.declare += "        const int " + name + " = (int)(" + values.expr(load->operands[static_cast<std::size_t>(i)], Where::cta) + ");\n";
        l.suffix += ", " + name;
    }
    return l;
}

}  // namespace

AttentionRing attention_ring(const AttentionKernel& k) {
    AttentionRing r;
    r.q_bytes = std::int64_t{kAttentionRows} * k.d * 2;
    r.k_bytes = std::int64_t{k.bn} * k.d * 2;
    r.v_bytes = std::int64_t{k.bn} * k.dv * 2;
    r.stage_bytes = r.k_bytes + r.v_bytes;
    return r;
}

std::string attention_tile(FragmentValues& values, const passes::AttentionMatch& m, const AttentionKernel& k) {
    (void)k;
    constexpr int kRows = kAttentionRows;
    std::string s;
    const ir::Node* grid = m.grid;
    const int rank = static_cast<int>(grid->operands.size());
    // The tile's coordinates. The other grid indices (batch, head) are taken in groups
    // of a few, so that the tiles running at once share their keys and values in L2:
    // numbered across every head, the 132 tiles in flight read 132 heads' keys and
    // values (264 MB at 4096 keys, d 128), far more than the 50 MB of L2, and every
    // query block read them from memory again (an H200: 67% of DRAM bandwidth, 28% L2
    // hits). A group spans about two waves of tiles, its keys and values (about
    // 264 x 128 rows at every head dimension) well inside L2. Within a group the last
    // query blocks (the longest under a causal trip count) come first: a persistent
    // CTA, taking every gridDim.x-th tile, then takes a long and a short one in turn.
    const std::int64_t group_ctas = 2 * 132 * 128 / std::max<std::int64_t>(128, std::max(k.d, k.dv));
    // In 32 bits (the launch keeps the tile count and every extent below 2^31): a
    // 64-bit division is a call, and both roles are short of registers.
    s += "        const int kiln_rctas = (int)kiln_row_ctas, kiln_others = (int)(kiln_ctas / kiln_row_ctas);\n";
    if (k.l2_groups)
        s += "        const int kiln_group = kiln_rctas >= " + num(group_ctas) + " ? 1 : " + num(group_ctas) + " / kiln_rctas;\n";
    else
        s += "        const int kiln_group = kiln_others;  // one group: KILN_ATTENTION_L2_GROUPS=0\n";
    s += "        const int kiln_first = (int)kiln_tile / (kiln_group * kiln_rctas) * kiln_group;  // the group's first index\n";
    s += "        const int kiln_members = kiln_others - kiln_first < kiln_group ? kiln_others - kiln_first : kiln_group;\n";
    s += "        const int kiln_local = (int)kiln_tile - kiln_first * kiln_rctas;\n";
    s += "        const long long kiln_rb = kiln_rctas - 1 - kiln_local / kiln_members;\n";
    s += "        [[maybe_unused]] int kiln_rest = kiln_first + kiln_local % kiln_members;\n";
    for (int a = rank - 1; a >= 0; --a) {
        if (a == m.row_axis) continue;
        s += "        const long long kiln_g" + num(a) + " = kiln_rest % (int)kiln_ge" + num(a) + "; kiln_rest /= (int)kiln_ge" + num(a) + ";\n";
    }
    s += "        const long long kiln_R0 = kiln_rb * " + num(kRows) + ";\n";
    s += "        [[maybe_unused]] const long long kiln_rows = kiln_ge" + num(m.row_axis) + " * " + num(m.bq) + ";  // rows the program covers\n";
    return s;
}

std::string attention_tile_limits(FragmentValues& values, const passes::AttentionMatch& m, const AttentionKernel& k) {
    constexpr int kRows = kAttentionRows;
    std::string s;
    // The program's key limit of query block i: T(i) key blocks. The tile runs
    // enough blocks for its longest row and masks per row past that row's limit.
    s += "        auto kiln_limit = [&](long long kiln_i) -> long long {\n";
    s += "            [[maybe_unused]] const long long kiln_gi[2] = {kiln_i, kiln_i};\n";
    s += "            [[maybe_unused]] const int h = 0;\n";
    s += "            const long long t = (long long)(" + values.expr(m.loop->operands[0], Where::row) + ");\n";
    s += "            return kiln_i < kiln_ge" + num(m.row_axis) + " && t > 0 ? t * " + num(m.bk) + " : 0;\n";
    s += "        };\n";
    s += "        long long kiln_lim_min = 0x7fffffffffffffffLL, kiln_lim_max = 0;\n";
    // The producer's loops stay rolled: it runs at 24 registers (setmaxnreg), and NVVM's
    // unrolling of them had left it a 24-byte stack frame and 52 bytes of spills, and cost
    // 7-10% of the module's compile time; each trip issues a few TMA loads, so nothing runs faster unrolled.
    s += "        #pragma unroll 1\n";
    s += "        for (long long i = kiln_R0 / " + num(m.bq) + "; i <= (kiln_R0 + " + num(kRows - 1) + ") / " + num(m.bq) + "; ++i) {\n";
    s += "            const long long l = kiln_limit(i);\n";
    s += "            kiln_lim_min = l < kiln_lim_min ? l : kiln_lim_min;\n";
    s += "            kiln_lim_max = l > kiln_lim_max ? l : kiln_lim_max;\n";
    s += "        }\n";
    s += "        const int kiln_blocks = (int)((kiln_lim_max + " + num(k.bn - 1) + ") / " + num(k.bn) + ");\n";
    // The key tiles' offset (AttentionMatch::key_offset: a sliding window's first key),
    // the same for the tile's rows (the match keeps a query block a whole number of row
    // tiles where it moves with it). Key coordinates are kiln_koff + the key's index
    // within the range the loop covers.
    if (m.key_offset) {
        s += "        const long long kiln_koff = [&] {\n";
        s += "            [[maybe_unused]] const long long kiln_gi[2] = {kiln_R0 / " + num(m.bq) + ", kiln_R0 / " + num(m.bq) + "};\n";
        s += "            [[maybe_unused]] const int h = 0;\n";
        s += "            return (long long)(" + values.expr(m.key_offset, Where::row) + ") * " + num(m.key_offset_scale) + "LL;\n";
        s += "        }();\n";
    }
    return s;
}

std::string attention_cta_and_producer(FragmentValues& values, const passes::AttentionMatch& m, const AttentionKernel& k) {
    constexpr int kRows = kAttentionRows;
    std::string s;
    // Shared memory: Q (D/64 boxes of [128 rows][64], each warpgroup's 64 rows a half
    // of every box), then per stage K (D/64 boxes of [BN][64]) and V (DV/64 boxes of
    // [BN][64]), then the mbarriers.
    const AttentionRing ring = attention_ring(k);
    const std::int64_t q_bytes = ring.q_bytes, k_bytes = ring.k_bytes, v_bytes = ring.v_bytes, stage_bytes = ring.stage_bytes;
    s += "    unsigned char* const kiln_q = kiln_smem + ((1024 - (kg::smem_u32(kiln_smem) & 1023)) & 1023);\n";
    s += "    unsigned char* const kiln_ring = kiln_q + " + num(q_bytes) + ";\n";
    s += "    unsigned long long* const kiln_bars = reinterpret_cast<unsigned long long*>(kiln_ring + " + num(k.stages * stage_bytes) + ");\n";
    s += "    unsigned long long* const kiln_qfull = kiln_bars;       // [2]: a consumer warpgroup's query rows\n";
    s += "    unsigned long long* const kiln_qempty = kiln_bars + 2;  // [2]\n";
    s += "    unsigned long long* const kiln_tfull = kiln_bars + 4;   // [2]: the tile numbers the producer hands on\n";
    s += "    unsigned long long* const kiln_tempty = kiln_bars + 6;  // [2]\n";
    s += "    unsigned long long* const kiln_kfull = kiln_bars + 8;\n";
    s += "    unsigned long long* const kiln_vfull = kiln_kfull + " + num(k.stages) + ";\n";
    s += "    unsigned long long* const kiln_kempty = kiln_vfull + " + num(k.stages) + ";\n";
    s += "    unsigned long long* const kiln_vempty = kiln_kempty + " + num(k.stages) + ";\n";
    s += "    volatile unsigned* const kiln_tiles = reinterpret_cast<volatile unsigned*>(kiln_vempty + " + num(k.stages) + ");  // [2]\n";
    s += "    if (threadIdx.x == 0) {\n";
    s += "        for (int h = 0; h < 2; ++h) {\n";
    s += "            kg::mbar_init(&kiln_qfull[h], 1); kg::mbar_init(&kiln_qempty[h], 4);  // one arrival per warp of the warpgroup\n";
    s += "            kg::mbar_init(&kiln_tfull[h], 1); kg::mbar_init(&kiln_tempty[h], 8);  // one arrival per consumer warp\n";
    s += "        }\n";
    s += "        for (int i = 0; i < " + num(k.stages) + "; ++i) {\n";
    s += "            kg::mbar_init(&kiln_kfull[i], 1); kg::mbar_init(&kiln_vfull[i], 1);\n";
    s += "            kg::mbar_init(&kiln_kempty[i], 8); kg::mbar_init(&kiln_vempty[i], 8);  // one arrival per consumer warp\n";
    s += "        }\n";
    s += "        asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n";
    s += "    }\n";
    s += "    __syncthreads();\n";
    s += "    const int kiln_wg = kg::warpgroup_index();  // (emit_gemm_sm90.cuh: through a shuffle under KILN_UNIFORM_WARPGROUP)\n";
    // Producer: the CTA's tiles in turn, the ring's stage and phase running on across
    // them (a tile's query rows loaded after its first blocks: kiln_qafter). The first tile is blockIdx.x; each next one is taken from the launch's
    // tile counter (kiln_next: one atomic add, so a CTA whose tiles were short takes
    // more of them; a causal grid's tiles differ by up to the key length), or is
    // blockIdx.x + gridDim.x, ... without one. The producer hands each tile number
    // to the consumers through a two-slot ring in shared memory, the last number
    // (past the end) telling them to stop. The last CTA to stop sets the counter
    // back to zero for the next launch on the stream.
    s += "    if (kiln_wg == 0) {\n";
    s += "        kg::setmaxnreg_dec<24>();\n";
    s += "        if (threadIdx.x != 0) return;\n";
    s += "        int stage = 0;\n";
    s += "        unsigned phase = 0;\n";
    s += "        unsigned kiln_tile = blockIdx.x;\n";
    s += "        for (unsigned kiln_ti = 0;; ++kiln_ti) {\n";
    s += "        kg::mbar_wait(&kiln_tempty[kiln_ti & 1], ((kiln_ti >> 1) & 1) ^ 1);\n";
    s += "        kiln_tiles[kiln_ti & 1] = kiln_tile;\n";
    s += "        kg::mbar_arrive(&kiln_tfull[kiln_ti & 1]);\n";
    s += "        if (kiln_tile >= kiln_ctas) break;\n";
    s += attention_tile(values, m, k);
    s += attention_tile_limits(values, m, k);
    const Leading lk = leading(values, m.load_k, m.k_row_dim, "kiln_kc"), lv = leading(values, m.load_v, m.v_row_dim, "kiln_vc");
    const std::string key_coordinate = (m.key_offset ? std::string("(int)kiln_koff + ") : std::string()) + "kb * " + num(k.bn);
    s += lk.declare + lv.declare;
    s += "        auto kiln_load_q = [&] {\n";
    s += "            for (int h = 0; h < 2; ++h) {\n";
    s += "                kg::mbar_wait(&kiln_qempty[h], (kiln_ti & 1) ^ 1);  // once a tile\n";
    s += "                kg::mbar_expect_tx(&kiln_qfull[h], " + num(q_bytes / 2) + ");\n";
    s += "                for (int x = 0; x < " + num(k.d / 64) + "; ++x) kg::tma_load(kiln_q + x * " + num(kRows * 128) + " + h * " + num(kRows / 2 * 128) +
         ", &kiln_tq, &kiln_qfull[h], " + coords(values, m.load_q, m.q_row_dim, "x * 64", "(int)kiln_R0 + 64 * h") + ");\n";
    s += "            }\n";
    s += "        };\n";
    // The query rows after the key/value blocks the ring can take before the previous
    // tile's consumers release them: all its stages if they release them after their
    // epilogue (staged output), else all but the one its last block holds, whose
    // product follows the release. On the CTA's first tile, first.
    const int ahead = k.staged_output ? k.stages : k.stages - 1;
    s += "        const int kiln_qafter = kiln_ti == 0 ? 0 : kiln_blocks < " + num(ahead) + " ? kiln_blocks : " + num(ahead) + ";\n";
    s += "        #pragma unroll 1\n";
    s += "        for (int kb = 0; kb < kiln_blocks; ++kb) {\n";
    s += "            if (kb == kiln_qafter) kiln_load_q();\n";
    s += "            unsigned char* const kst = kiln_ring + stage * " + num(stage_bytes) + ";\n";
    s += "            kg::mbar_wait(&kiln_kempty[stage], phase ^ 1);\n";
    s += "            kg::mbar_expect_tx(&kiln_kfull[stage], " + num(k_bytes) + ");\n";
    if (k.k_transposed)  // boxes of [d channels][64 keys] (the suffix starts at channel 0)
        s += "            for (int x = 0; x < " + num(k.bn / 64) + "; ++x) kg::tma_load(kst + x * " + num(std::int64_t{k.d} * 128) +
             ", &kiln_tk, &kiln_kfull[stage], " + key_coordinate + " + x * 64" + lk.suffix + ");\n";
    else
        s += "            for (int x = 0; x < " + num(k.d / 64) + "; ++x) kg::tma_load(kst + x * " + num(k.bn * 128) + ", &kiln_tk, &kiln_kfull[stage], " +
             "x * 64, " + key_coordinate + lk.suffix + ");\n";
    s += "            kg::mbar_wait(&kiln_vempty[stage], phase ^ 1);\n";
    s += "            kg::mbar_expect_tx(&kiln_vfull[stage], " + num(v_bytes) + ");\n";
    s += "            for (int x = 0; x < " + num(k.dv / 64) + "; ++x) kg::tma_load(kst + " + num(k_bytes) + " + x * " + num(k.bn * 128) +
         ", &kiln_tv, &kiln_vfull[stage], " + "x * 64, " + key_coordinate + lv.suffix + ");\n";
    s += "            if (++stage == " + num(k.stages) + ") stage = 0, phase ^= 1;\n";
    s += "        }\n";
    s += "        if (kiln_qafter == kiln_blocks) kiln_load_q();\n";
    s += "        kiln_tile = kiln_next ? atomicAdd(kiln_next, 1u) + gridDim.x : kiln_tile + gridDim.x;\n";
    s += "        }\n";
    s += "        if (kiln_next) {\n";
    s += "            __threadfence();  // this CTA's last take of the counter before its count of stopped CTAs\n";
    s += "            if (atomicAdd(kiln_next + 1, 1u) == gridDim.x - 1) kiln_next[0] = 0, kiln_next[1] = 0;\n";
    s += "        }\n";
    s += "    } else {\n";
    return s;
}

}  // namespace kiln::cu
