// The Hopper FlashAttention kernel (emit_attention.h): its consumers (the two
// schedules, the softmax of a key block in up to three forms) and the
// kernel's text. Values are written over wgmma fragments by attention_values.h; the
// kernel's start and its producer are attention_producer.h. The S registers
// 8kk..8kk+7 are, pairwise, the A operand of k-step kk of the P V product (the
// m64nNk16 register layout), so P never leaves registers.
#include "targets/cuda/emit_attention.h"

#include <algorithm>
#include <unordered_set>

#include "ir/attrs.h"
#include "passes/dataflow_match.h"
#include "targets/common/embedded_text.h"
#include "targets/cuda/attention_epilogue.h"
#include "targets/cuda/attention_producer.h"
#include "targets/cuda/attention_values.h"
#include "targets/cuda/emitter.h"
#include "targets/cuda/wgmma_text.h"

namespace kiln::cu {

namespace {

using passes::AttentionMatch;

constexpr std::int64_t kSharedLimit = 227 * 1024;  // opt-in shared memory of an sm_90 CTA
constexpr int kRows = kAttentionRows;


class AttentionWriter {
public:
    AttentionWriter(Emitter& E, const AttentionMatch& m, const AttentionKernel& k) : m_(m), k_(k), values_(E, m, k.bn) {
        values_.set_fold_scale(k.fold_scale);
    }

    // The kernel's body after its signature.
    std::string write() {
        std::string s;
        const ir::Region& body = *m_.loop->body;
        const AttentionRing ring = attention_ring(k_);
        const std::int64_t stage_bytes = ring.stage_bytes, k_bytes = ring.k_bytes;
        stage_bytes_ = stage_bytes;
        k_bytes_ = k_bytes;
        s += attention_cta_and_producer(values_, m_, k_);
        // Consumers: the other branch of the one if/else over roles, so that ptxas
        // allocates their code the registers setmaxnreg gives them.
        s += "    kg::setmaxnreg_inc<240>();\n";
        s += "    const int kiln_wgc = kiln_wg - 1, kiln_warp = threadIdx.x % 128 / 32, lane = threadIdx.x % 32;\n";
        if (k_.pingpong) s += "    kg::turn_first(kiln_wgc);\n";
        // The ring's stage and phase run on across the CTA's tiles, as the producer's
        // do; the query rows' barrier completes once a tile, so its phase is the
        // tile's count's parity.
        s += "    int kiln_stage = 0;\n";
        s += "    unsigned kiln_phase = 0;\n";
        // A deferred output: the previous tile's, packed (attention_quad_pack), and its
        // tile's number (none: ~0u), stored once this tile's first S is issued.
        // (The program's dv columns: the kernel's padding past them is never stored.)
        if (k_.defer_output) s += "    unsigned kiln_out[" + num(m_.dv / 4) + "], kiln_pend = ~0u;\n";
        s += "    for (unsigned kiln_ti = 0;; ++kiln_ti) {\n";
        s += "    kg::mbar_wait(&kiln_tfull[kiln_ti & 1], (kiln_ti >> 1) & 1);\n";
        // The tile's number stays in its slot until this tile's end (the producer
        // refills the slot only after that arrival), so the epilogue reads it
        // again rather than holding the tile's coordinates in registers through
        // the loop: the consumers have none to spare.
        s += "    const unsigned kiln_tile = kiln_tiles[kiln_ti & 1];\n";
        if (k_.defer_output) s += "    if (kiln_tile >= kiln_ctas) {\n" + deferred_store() + "        break;\n    }\n";
        else s += "    if (kiln_tile >= kiln_ctas) break;\n";
        s += attention_tile(values_, m_, k_);
        s += attention_tile_limits(values_, m_, k_);
        // 32-bit: the launch keeps rows and keys below 2^31 (TMA coordinates), and
        // registers are what the consumers are short of.
        s += "    int kiln_row[2], kiln_gi[2], kiln_im[2], kiln_lim[2];\n";
        s += "    for (int h = 0; h < 2; ++h) {\n";
        s += "        kiln_row[h] = (int)(kiln_R0 + kiln_wgc * 64 + kiln_warp * 16 + lane / 4 + 8 * h);\n";
        s += "        kiln_gi[h] = kiln_row[h] / " + num(m_.bq) + ";\n";
        s += "        kiln_im[h] = kiln_row[h] % " + num(m_.bq) + ";\n";
        s += "        const long long lim = kiln_limit(kiln_gi[h]);\n";
        s += "        kiln_lim[h] = lim < 0x7fffffffLL ? (int)lim : 0x7fffffff;\n";
        s += "    }\n";
        // The warpgroup's rows as intervals of the program's query block and of the row
        // index within it (for the interval proofs of the masks).
        s += "    const long long kiln_rw = kiln_R0 + kiln_wgc * 64;\n";
        s += "    [[maybe_unused]] const long long kiln_gi_lo = kiln_rw / " + num(m_.bq) + ", kiln_gi_hi = (kiln_rw + 63) / " + num(m_.bq) + ";\n";
        s += "    [[maybe_unused]] const long long kiln_im_lo = kiln_gi_lo == kiln_gi_hi ? kiln_rw % " + num(m_.bq) + " : 0;\n";
        s += "    [[maybe_unused]] const long long kiln_im_hi = kiln_gi_lo == kiln_gi_hi ? (kiln_rw + 63) % " + num(m_.bq) + " : " + num(m_.bq - 1) + ";\n";
        s += "    float kiln_m[2], kiln_l[2], kiln_o[" + num(k_.dv / 2) + "];\n";
        s += "    for (int h = 0; h < 2; ++h) {\n";
        s += "        kiln_m[h] = " + expr(m_.init_max->operands[0], Where::cta) + ";\n";
        s += "        kiln_l[h] = " + expr(m_.init_sum->operands[0], Where::cta) + ";\n";
        s += "    }\n";
        s += "#pragma unroll\n";
        s += "    for (int j = 0; j < " + num(k_.dv / 2) + "; ++j) kiln_o[j] = 0.0f;\n";
        // The maximum over the program's first key block (AttentionKernel::first_block_nan).
        if (k_.first_block_nan) s += "    float kiln_first_max[2] = {-__int_as_float(0x7f800000), -__int_as_float(0x7f800000)};\n";
        s += "    kg::mbar_wait(&kiln_qfull[kiln_wgc], kiln_ti & 1);\n";
        s += query_prologue();
        if (!k_.overlap) {
            // One block after the other: S = Q K^T, the softmax, O += P V, each waited for.
            s += "    for (int kiln_kb = 0; kiln_kb < kiln_blocks; ++kiln_kb) {\n";
            s += "        [[maybe_unused]] const long long kiln_t = kiln_kb;\n";
            s += "        const unsigned char* const kiln_kst = kiln_ring + kiln_stage * " + num(stage_bytes) + ";\n";
            s += "        const unsigned char* const kiln_vst = kiln_kst + " + num(k_bytes) + ";\n";
            mode_ = Mode::serial;
            s += variants(body);
            s += "        if (++kiln_stage == " + num(k_.stages) + ") kiln_stage = 0, kiln_phase ^= 1;\n";
            s += "    }\n";
        } else if (k_.rotated) {
            mode_ = Mode::pipelined;
            s += rotated_blocks(body);
        } else {
            // Software-pipelined (FlashAttention-3's intra-warpgroup overlap): the
            // softmax of block t + 1 runs while O += P_t V_t is on the tensor cores.
            // Per iteration: issue S_{t+1} = Q K_{t+1}^T; rescale O by alpha_t (the
            // factor block t's softmax computed); issue O += P_t V_t; wait for S_{t+1}
            // only (wait_group 1 leaves the newest group, the product, pending);
            // its softmax in place (probabilities over S's registers, alpha_{t+1}
            // kept); wait for the product; pack P_{t+1} into the registers the next
            // product reads.
            mode_ = Mode::pipelined;
            s += "    unsigned kiln_p[" + num(k_.bn / 16) + "][4];\n";
            s += "    float kiln_s[" + num(k_.bn / 2) + "], kiln_alpha[2];\n";
            s += "#pragma unroll\n";
            s += "    for (int j = 0; j < " + num(k_.bn / 2) + "; ++j) kiln_s[j] = 0.0f;\n";
            s += "    if (kiln_blocks > 0) {\n";
            s += "        [[maybe_unused]] const long long kiln_t = 0;\n";
            s += "        kg::mbar_wait(&kiln_kfull[kiln_stage], kiln_phase);\n";
            s += turn_wait();
            s += issue_scores("(kiln_ring + kiln_stage * " + num(stage_bytes) + ")");
            s += turn_pass();
            if (k_.defer_output) {
                // The previous tile's output leaves under this first product. The wait
                // is on every path (none pending where no S was issued): one only where
                // the S was issued would have ptxas serialise every product (C7514: it
                // cannot tell that the two conditions are the same).
                s += "    }\n";
                s += deferred_store();
                s += "    kg::wgmma_wait<0>();\n";
                s += "    if (kiln_blocks > 0) {\n";
                s += "        [[maybe_unused]] const long long kiln_t = 0;\n";
            } else {
                s += "        kg::wgmma_wait<0>();\n";
            }
            s += finish_scores("kiln_stage");
            s += release_after_scores("kiln_blocks == 1");
            // A tile's first block: one block of many, so the general form only (its
            // masks evaluated) where the kernel keeps to two forms (compile time).
            first_block_ = true;
            s += k_.block_forms == 2 ? general_block(body) : variants(body);
            first_block_ = false;
            s += rescale_output();
            s += pack_probabilities();
            s += "    }\n";
            // The last block's product after the loop, so that no wgmma issue or wait
            // is conditional inside it: ptxas then knows which group wait_group 1
            // leaves pending, and does not serialise the products.
            s += "    for (int kiln_kb = 0; kiln_kb + 1 < kiln_blocks; ++kiln_kb) {\n";
            s += "        const int kiln_nstage = kiln_stage + 1 == " + num(k_.stages) + " ? 0 : kiln_stage + 1;\n";
            s += "        const unsigned kiln_nphase = kiln_stage + 1 == " + num(k_.stages) + " ? kiln_phase ^ 1 : kiln_phase;\n";
            s += "        kg::mbar_wait(&kiln_kfull[kiln_nstage], kiln_nphase);\n";
            s += turn_wait();
            s += issue_scores("(kiln_ring + kiln_nstage * " + num(stage_bytes) + ")");
            s += issue_product();
            s += turn_pass();
            s += "        kg::wgmma_wait<1>();\n";
            s += block_after_scores(body, "lane == 0");
            s += "    }\n";
            s += last_product();
        }
        s += first_block_poison();
        s += "    {\n";
        s += "    const unsigned kiln_tile = kiln_tiles[kiln_ti & 1];\n";
        s += attention_tile(values_, m_, k_);
        if (k_.defer_output) {
            s += attention_quad_pack(values_, m_);
            s += "    kiln_pend = kiln_tile;\n";
        } else {
            s += attention_epilogue(values_, m_, stores());
        }
        s += attention_row_stores(values_, m_);
        s += "    }\n";
        // The query rows' memory back to the producer for the next tile (if the
        // epilogue staged the output there: now), and the tile's slot.
        if (k_.staged_output) s += release_query_rows("    ");
        else s += "    if (kiln_blocks == 0) {\n" + release_query_rows("        ") + "    }\n";
        s += "    __syncwarp();\n";
        s += "    if (lane == 0) kg::mbar_arrive(&kiln_tempty[kiln_ti & 1]);\n";
        s += "    }\n";  // the tiles
        s += "    }\n";  // the consumers' branch
        return s;
    }

private:
    // The overlapped schedule rotated (EmitOptions::attention_rotated): the loop
    // starts one pass early, at kiln_kb = -1, where it issues S_0 and no product, so
    // that a tile's first block runs the loop's code (its forms of the softmax)
    // rather than a prologue's own copies of them. The pass's two paths each issue,
    // pass the turn and wait in full (wait_group 1 after a product, 0 after S_0
    // alone): ptxas then knows on each which groups are pending and keeps the
    // products asynchronous. (An empty commit on the first pass instead, the paths
    // joined before one wait_group 1, made ptxas add a dummy wgmma after the join,
    // on both paths: three groups in flight, and the wait would take the product too.)
    // The stage of block kiln_kb + 1 is kiln_stage's successor, or kiln_stage itself
    // for the first.
    std::string rotated_blocks(const ir::Region& body) {
        std::string s;
        s += "    unsigned kiln_p[" + num(k_.bn / 16) + "][4];\n";
        s += "    float kiln_s[" + num(k_.bn / 2) + "], kiln_alpha[2];\n";
        s += "#pragma unroll\n";
        s += "    for (int j = 0; j < " + num(k_.bn / 2) + "; ++j) kiln_s[j] = 0.0f;\n";
        // (Read by fence_product on the first pass, before any product: defined, never used.)
        s += "#pragma unroll\n";
        s += "    for (int kk = 0; kk < " + num(k_.bn / 16) + "; ++kk) for (int q = 0; q < 4; ++q) kiln_p[kk][q] = 0u;\n";
        s += "    for (int kiln_kb = -1; kiln_kb + 1 < kiln_blocks; ++kiln_kb) {\n";
        s += "        const bool kiln_wrap = kiln_kb >= 0 && kiln_stage + 1 == " + num(k_.stages) + ";\n";
        s += "        const int kiln_nstage = kiln_kb < 0 ? kiln_stage : kiln_wrap ? 0 : kiln_stage + 1;\n";
        s += "        const unsigned kiln_nphase = kiln_wrap ? kiln_phase ^ 1 : kiln_phase;\n";
        s += "        kg::mbar_wait(&kiln_kfull[kiln_nstage], kiln_nphase);\n";
        s += turn_wait();
        s += issue_scores("(kiln_ring + kiln_nstage * " + num(stage_bytes_) + ")");
        s += "        if (kiln_kb >= 0) {\n";
        s += issue_product();
        s += turn_pass();
        s += "        kg::wgmma_wait<1>();\n";
        s += "        } else {\n";
        s += turn_pass();
        // The previous tile's output leaves under this tile's first S.
        if (k_.defer_output) s += deferred_store();
        s += "        kg::wgmma_wait<0>();\n";
        s += "        }\n";
        // (No product on the first pass: no V stage to release.)
        s += block_after_scores(body, "kiln_kb >= 0 && lane == 0");
        s += "    }\n";
        s += last_product();
        // A tile without key blocks still stores the previous tile's output.
        if (k_.defer_output) s += deferred_store();
        return s;
    }

    // The overlapped loops' pass over block kiln_kb + 1 once its S has been waited for:
    // its K stage released, its softmax, then (after O += P_kb V_kb) the V stage
    // released where `v_release` holds, O rescaled and P packed for the next product.
    std::string block_after_scores(const ir::Region& body, const std::string& v_release) {
        std::string s;
        s += finish_scores("kiln_nstage");
        s += release_after_scores("kiln_kb + 2 == kiln_blocks");
        s += "        {\n";
        s += "        [[maybe_unused]] const long long kiln_t = kiln_kb + 1;\n";
        s += variants(body);
        s += "        }\n";
        s += "        kg::wgmma_wait<0>();\n";
        s += fence_product();
        s += "        if (" + v_release + ") kg::mbar_arrive(&kiln_vempty[kiln_stage]);\n";
        s += rescale_output();
        s += pack_probabilities();
        s += "        kiln_stage = kiln_nstage;\n";
        s += "        kiln_phase = kiln_nphase;\n";
        return s;
    }

    // The overlapped schedules' last block's O += P V, after their loop, so that no
    // wgmma issue or wait is conditional inside it.
    std::string last_product() const {
        std::string s;
        s += "    if (kiln_blocks > 0) {\n";
        s += turn_wait();
        s += issue_product();
        s += turn_pass();
        s += "        kg::wgmma_wait<0>();\n";
        s += fence_product();
        s += "        if (lane == 0) kg::mbar_arrive(&kiln_vempty[kiln_stage]);\n";
        // The ring runs on into the CTA's next tile.
        s += "        if (++kiln_stage == " + num(k_.stages) + ") kiln_stage = 0, kiln_phase ^= 1;\n";
        s += "    }\n";
        return s;
    }

    // The program's own ops on the query tile (AttentionMatch::q_prologue: `q * scale`),
    // applied to this warpgroup's rows of Q in shared memory once they have arrived:
    // elementwise, so each 16-byte chunk as it lies under the swizzle, then made visible
    // to the wgmma's async proxy and waited for by the warpgroup's four warps.
    std::string query_prologue() {
        if (!m_.q_prologue) return "";
        constexpr int kRows = kAttentionRows;
        const int chunks = kRows / 2 * 128 / 16;  // a warpgroup's half of one 64-channel box
        values_.set_value(m_.load_q, "kiln_qx");
        const std::string value = to_storage(m_.in, expr(m_.q_prologue, Where::score));
        values_.forget(m_.load_q);
        std::string s;
        s += "    {\n";
        s += "        unsigned char* const kiln_qw = kiln_q + kiln_wgc * " + num(kRows / 2 * 128) + ";\n";
        s += "        for (int i = threadIdx.x % 128; i < " + num(k_.d / 64 * chunks) + "; i += 128) {\n";
        if (k_.d > m_.d) {
            // Channels past the program's d (attention_kernel_head_dim) stay the zeros TMA
            // filled them with: the ops might not map 0 to 0, nor to a finite value. Chunk
            // p of a box lies in row p / 8, where the swizzle put logical chunk (p % 8) ^ (row % 8).
            s += "            if ((i / " + num(chunks) + ") * 64 + 8 * ((i % 8) ^ (i / 8 % 8)) >= " + num(m_.d) + ") continue;\n";
        }
        s += "            uint4* const kiln_c = reinterpret_cast<uint4*>(kiln_qw + (i / " + num(chunks) + ") * " + num(kRows * 128) + " + (i % " + num(chunks) +
             ") * 16);\n";
        s += "            uint4 kiln_w = *kiln_c;\n";
        s += "            unsigned short* const kiln_e = reinterpret_cast<unsigned short*>(&kiln_w);\n";
        s += "#pragma unroll\n";
        s += "            for (int u = 0; u < 8; ++u) {\n";
        s += "                const float kiln_qx = " + from_storage(m_.in, "kiln_e[u]") + ";\n";
        s += "                kiln_e[u] = " + value + ";\n";
        s += "            }\n";
        s += "            *kiln_c = kiln_w;\n";
        s += "        }\n";
        s += "        kg::fence_proxy_async_shared();\n";
        s += "        asm volatile(\"bar.sync %0, 128;\" ::\"r\"(3 + kiln_wgc) : \"memory\");  // barriers 1 and 2: the turns\n";
        s += "    }\n";
        return s;
    }

    // Re-blocked from a -inf row maximum (AttentionKernel::first_block_nan): the program's
    // rows whose first key block had every score at -inf end with their row sum and
    // accumulator NaN (exp(-inf - -inf) in its first step); the kernel's own first block,
    // which holds the program's and more, may not have been all -inf.
    std::string first_block_poison() const {
        if (!k_.first_block_nan) return "";
        std::string s;
        s += "    for (int h = 0; h < 2; ++h) kiln_first_max[h] = kg::quad_max(kiln_first_max[h]);\n";
        s += "#pragma unroll\n";
        s += "    for (int j = 0; j < " + num(k_.dv / 2) + "; ++j) {\n";
        s += "        const int h = (j >> 1) & 1;\n";
        s += "        if (kiln_lim[h] > 0 && kiln_first_max[h] == -__int_as_float(0x7f800000)) kiln_o[j] = __int_as_float(0x7fffffff);\n";
        s += "    }\n";
        s += "    for (int h = 0; h < 2; ++h)\n";
        s += "        if (kiln_lim[h] > 0 && kiln_first_max[h] == -__int_as_float(0x7f800000)) kiln_l[h] = __int_as_float(0x7fffffff);\n";
        return s;
    }

    // The previous tile's deferred output stored (its coordinates from its number), if any.
    std::string deferred_store() {
        std::string s;
        s += "    if (kiln_pend != ~0u) {\n";
        s += "    const unsigned kiln_tile = kiln_pend;\n";
        s += attention_tile(values_, m_, k_);
        s += attention_quad_store(values_, m_);
        s += "    kiln_pend = ~0u;\n";
        s += "    }\n";
        return s;
    }
    AttentionStores stores() const {
        return k_.quad_output ? AttentionStores::quads : k_.staged_output ? AttentionStores::staged : AttentionStores::direct;
    }
    // This warpgroup's query rows back to the producer, once its products have read
    // them and (staged output) its epilogue is done with their memory: the proxy
    // fence orders the epilogue's generic accesses before the TMA writes that refill it.
    static std::string release_query_rows(const std::string& indent) {
        return indent + "kg::fence_proxy_async_shared();\n" + indent + "__syncwarp();\n" + indent + "if (lane == 0) kg::mbar_arrive(&kiln_qempty[kiln_wgc]);\n";
    }
    // Unless the epilogue stages the output there: once S = Q K^T of the tile's last
    // block has been waited for (`last`: whether this was it), so that the next
    // tile's rows load under this one's last product and epilogue.
    std::string release_after_scores(const std::string& last) const {
        if (k_.staged_output) return "";
        return "        if (" + last + ") {\n" + release_query_rows("            ") + "        }\n";
    }

    // The block kiln_t's softmax (and, serially, its products) in up to three forms:
    // blocks wholly inside every row's key limit skip the per-row limit masks; of
    // those, blocks where each of the program's masks is proven true over the
    // warpgroup's rows and the block's keys (interval arithmetic on the masks' index
    // expressions: a causal diagonal, a key tail) skip the masks too.
    // With two forms (AttentionKernel::block_forms; each form is a copy of the
    // unrolled softmax, and compile time grows with them): the blocks with every mask
    // proven, else those inside every row's limit, and the general form for the rest.
    std::string variants(const ir::Region& body) {
        std::string s;
        s += "        const bool kiln_inside = (kiln_t + 1) * " + num(k_.bn) + " <= kiln_lim_min;\n";
        std::string interior = values_.interior_condition(body);
        if (!interior.empty()) {
            s += "        if (kiln_inside && " + interior + ") {\n";
            values_.set_interior(true);
            s += block(body, false);
            values_.set_interior(false);
            if (k_.block_forms == 2) {
                s += "        } else {\n" + general_block(body) + "        }\n";
                return s;
            }
            s += "        } else if (kiln_inside) {\n";
        } else {
            s += "        if (kiln_inside) {\n";
        }
        s += k_.rolled_forms >= 2 ? rolled_form(body, false) : block(body, false);
        s += "        } else {\n";
        s += general_block(body);
        s += "        }\n";
        return s;
    }
    // A block in the form every block may take: each row's key limit and the program's masks evaluated.
    std::string general_block(const ir::Region& body) {
        std::string s;
        s += "            bool kiln_active[2];\n";
        s += "            for (int h = 0; h < 2; ++h) kiln_active[h] = kiln_t * " + num(k_.bn) + " < kiln_lim[h];\n";
        s += k_.rolled_forms >= 1 ? rolled_form(body, true) : block(body, true);
        return s;
    }
    // A form of the pipelined softmax whose loops over S run in steps of 4 elements
    // (one h, two key columns each) rather than unrolled (AttentionKernel::rolled_forms):
    // over a copy of S in local memory, which a reference named kiln_s stands for
    // inside the form, since an array indexed by a loop variable lives in memory and
    // S itself must stay in the registers wgmma writes. The copies in and out are
    // unrolled moves; the form's body is compiled once instead of bn / 2 times.
    std::string rolled_form(const ir::Region& body, bool masked) {
        const std::string n = num(k_.bn / 2);
        std::string s;
        s += "            float kiln_sr[" + n + "];\n";
        s += "#pragma unroll\n";
        s += "            for (int j = 0; j < " + n + "; ++j) kiln_sr[j] = kiln_s[j];\n";
        s += "            {\n";
        s += "            float (&kiln_s)[" + n + "] = kiln_sr;\n";
        rolled_ = true;
        s += block(body, masked);
        rolled_ = false;
        s += "            }\n";
        s += "#pragma unroll\n";
        s += "            for (int j = 0; j < " + n + "; ++j) kiln_s[j] = kiln_sr[j];\n";
        return s;
    }

    // The ping-pong of the consumer warpgroups (attention_sm90.cuh: turn_wait): each
    // issue of products waits for this warpgroup's turn and passes it on after.
    std::string turn_wait() const { return k_.pingpong ? "        kg::turn_wait(kiln_wgc);\n" : ""; }
    std::string turn_pass() const { return k_.pingpong ? "        kg::turn_pass(kiln_wgc);\n" : ""; }

    // Issues S = Q K^T for the K stage at `stage` (an expression of its address), not waited for.
    std::string issue_scores(const std::string& stage) {
        std::string s;
        // Each k-step's descriptors as the block's first plus a constant (the start
        // address, in 16-byte units, is the descriptor's low field and stays below
        // 2^14 here): two registers for the loop rather than one pair per step.
        s += "        const unsigned long long kiln_da = kg::smem_desc(kiln_q + kiln_wgc * " + num(64 * 128) + ", 16, 1024);\n";
        s += "        const unsigned long long kiln_db = kg::smem_desc(" + stage + ", " + key_lead() + ", 1024);\n";
        s += "        kg::wgmma_fence();\n";
        s += "#pragma unroll\n";
        s += "        for (int ks = 0; ks < " + num(k_.d / 16) + "; ++ks)\n";
        s += "            KilnScore::run(kiln_s, kiln_da + ((ks / 4) * " + num(kRows * 128) + " + (ks % 4) * 32) / 16, kiln_db + (" + key_step("ks") +
             ") / 16, ks > 0);\n";
        s += "        kg::wgmma_commit();\n";
        return s;
    }
    // The K stage as wgmma's B operand: K-major, boxes of [bn keys][64 channels], a k-step
    // of 16 channels 32 bytes into the box's rows; or, K stored transposed, N-major, boxes
    // of [d channels][64 keys] (the leading byte offset: one box), a k-step 16 rows on.
    std::string key_lead() const { return k_.k_transposed ? num(std::int64_t{k_.d} * 128) : "16"; }
    std::string key_step(const std::string& ks) const {
        if (k_.k_transposed) return ks + " * " + num(16 * 128);
        return "(" + ks + " / 4) * " + num(std::int64_t{k_.bn} * 128) + " + (" + ks + " % 4) * 32";
    }

    // After the wait for S: its registers are read from here on, and its K stage is free.
    std::string finish_scores(const std::string& stage) const {
        return "#pragma unroll\n"
               "        for (int j = 0; j < " + num(k_.bn / 2) + "; ++j) kg::fence_operand(kiln_s[j]);\n"
               "        if (lane == 0) kg::mbar_arrive(&kiln_kempty[" + stage + "]);\n";
    }
    // After the wait for O += P V: O's and P's registers are the program's again (the
    // compiler must not reuse P's while the tensor cores still read them).
    std::string fence_product() const {
        return "#pragma unroll\n"
               "        for (int j = 0; j < " + num(k_.dv / 2) + "; ++j) kg::fence_operand(kiln_o[j]);\n"
               "#pragma unroll\n"
               "        for (int kk = 0; kk < " + num(k_.bn / 16) + "; ++kk) for (int q = 0; q < 4; ++q) kg::fence_operand(kiln_p[kk][q]);\n";
    }

    // One key block: the loop body's ops in program order.
    std::string block(const ir::Region& body, bool masked) {
        masked_ = masked;
        values_.clear();
        std::string s;
        for (const Node* n : body.nodes) {
            if (n == m_.score_mma) s += mode_ == Mode::serial ? scores() : "";
            else if (n == m_.reduce_max || n == m_.reduce_sum) s += reduction(n);
            else if (n == m_.output_mma) s += mode_ == Mode::serial ? output_product() : "";
            else if (n->op == OpCode::yield) {
                s += "            for (int h = 0; h < 2; ++h) {\n";
                s += "                kiln_m[h] = " + values_.row(m_.next_max) + "[h];\n";
                s += "                kiln_l[h] = " + values_.row(m_.next_sum) + "[h];\n";
                s += "            }\n";
            } else if (row_state(n)) s += row_value(n);
        }
        // Pipelined: after every reduction and row value of the block.
        if (mode_ == Mode::pipelined) s += probabilities();
        return s;
    }

    // Whether n is a per-row value computed from the carried state or the reductions.
    bool row_state(const Node* n) {
        if (n->type.dims.empty() || passes::non_unit_axes(n) != std::vector<int>{m_.axis_rows}) return false;
        if (!ir::is_elementwise(n->op) && n->op != OpCode::broadcast) return false;
        const auto& args = m_.loop->body->args;
        for (const Node* o : n->operands)
            if (values_.has_row(o) || std::find(args.begin() + 1, args.end(), o) != args.end()) return true;
        return false;
    }

    std::string row_value(const Node* n) {
        std::string name = "kiln_v" + num(static_cast<std::int64_t>(next_++));
        std::string s = "            float " + name + "[2];\n";
        s += "            for (int h = 0; h < 2; ++h) {\n";
        s += "                " + name + "[h] = " + expr(n, Where::row) + ";\n";
        // Rows that see no key of this block keep their state: the program never ran
        // this step for them (the rescale of a still-empty row would be exp(-inf + inf)).
        const bool alpha = std::find(m_.alphas.begin(), m_.alphas.end(), n) != m_.alphas.end();
        if (masked_ && (n == m_.next_max || alpha || n == m_.next_sum)) {
            std::string keep = n == m_.next_max ? "kiln_m[h]" : n == m_.next_sum ? "kiln_l[h]" : "1.0f";
            s += "                if (!kiln_active[h]) " + name + "[h] = " + keep + ";\n";
        }
        s += "            }\n";
        values_.set_row(n, name);
        return s;
    }

    // Whether the probabilities read S only through X (the maximum's operand), so
    // that X may replace S in its registers.
    bool scores_replaceable() const {
        const Node* x = m_.reduce_max->operands[0];
        std::vector<const Node*> work{m_.weights};
        std::unordered_set<const Node*> seen;
        while (!work.empty()) {
            const Node* n = work.back();
            work.pop_back();
            if (n == x || !seen.insert(n).second) continue;
            if (n == m_.score_mma) return false;
            for (const Node* o : n->operands) work.push_back(o);
        }
        return true;
    }

    // The score element's context inside an unrolled loop over `j`.
    static std::string score_element() {
        return "                const int h = (j >> 1) & 1;\n"
               "                const int kc = 8 * (j >> 2) + 2 * (lane & 3) + (j & 1);\n";
    }
    // The loop over a thread's score elements j (with score_element's h and kc):
    // unrolled, or in a rolled form (rolled_form) a loop over groups of 4 that unrolls
    // each group, so that h, which indexes two-element arrays, stays a constant.
    std::string score_loop_open() const {
        const std::string n = num(k_.bn / 2);
        if (!rolled_) return "#pragma unroll\n            for (int j = 0; j < " + n + "; ++j) {\n" + score_element();
        return "#pragma unroll 1\n"
               "            for (int j4 = 0; j4 < " + n + "; j4 += 4) {\n"
               "#pragma unroll\n"
               "            for (int jj = 0; jj < 4; ++jj) {\n"
               "                const int j = j4 + jj;\n"
               "                const int h = (jj >> 1) & 1;\n"
               "                const int kc = 8 * (j4 >> 2) + 2 * (lane & 3) + (jj & 1);\n";
    }
    std::string score_loop_close() const { return rolled_ ? "            }\n            }\n" : "            }\n"; }
    // A per-row key-limit mask of this block (masked blocks only).
    std::string limited(const std::string& x, const std::string& fill) const {
        if (!masked_) return x;
        return "(kiln_t * " + num(k_.bn) + " + kc < kiln_lim[h] ? " + x + " : " + fill + ")";
    }

    std::string scores() {
        std::string s;
        s += "            kg::mbar_wait(&kiln_kfull[kiln_stage], kiln_phase);\n";
        s += "            float kiln_s[" + num(k_.bn / 2) + "];\n";
        s += "#pragma unroll\n";
        s += "            for (int j = 0; j < " + num(k_.bn / 2) + "; ++j) kiln_s[j] = 0.0f;\n";
        s += turn_wait();
        s += "            kg::wgmma_fence();\n";
        s += "#pragma unroll\n";
        s += "            for (int ks = 0; ks < " + num(k_.d / 16) + "; ++ks) {\n";
        s += "                const unsigned long long da = kg::smem_desc(kiln_q + (ks / 4) * " + num(kRows * 128) + " + kiln_wgc * " + num(64 * 128) +
             " + (ks % 4) * 32, 16, 1024);\n";
        s += "                const unsigned long long db = kg::smem_desc(kiln_kst + " + key_step("ks") + ", " + key_lead() + ", 1024);\n";
        s += "                KilnScore::run(kiln_s, da, db, 1);\n";
        s += "            }\n";
        s += "            kg::wgmma_commit();\n";
        s += turn_pass();
        s += "            kg::wgmma_wait<0>();\n";
        s += "#pragma unroll\n";
        s += "            for (int j = 0; j < " + num(k_.bn / 2) + "; ++j) kg::fence_operand(kiln_s[j]);\n";
        s += "            if (lane == 0) kg::mbar_arrive(&kiln_kempty[kiln_stage]);\n";
        s += release_after_scores("kiln_kb + 1 == kiln_blocks");
        return s;
    }

    std::string reduction(const Node* n) {
        const bool is_max = n == m_.reduce_max;
        std::string name = "kiln_v" + num(static_cast<std::int64_t>(next_++));
        std::string s = "            float " + name + "[2] = {" + std::string(is_max ? "-__int_as_float(0x7f800000), -__int_as_float(0x7f800000)" : "0.0f, 0.0f") + "};\n";
        // A folded scale (attention_values.h): the maximum of S, times c once per row.
        const std::optional<double> scale = is_max ? values_.folded_scale(n->operands[0]) : std::nullopt;
        s += score_loop_open();
        std::string x = limited(scale ? values_.unscaled_expr(n->operands[0], Where::score) : expr(n->operands[0], Where::score),
                                is_max ? "-__int_as_float(0x7f800000)" : "0.0f");
        s += "                const float x = " + x + ";\n";
        // Pipelined: the row sum's operand is the probabilities the product reads
        // (the match checks it); they replace S in its registers here, computed once.
        if (mode_ == Mode::pipelined && !scale && (!is_max || scores_replaceable())) s += "                kiln_s[j] = x;\n";
        s += "                " + name + "[h] = " + (is_max ? "kc::max_nan(" + name + "[h], x)" : name + "[h] + x") + ";\n";
        // The maximum over the program's first key block: in the pipelined schedule only
        // the tile's first block holds it (the prologue's, or the rotated loop's first
        // pass: the kernel's blocks hold whole program blocks); serially, each block asks.
        if (is_max && k_.first_block_nan && (mode_ == Mode::serial || first_block_ || k_.rotated)) {
            const std::string first = mode_ == Mode::serial ? "kiln_t * " + num(k_.bn) + " + kc < " + num(m_.bk)
                                      : first_block_        ? "kc < " + num(m_.bk)
                                                            : "kiln_t == 0 && kc < " + num(m_.bk);
            s += "                if (" + first + ") kiln_first_max[h] = kc::max_nan(kiln_first_max[h], x);\n";
        }
        s += score_loop_close();
        s += "            for (int h = 0; h < 2; ++h) " + name + "[h] = kg::" + (is_max ? "quad_max(" : "quad_sum(") + name + "[h]);\n";
        if (scale) s += "            for (int h = 0; h < 2; ++h) " + name + "[h] = " + name + "[h] * " + literal(Kind::F32, *scale, 0) + ";\n";
        values_.set_row(n, name);
        // From here on S's registers hold the maximum's operand X (its values are
        // computed once: kept apart from S, they would cost another 64 registers),
        // unless its scale is folded: then they keep S, which the exp reads.
        if (mode_ == Mode::pipelined && is_max && !scale && scores_replaceable()) values_.set_tile(n->operands[0], "kiln_s");
        return s;
    }

    std::string output_product() {
        std::string s;
        const int regs = k_.dv / 2;
        s += "#pragma unroll\n";
        s += "            for (int j = 0; j < " + num(regs) + "; ++j) {\n";
        s += "                const int h = (j >> 1) & 1;\n";
        s += "                kiln_o[j] = " + expr(m_.scaled_acc, Where::out) + ";\n";
        s += "            }\n";
        s += "            unsigned kiln_p[" + num(k_.bn / 16) + "][4];\n";
        s += "#pragma unroll\n";
        s += "            for (int jp = 0; jp < " + num(k_.bn / 2) + "; jp += 2) {\n";
        s += "                float kiln_pv[2];\n";
        s += "#pragma unroll\n";
        s += "                for (int e = 0; e < 2; ++e) {\n";
        s += "                    const int j = jp + e;\n";
        s += "    " + score_element();
        // The pack rounds to nearest even, as the program's cast of the f32 probabilities
        // to the operand kind does: the cast is left to it (one rounding, not two).
        const Node* a = m_.output_mma->operands[0];
        if (a->op == OpCode::cast && a->operands[0]->type.kind == Kind::F32) a = a->operands[0];
        s += "                    kiln_pv[e] = " + limited(expr(a, Where::score), "0.0f") + ";\n";
        s += "                }\n";
        s += "                kiln_p[jp / 8][(jp % 8) / 2] = kg::pack_" + wgmma_kind(m_.in) + "(kiln_pv[0], kiln_pv[1]);\n";
        s += "            }\n";
        s += "            kg::mbar_wait(&kiln_vfull[kiln_stage], kiln_phase);\n";
        s += turn_wait();
        s += "            kg::wgmma_fence();\n";
        s += "#pragma unroll\n";
        s += "            for (int kk = 0; kk < " + num(k_.bn / 16) + "; ++kk)\n";
        s += "                KilnOutput::run(kiln_o, kiln_p[kk], kg::smem_desc(kiln_vst + kk * " + num(16 * 128) + ", " + num(k_.bn * 128) + ", 1024));\n";
        s += "            kg::wgmma_commit();\n";
        s += turn_pass();
        s += "            kg::wgmma_wait<0>();\n";
        s += "#pragma unroll\n";
        s += "            for (int j = 0; j < " + num(regs) + "; ++j) kg::fence_operand(kiln_o[j]);\n";
        s += "            if (lane == 0) kg::mbar_arrive(&kiln_vempty[kiln_stage]);\n";
        return s;
    }

    // Pipelined: the probabilities are in S's registers (the row sum wrote them,
    // reduction()); keep this block's rescale factor for the output.
    std::string probabilities() {
        return "            for (int h = 0; h < 2; ++h) kiln_alpha[h] = " + expr(m_.alpha, Where::row) + ";\n";
    }
    // Issues O += P V for the V stage of kiln_stage, not waited for.
    std::string issue_product() const {
        std::string s;
        s += "        kg::mbar_wait(&kiln_vfull[kiln_stage], kiln_phase);\n";
        s += "        kg::wgmma_fence();\n";
        s += "#pragma unroll\n";
        s += "        for (int kk = 0; kk < " + num(k_.bn / 16) + "; ++kk)\n";
        s += "            KilnOutput::run(kiln_o, kiln_p[kk], kg::smem_desc(kiln_ring + kiln_stage * " + num(stage_bytes_) + " + " + num(k_bytes_) +
             " + kk * " + num(16 * 128) + ", " + num(k_.bn * 128) + ", 1024));\n";
        s += "        kg::wgmma_commit();\n";
        return s;
    }
    // O *= alpha of the block whose probabilities are about to be packed (once no
    // product is in flight: ptxas serialises wgmma around reads of its accumulators).
    std::string rescale_output() {
        values_.clear();
        for (const Node* a : m_.alphas) values_.set_row(a, "kiln_alpha");
        std::string s = "#pragma unroll\n";
        s += "        for (int j = 0; j < " + num(k_.dv / 2) + "; ++j) {\n";
        s += "            const int h = (j >> 1) & 1;\n";
        s += "            kiln_o[j] = " + expr(m_.scaled_acc, Where::out) + ";\n";
        s += "        }\n";
        values_.clear();
        return s;
    }
    // The probabilities in S's registers packed into the A operand of the next product.
    std::string pack_probabilities() const {
        return "#pragma unroll\n"
               "        for (int jp = 0; jp < " + num(k_.bn / 2) + "; jp += 2)\n"
               "            kiln_p[jp / 8][(jp % 8) / 2] = kg::pack_" + wgmma_kind(m_.in) + "(kiln_s[jp], kiln_s[jp + 1]);\n";
    }

    std::string expr(const Node* n, Where w) { return values_.expr(n, w); }

    const AttentionMatch& m_;
    const AttentionKernel& k_;
    FragmentValues values_;
    enum class Mode { serial, pipelined };  // how block() writes the products (see write())
    Mode mode_ = Mode::serial;
    std::int64_t stage_bytes_ = 0, k_bytes_ = 0;  // of the shared-memory ring (write())
    bool masked_ = false;
    bool first_block_ = false;  // writing a tile's first key block (the pipelined schedule's prologue)
    bool rolled_ = false;       // writing a rolled form (rolled_form)
    int next_ = 0;
};

// Whether a key block of bn keys suits the kernel: whole k-steps of 16 keys, two
// stages of K and V beside Q in shared memory, and S, P and O in a consumer
// thread's registers (bn / 2 + bn / 4 + dv / 2 of the 240 setmaxnreg gives, with
// room for the rest: at most 200).
bool key_block_fits(std::int64_t bn, const AttentionKernel& k) {
    const std::int64_t q = std::int64_t{kRows} * k.d * 2, stage = bn * (k.d + k.dv) * 2;
    return bn >= 16 && bn % 16 == 0 && 1024 + q + 2 * stage + 256 <= kSharedLimit && bn / 2 + bn / 4 + k.dv / 2 <= 200;
}

// The key block: the one EmitOptions::attention_key_block asks for where the program
// leaves it free and it fits; else the program's where the kernel takes it (64, or
// 128 where the head dimensions allow: the match checked it where t reaches more than
// values over the keys); else the kernel's own (passes::attention_kernel_key_block).
// The program's is kept where it can be because neither size wins everywhere: on an
// H200 (bench/results/gpu-20261203-s17) a program of 64-key blocks ran 10% faster on
// 128-key blocks at causal 4 x 32 x 4096^2 and 15% slower at causal 2 x 16 x 3000 x 3001.
// Stages: as many as fit, up to 4.
void choose_shape(const AttentionMatch& m, int asked, AttentionKernel& k) {
    k.bm = kRows;
    k.program_bk = m.bk;
    k.program_d = static_cast<int>(m.d);
    k.program_dv = static_cast<int>(m.dv);
    k.d = static_cast<int>(passes::attention_kernel_head_dim(m.d));
    k.dv = static_cast<int>(passes::attention_kernel_head_dim(m.dv));
    const int own = passes::attention_kernel_key_block(m.d, m.dv);
    const bool program_taken = passes::attention_kernel_takes_key_block(m.bk, m.d, m.dv);
    // From a -inf row maximum (first_block_nan) only blocks holding whole program blocks.
    // (K stored transposed is read in boxes of 64 keys.)
    const bool asked_fits = asked > 0 && key_block_fits(asked, k) && (!m.first_block_nan || asked % m.bk == 0) && (!m.k_transposed || asked % 64 == 0);
    k.bn = m.key_block_free && asked_fits ? asked : program_taken ? static_cast<int>(m.bk) : own;
    k.first_block_nan = m.first_block_nan && k.bn != m.bk;
    const std::int64_t q = std::int64_t{kRows} * k.d * 2, stage = std::int64_t{k.bn} * (k.d + k.dv) * 2;
    k.stages = static_cast<int>(std::min<std::int64_t>(4, (kSharedLimit - 1024 - q - 256) / stage));
    k.threads = 384;
    k.shared_bytes = 1024 + q + k.stages * stage + 8 * (8 + 4 * k.stages) + 16;  // + the mbarriers and the tile numbers' ring
}

}  // namespace

std::string emit_attention_kernel(Emitter& E, const AttentionMatch& m, const std::string& entry, AttentionKernel& k) {
    choose_shape(m, E.options().attention_key_block, k);
    if (k.stages < 2) internal_fail("cuda attention: head dimensions that leave fewer than two stages");
    k.entry = entry;
    k.program_bq = m.bq;
    k.q = ir::param_index(*m.load_q);
    k.k = ir::param_index(*m.load_k);
    k.v = ir::param_index(*m.load_v);
    k.q_row_dim = m.q_row_dim;
    k.k_row_dim = m.k_row_dim;
    k.v_row_dim = m.v_row_dim;
    k.k_transposed = m.k_transposed;
    k.row_axis = m.row_axis;
    k.grid_rank = static_cast<int>(m.grid->operands.size());
    k.in = m.in;
    // The pipelined schedule keeps S, P and O in registers at once: measured faster
    // up to 128 value channels, slower at 256 (O alone is 128 registers a thread):
    // bench/results/attention-20261202.
    k.overlap = E.options().attention_overlap == 2 || (E.options().attention_overlap == 1 && k.dv <= 128);
    k.pingpong = E.options().attention_pingpong == 1 || (E.options().attention_pingpong == -1 && k.d > 64);
    k.quad_output = E.options().attention_quad_stores && attention_output_quads(m);
    k.staged_output = !k.quad_output && E.options().attention_staged_stores && attention_output_staged(m);
    k.l2_groups = E.options().attention_l2_groups;
    k.persistent = E.options().attention_persistent;
    k.defer_output = E.options().attention_defer_output && k.quad_output && k.overlap && k.persistent;
    k.block_forms = E.options().attention_block_forms;
    k.rotated = E.options().attention_rotated && k.overlap;
    k.rolled_forms = k.overlap ? E.options().attention_rolled_forms : 0;  // (the pipelined schedule's forms only)
    const int fold = E.options().attention_fold_scale >= 0 ? E.options().attention_fold_scale : m.bq >= kRows ? 2 : 1;
    if (fold && E.fast()) {  // only where the maximum's operand has the form
        FragmentValues probe(E, m, k.bn);
        probe.set_fold_scale(fold);
        k.fold_scale = probe.folded_scale(m.reduce_max->operands[0]).has_value() ? fold : 0;
    }
    AttentionWriter w(E, m, k);
    std::string body = w.write();
    std::string s;
    s += "\n// ---- the Hopper FlashAttention kernel of this program (emit_attention.cpp): TMA ring + wgmma, softmax on the fragments\n";
    // The warpgroup index through a shuffle (emit_gemm_sm90.cuh: warpgroup_index), always:
    // inside the loop over tiles ptxas otherwise moves the K stage's wgmma descriptors
    // off the uniform datapath (64 R2UR in the main loop, 0 with it). Measured on an H200
    // (bench/results/gpu-20261203-s16): the persistent kernel without it was 6-9% slower
    // than one CTA a tile, with it 3-9% faster.
    s += "#define KILN_UNIFORM_WARPGROUP 1\n";
    s += embedded::emit_gemm_sm90_cuh();
    s += embedded::attention_sm90_cuh();
    s += wgmma_smem_wrapper("KilnScore", k.bn, m.in, /*a_mmajor=*/false, /*b_kmajor=*/!k.k_transposed, /*accumulate_operand=*/true);
    s += wgmma_register_a_wrapper("KilnOutput", k.dv, m.in);
    std::string extents;
    for (int a = 0; a < k.grid_rank; ++a) extents += "long long kiln_ge" + num(a) + ", ";
    s += "\nextern \"C\" __global__ void __launch_bounds__(" + num(k.threads) + ", 1) " + entry +
         "(const __grid_constant__ kg::TensorMap kiln_tq, const __grid_constant__ kg::TensorMap kiln_tk, const __grid_constant__ kg::TensorMap kiln_tv, "
         "long long kiln_ctas, long long kiln_row_ctas, unsigned* kiln_next, " + extents + kernel_signature(E.program()) + ") {\n";
    s += "    extern __shared__ __align__(1024) unsigned char kiln_smem[];\n";
    s += body;
    s += "}\n";
    E.count_tensor_core_op();
    E.count_tensor_core_op();
    return s;
}

std::string AttentionKernel::describe() const {
    if (entry.empty()) return "";
    return "FlashAttention (" + entry + "): " + std::to_string(bm) + " query rows x " + std::to_string(bn) + " keys per block" +
           (bn != program_bk ? " (the program's blocks have " + std::to_string(program_bk) + " keys: masks and indices from each key's index)" : "") +
           (k_transposed ? ", K stored transposed (read in boxes of [d][64 keys], wgmma's B N-major)" : "") + ", head dims " + std::to_string(program_d) +
           "/" + std::to_string(program_dv) +
           (d != program_d || dv != program_dv
                ? " (computed as " + std::to_string(d) + "/" + std::to_string(dv) +
                      ": the channels past the program's read as zeros, which the launch checks the query and key views end at)"
                : "") +
           ", " + std::to_string(stages) +
           " TMA stages of K and V (128B swizzle, mbarrier ring), 2 consumer warpgroups (S = Q K^T and O += P V on wgmma.mma_async, P from "
           "registers; " + (overlap ? "each block's softmax overlapping the previous block's O += P V" : "blocks one after the other") +
           (pingpong ? ", the two taking turns to issue their products" : "") +
           (staged_output ? "; the output stored through shared memory in 16-byte chunks" : "") +
           (quad_output ? "; the output stored in 16-byte chunks transposed inside quads of lanes, the query rows' memory refilled for the next tile "
                          "once the last S = Q K^T has read it"
                        : "") +
           (rotated ? ", a tile's first block run by the loop's code (rotated, no prologue)" : "") +
           (rolled_forms == 1   ? ", the softmax of blocks crossing a row's key limit in a loop over S (not unrolled)"
            : rolled_forms == 2 ? ", the softmax of blocks whose masks are not proven in a loop over S (not unrolled)"
                                : "") +
           (defer_output ? ", each tile's output stored under the next tile's first S = Q K^T" : "") +
           (first_block_nan ? ", rows whose first program key block is all -inf made NaN as the program makes them" : "") +
           (fold_scale ? std::string("; a positive constant score scale folded into the maximum and the exp's fma") +
                             (fold_scale == 2 ? " (also where the keys or masks depend on the query row)" : "")
                       : "") + ") + 1 producer warpgroup, " +
           (persistent ? "a persistent grid (one CTA per multiprocessor, taking tiles in turn, the next tile's first key and value blocks loading under "
                         "the current one's last products), "
                       : "one CTA per tile, ") +
           (l2_groups ? "tiles in groups of batch and head indices whose keys and values share L2, " : "") + std::to_string(threads) + " threads, " + std::to_string(shared_bytes) +
           " bytes shared; views TMA cannot read in place take the kernel above";
}

}  // namespace kiln::cu
