#include "targets/cuda/launch_args.h"

#include "targets/cuda/emit_gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>

#include "ir/attrs.h"
#include "passes/host_scalars.h"
#include "passes/tile_map.h"
#include "support/environment.h"
#include "targets/cuda/split_k_workspace.h"
#include "targets/cuda/stream_workspace.h"
#include "targets/cuda/tensor_map_cache.h"

namespace kiln::cu {

namespace {

// Where a view's rows (unit innermost stride) may start off a 16-byte boundary: the
// first dim other than the innermost whose step is not a multiple of 16 bytes (-1:
// none), and its base's offset past a boundary. Read once a launch (no strings).
struct RowMisalignment {
    bool vector_rows = false;  // a view with a unit innermost stride (its rows may move as vectors)
    int dim = -1;
    std::uintptr_t base_offset = 0;
    bool any() const { return vector_rows && (dim >= 0 || base_offset != 0); }
};

RowMisalignment row_misalignment(const detail::Arg& a) {
    RowMisalignment m;
    if (!a.is_view || a.extents.empty() || a.strides.back() != 1) return m;  // no vector access along the row
    m.vector_rows = true;
    const std::int64_t bytes = kind_bytes(a.kind);
    for (std::size_t d = 0; d + 1 < a.extents.size() && m.dim < 0; ++d)
        if (a.extents[d] > 1 && (a.strides[d] * bytes) % 16 != 0) m.dim = static_cast<int>(d);
    m.base_offset = reinterpret_cast<std::uintptr_t>(a.data) % 16;
    return m;
}

}  // namespace

MisalignedRows misaligned_rows_of(const std::vector<detail::Arg>& args) {
    MisalignedRows m;
    for (const detail::Arg& a : args) {
        const bool misaligned = row_misalignment(a).any();
        m.any = m.any || misaligned;
        m.sixteen_bit = m.sixteen_bit || (misaligned && kind_bytes(a.kind) == 2);
    }
    return m;
}

std::vector<std::string> misaligned_row_notes(const std::vector<detail::Arg>& args, const std::vector<detail::ParamSig>& params) {
    std::vector<std::string> notes;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const detail::Arg& a = args[i];
        const RowMisalignment m = row_misalignment(a);
        if (!m.any()) continue;
        std::string why;
        if (m.dim >= 0) {
            const std::int64_t bytes = kind_bytes(a.kind), pitch = a.strides[static_cast<std::size_t>(m.dim)] * bytes;
            // The nearest pitch above that is a whole number of 16-byte units and of elements.
            const std::int64_t unit = std::max<std::int64_t>(16, bytes), padded = (std::abs(pitch) + unit - 1) / unit * unit;
            const bool rows = static_cast<std::size_t>(m.dim) + 2 == a.extents.size();
            why = (rows ? "its rows are " : "the steps of its dimension " + std::to_string(m.dim) + " are ") + std::to_string(pitch) +
                  " bytes apart, not a multiple of 16 (" + (rows ? "a pitch" : "a step") + " of " + std::to_string(padded / bytes) + " elements, " +
                  std::to_string(padded) + " bytes, would start every row on a 16-byte boundary)";
        } else {
            why = "its data starts " + std::to_string(m.base_offset) + " bytes past a 16-byte boundary";
        }
        const std::string spelling = i < params.size() ? " (" + params[i].spelling + ")" : "";
        notes.push_back("argument " + std::to_string(i) + spelling + ": " + why);
    }
    return notes;
}

EmitOptions emit_options(const std::vector<detail::Arg>& args, const CompileOptions& opts) {
    EmitOptions o;
    o.precision = opts.precision;
    o.index64 = opts.index_width == IndexWidth::wide || needs_64bit_offsets(args);
    const MisalignedRows misaligned_rows = misaligned_rows_of(args);  // (read by three options below: a walk over the views once a launch)
    const bool misaligned = misaligned_rows.any;
    // The generic kernel beside a GEMM or attention kernel: compiled only once a launch
    // needs it (cuda_target.cpp), unless a view's rows are not 16-byte multiples apart,
    // which the attention kernel's TMA refuses: then with the first compile, not after a
    // wasted one of the attention kernel alone. (A GEMM packs such operands.)
    // KILN_CUDA_GENERIC_KERNEL=1 always compiles it with the first (A/B).
    static const bool generic_first = support::env_integer("KILN_CUDA_GENERIC_KERNEL", 0, 1).value_or(0) != 0;
    o.generic_kernel = generic_first || misaligned;
    // The attention kernel's schedule (emit_attention.cpp) and the grid prefetch
    // (passes/grid_prefetch.h): A/B knobs.
    static const int overlap = static_cast<int>(support::env_integer("KILN_ATTENTION_OVERLAP", 0, 2).value_or(1));
    o.attention_overlap = overlap;
    static const int pingpong = static_cast<int>(support::env_integer("KILN_ATTENTION_PINGPONG", 0, 1).value_or(-1));
    o.attention_pingpong = pingpong;
    static const bool l2_groups = support::env_integer("KILN_ATTENTION_L2_GROUPS", 0, 1).value_or(1) != 0;
    o.attention_l2_groups = l2_groups;
    static const bool staged = support::env_integer("KILN_ATTENTION_STAGED_STORES", 0, 1).value_or(1) != 0;
    o.attention_staged_stores = staged;
    static const bool attention_quads = support::env_integer("KILN_ATTENTION_QUAD_STORES", 0, 1).value_or(1) != 0;
    o.attention_quad_stores = attention_quads;
    static const bool defer_output = support::env_integer("KILN_ATTENTION_DEFER_OUTPUT", 0, 1).value_or(0) != 0;
    o.attention_defer_output = defer_output;
    static const bool persistent = support::env_integer("KILN_ATTENTION_PERSISTENT", 0, 1).value_or(1) != 0;
    o.attention_persistent = persistent;
    static const bool quads = support::env_integer("KILN_GEMM_QUAD_STORES", 0, 1).value_or(1) != 0;
    o.gemm_quad_stores = quads;
    static const bool uniform_wg = support::env_integer("KILN_CUDA_UNIFORM_WARPGROUP", 0, 1).value_or(0) != 0;
    o.uniform_warpgroup = uniform_wg;
    static const int fold = static_cast<int>(support::env_integer("KILN_ATTENTION_FOLD_SCALE", 0, 2).value_or(-1));
    o.attention_fold_scale = fold;
    static const int key_block = static_cast<int>(support::env_integer("KILN_ATTENTION_KEY_BLOCK", 0, 256).value_or(0));
    o.attention_key_block = key_block;
    static const int block_forms = static_cast<int>(support::env_integer("KILN_ATTENTION_BLOCK_FORMS", 2, 3).value_or(3));
    o.attention_block_forms = block_forms;
    static const bool rotated = support::env_integer("KILN_ATTENTION_ROTATED", 0, 1).value_or(0) != 0;
    o.attention_rotated = rotated;
    static const int rolled_forms = static_cast<int>(support::env_integer("KILN_ATTENTION_ROLLED_FORMS", 0, 2).value_or(0));
    o.attention_rolled_forms = rolled_forms;
    static const bool reblock_minus_infinity = support::env_integer("KILN_ATTENTION_REBLOCK_MINUS_INFINITY", 0, 1).value_or(1) != 0;
    o.attention_reblock_minus_infinity = reblock_minus_infinity;
    static const int prefetch = static_cast<int>(support::env_integer("KILN_CUDA_PREFETCH", 0, 3).value_or(2));
    o.grid_prefetch = prefetch;
    static const bool loop_prefetch = support::env_integer("KILN_CUDA_LOOP_PREFETCH", 0, 1).value_or(0) != 0;
    o.loop_prefetch = loop_prefetch;
    static const bool cluster = support::env_integer("KILN_CUDA_CLUSTER", 0, 1).value_or(1) != 0;
    o.cluster_rows = cluster;
    static const int cluster_cta = [] {
        const std::string v = support::env_choice("KILN_CUDA_CLUSTER_CTA", {"auto", "256", "512", "1024"}).value_or("auto");
        return v == "auto" ? 0 : std::stoi(v);
    }();
    o.cluster_cta_threads = cluster_cta;
    static const bool cluster_prefetch = support::env_integer("KILN_CUDA_CLUSTER_PREFETCH", 0, 1).value_or(1) != 0;
    o.cluster_prefetch = cluster_prefetch;
    static const bool shared_divisor = support::env_integer("KILN_CUDA_SHARED_DIVISOR", 0, 1).value_or(0) != 0;
    o.shared_divisor = shared_divisor;
    static const bool inline_division = support::env_integer("KILN_CUDA_INLINE_DIVISION", 0, 1).value_or(0) != 0;
    o.inline_division = inline_division;
    static const bool fast_division = support::env_integer("KILN_CUDA_FAST_DIVISION", 0, 1).value_or(1) != 0;
    o.fast_division = fast_division;
    static const int spill_tolerance = static_cast<int>(support::env_integer("KILN_CUDA_SPILL_TOLERANCE", 0, 1024).value_or(0));
    o.spill_tolerance = spill_tolerance;
    static const int layout_spill_tolerance = static_cast<int>(support::env_integer("KILN_CUDA_LAYOUT_SPILL_TOLERANCE", 0, 1024).value_or(16));
    o.layout_spill_tolerance = layout_spill_tolerance;
    static const int split_first = static_cast<int>(support::env_integer("KILN_CUDA_SPLIT_FIRST", 0, 2).value_or(1));
    o.split_before_dropping = split_first;
    // Misaligned rows (emit.h: misaligned_rows, coalesced_elements): f16/bf16 ones dealt
    // an element a thread in turn from the start, others moved as shifted or narrower
    // vectors and dealt where the spill ladder gives those up; KILN_CUDA_COALESCED_ELEMENTS
    // 0, 1 or 2 sets the dealing for every kind (A/B: 2 deals 16-bit rows from the start).
    static const std::optional<std::int64_t> coalesced = support::env_integer("KILN_CUDA_COALESCED_ELEMENTS", 0, 2);
    static const bool aligned_slots = support::env_integer("KILN_CUDA_ALIGNED_SLOTS", 0, 1).value_or(0) != 0;
    // (Where a program's slots cannot be aligned, its rows are dealt as without it: cuda_layout.cpp.)
    o.aligned_slots = aligned_slots && misaligned_rows.sixteen_bit;
    o.coalesced_elements = !misaligned ? 0 : coalesced ? static_cast<int>(*coalesced) : misaligned_rows.sixteen_bit ? 2 : 0;
    const bool dealt_from_the_start = o.coalesced_elements == 2 && misaligned_rows.sixteen_bit;
    // The index facts where rows are dealt from the start (emit.h: index_facts);
    // KILN_CUDA_INDEX_FACTS=0 or 1 sets them for every launch (A/B).
    static const std::optional<std::int64_t> index_facts = support::env_integer("KILN_CUDA_INDEX_FACTS", 0, 1);
    o.index_facts = index_facts ? *index_facts != 0 : dealt_from_the_start;
    static const bool narrow_compares = support::env_integer("KILN_CUDA_NARROW_INDEX_COMPARES", 0, 1).value_or(1) != 0;
    o.narrow_index_compares = narrow_compares;
    static const bool shifted = support::env_integer("KILN_CUDA_SHIFTED_RUNS", 0, 1).value_or(1) != 0;
    o.misaligned_rows = shifted && misaligned && !dealt_from_the_start;
    static const bool narrower = support::env_integer("KILN_CUDA_NARROWER_VECTORS", 0, 1).value_or(1) != 0;
    o.narrower_vectors = narrower;
    static const bool whole_rows = support::env_integer("KILN_CUDA_WHOLE_ROWS", 0, 1).value_or(1) != 0;
    o.whole_rows = whole_rows;
    static const bool nan_minimum_ahead = support::env_integer("KILN_CUDA_NAN_MINIMUM_AHEAD", 0, 1).value_or(1) != 0;
    o.nan_by_minimum_ahead = nan_minimum_ahead;
    // Read at every launch, not once: a bad value fails each launch with its message
    // (tests/unit/environment_knobs_test.cpp), as it did when the layout pass read it.
    o.elements_per_thread = static_cast<int>(support::env_integer("KILN_CUDA_ELEMENTS_PER_THREAD", 1, 4096).value_or(32));
    return o;
}

using detail::Arg;
using detail::OpCode;
using ir::Node;


namespace {

std::size_t slot_count(const std::vector<Arg>& args) {
    std::size_t count = 0;
    for (const Arg& a : args) count += a.is_view ? 1 + a.extents.size() + a.strides.size() : 1;
    return count;
}

// Calls add(slot) for each of pack_params's parameters, in order.
template <class Add> void for_each_slot(const ir::Program& p, const std::vector<Arg>& args, Add&& add) {
    auto push = [&](const auto& value) {
        std::uint64_t slot = 0;
        static_assert(sizeof value <= sizeof slot);
        std::memcpy(&slot, &value, sizeof value);
        add(slot);
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const Arg& a = args[i];
        if (!a.is_view) {
            // The register type of the kind, holding the value the interpreter would (rounded / wrapped).
            switch (p.params[i].kind) {
                case Kind::F64: push(a.f); break;
                case Kind::F32: case Kind::F16: case Kind::BF16: push(static_cast<float>(passes::scalar_param_float(p.params[i].kind, a.f))); break;
                case Kind::I64: push(a.i); break;
                default: push(static_cast<std::int32_t>(passes::scalar_param_int(p.params[i].kind, a.i)));
            }
            continue;
        }
        push(a.data);
        for (auto e : a.extents) push(e);
        for (auto s : a.strides) push(s);
    }
}

// Appends the slots of pack_params's parameters to `slots`.
void append_slots(const ir::Program& p, const std::vector<Arg>& args, std::vector<std::uint64_t>& slots) {
    slots.reserve(slots.size() + slot_count(args));
    for_each_slot(p, args, [&](std::uint64_t s) { slots.push_back(s); });
}

}  // namespace

void InlineParams::pack(const ir::Program& p, const std::vector<Arg>& args) {
    count_ = slot_count(args);
    std::uint64_t* slots = slots_;
    if (count_ > kInline) {
        heap_slots_.resize(count_);
        heap_pointers_.resize(count_);
        slots = heap_slots_.data();
    }
    void** out = pointers();
    std::size_t k = 0;
    for_each_slot(p, args, [&](std::uint64_t s) {
        slots[k] = s;
        out[k] = &slots[k];
        ++k;
    });
}

PackedParams pack_params(const ir::Program& p, const std::vector<Arg>& args) {
    PackedParams out;
    append_slots(p, args, out.slots);
    out.pointers.reserve(out.slots.size());
    for (auto& s : out.slots) out.pointers.push_back(&s);
    return out;
}

std::optional<GemmProblem> gemm_problem(const ir::Program& p, const std::vector<Arg>& args, const GemmKernel& g, std::string* why) {
    auto reject = [&](const std::string& w) {
        if (why) *why = w;
        return std::optional<GemmProblem>();
    };
    if (g.entry.empty()) return reject("the program is not the canonical GEMM");
    // The nodes the emitter matched (emit_gemm.h): the parallel nest, and the k loop
    // at the position it recorded. The compiled kernel was built from this program.
    // (k_loop < 0: no k loop, the whole k range in one tile: one step.)
    const Node* grid = p.grid;
    if (!grid || (g.k_loop >= 0 && (static_cast<std::size_t>(g.k_loop) >= grid->body->nodes.size() ||
                                    grid->body->nodes[static_cast<std::size_t>(g.k_loop)]->op != OpCode::loop)))
        internal_fail("cuda: a GEMM kernel for a program without its k loop");
    const Node* k_loop = g.k_loop >= 0 ? grid->body->nodes[static_cast<std::size_t>(g.k_loop)] : nullptr;
    const Node& loop = k_loop ? *k_loop : *grid;  // the node host scalars are evaluated for
    passes::HostScalars scalars(args);
    std::int64_t grid_m = 0, grid_n = 0;
    if (g.flat_grid == 0) {
        grid_m = scalars.integer(grid->operands[static_cast<std::size_t>(g.m_axis)], *grid);
        grid_n = scalars.integer(grid->operands[static_cast<std::size_t>(g.n_axis)], *grid);
    } else if (g.flat_grid == 3) {
        // Any other order of the tiles: the kernel visits them its own way, so the
        // program's order must visit each tile of a rectangle once (passes/tile_map.h).
        const auto& nodes = grid->body->nodes;
        auto at = [&](int i) { return i >= 0 && static_cast<std::size_t>(i) < nodes.size() ? nodes[static_cast<std::size_t>(i)] : nullptr; };
        const Node *mi = at(g.tile_map_m), *ni = at(g.tile_map_n);
        if (!mi || !ni) internal_fail("cuda: a GEMM kernel for a 1-D grid without its block indices");
        std::string w;
        const auto blocks = passes::tile_map_grid(*grid, mi, ni, scalars, &w);
        if (!blocks) return reject(w);
        grid_m = blocks->rows;
        grid_n = blocks->cols;
    } else {
        // A 1-D grid over the tiles: its blocks are (pid / G, pid % G) for pid below its
        // extent, a rectangle of whole rows of G (G: the matched pid / G's, at its position).
        const auto& nodes = grid->body->nodes;
        if (g.flat_split < 0 || static_cast<std::size_t>(g.flat_split) >= nodes.size() ||
            nodes[static_cast<std::size_t>(g.flat_split)]->operands.size() != 2 ||
            nodes[static_cast<std::size_t>(g.flat_split)]->operands[0] != grid->body->args[0])
            internal_fail("cuda: a GEMM kernel for a 1-D grid without its pid / G");
        const Node* split = nodes[static_cast<std::size_t>(g.flat_split)];
        const std::int64_t tiles = scalars.integer(grid->operands[0], *grid), per_row = scalars.integer(split->operands[1], *grid);
        if (per_row <= 0 || tiles % per_row != 0)
            return reject("a 1-D grid of " + std::to_string(tiles) + " tiles is not whole rows of " + std::to_string(per_row));
        grid_m = g.flat_grid == 1 ? tiles / per_row : per_row;
        grid_n = g.flat_grid == 1 ? per_row : tiles / per_row;
    }
    std::int64_t k_steps = k_loop ? scalars.integer(k_loop->operands[0], *k_loop) : 1;
    const Arg &A = args[static_cast<std::size_t>(g.a)], &B = args[static_cast<std::size_t>(g.b)];
    constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();  // TMA coordinates are 32-bit
    auto covered = [&](std::int64_t blocks, std::int64_t tile, std::int64_t extent) {
        return blocks <= 0 ? 0 : blocks > extent / tile ? extent : std::min(extent, blocks * tile);
    };
    // What the program's tiles cover: the outputs' rows and columns (each output
    // is clipped to its own extents in the kernel), and the k range.
    // (Each view's rows and columns are its last two dims: a batched view's others are
    // its leading ones.)
    std::int64_t out_rows = 0, out_cols = 0;
    for (std::size_t i = 0; i < g.outputs.size(); ++i) {
        const auto& e = args[static_cast<std::size_t>(g.outputs[i])].extents;
        const std::size_t r = e.size() - 2;
        const bool transposed = i < g.outputs_transposed.size() && g.outputs_transposed[i];  // Ct: its rows are the columns
        out_rows = std::max(out_rows, e[r + (transposed ? 1 : 0)]);
        out_cols = std::max(out_cols, e[r + (transposed ? 0 : 1)]);
    }
    GemmProblem pr;
    pr.rows = covered(grid_m, g.program_bm, out_rows);
    pr.cols = covered(grid_n, g.program_bn, out_cols);
    const std::size_t ar = A.extents.size() - 2, br = B.extents.size() - 2;
    std::int64_t b_k_extent = g.b_kmajor ? B.extents[br + 1] : B.extents[br];
    const std::int64_t a_k_extent = g.a_mmajor ? A.extents[ar] : A.extents[ar + 1];
    pr.depth = covered(k_steps, g.program_bk, std::max(a_k_extent, b_k_extent));
    for (int ax : g.batch_axes) {
        const std::int64_t e = scalars.integer(grid->operands[static_cast<std::size_t>(ax)], *grid);
        if (e <= 0) return reject("an empty problem");
        if (e > kMax || pr.batches > kMax / e) return reject("too many batches");
        pr.batches *= e;
        pr.batch_extents.push_back(e);
    }
    if (pr.rows == 0 || pr.cols == 0 || pr.depth == 0 || pr.rows > kMax || pr.cols > kMax || pr.depth > kMax)
        return reject("an empty or too large problem");
    // Masks on the operands' loads hide only what the zero fill hides where each limit
    // is at least the view's extent along its dim (passes/gemm_match.h: GemmMask).
    for (const Node* n : loop.body->nodes)
        if (n->op == OpCode::mma)  // (with no k loop, the nest's own)
            for (const passes::GemmMask& m : passes::gemm_operand_masks(*n)) {
                const std::int64_t limit = scalars.integer(m.limit, loop);
                const std::int64_t extent = args[static_cast<std::size_t>(m.param)].extents[static_cast<std::size_t>(m.dim)];
                if (limit < extent)
                    return reject("a mask on argument " + std::to_string(m.param) + " hides elements inside it (index < " + std::to_string(limit) +
                                  " along dim " + std::to_string(m.dim) + ", whose extent is " + std::to_string(extent) + ")");
            }
    return pr;
}

namespace {

// Whether TMA (or the kernel's cp.async copies, which need the same alignment) can read
// a view's matrices in place: its last two dims, and for a batch its leading strides.
bool matrices_readable_in_place(const Arg& v, int elem_bytes) {
    const auto lead = static_cast<std::ptrdiff_t>(v.extents.size() - 2);
    const std::vector<std::int64_t> extents(v.extents.begin() + lead, v.extents.end()), strides(v.strides.begin() + lead, v.strides.end());
    return tma_readable(v.data, extents, strides, elem_bytes) && tma_lead_problem(v.extents, v.strides, elem_bytes).empty();
}

}  // namespace

// Whether a view's matrices lie the other way round in memory from their indexing:
// unit stride along the second-to-last dim, not the last (PyTorch's `w.t()`).
bool flipped_view(const Arg& v) {
    const std::size_t r = v.extents.size() - 2;
    return v.extents.size() >= 2 && v.strides[r] == 1 && v.strides[r + 1] != 1 && v.extents[r] > 1 && v.extents[r + 1] > 1;
}

GemmChoice gemm_launch_choice(const ir::Program& p, const std::vector<Arg>& args, const GemmKernel& g, int multiprocessors) {
    const auto problem = gemm_problem(p, args, g);
    if (!problem) return {{g.bm, g.bn}, g.split_k, g.cluster, g.cp_async, g.flipped};
    // Operands stored the other way round: a variant that reads them so (no cp.async).
    const int flipped = (flipped_view(args[static_cast<std::size_t>(g.a)]) ? 1 : 0) | (flipped_view(args[static_cast<std::size_t>(g.b)]) ? 2 : 0);
    // From the program's own kernel tile, not g's (g may be a variant compiled for
    // another launch): every variant of the kernel chooses alike.
    const GemmTile own = own_tile(g.program_bm, g.program_bn, g.program_bk, g.in);
    const GemmTile t = launch_tile(problem->rows, problem->cols, problem->depth, own.bm, own.bn, g.bk, multiprocessors, g.batched ? problem->batches : 1);
    // 8-bit and tf32 operands: lone CTAs, no split-K, TMA alone (emit_gemm.cpp).
    if (gemm_k_major_only(g.in)) return {t, false, 1, 0, flipped};
    // Operands whose routes read them by cp.async (as the plan, assuming the shared staging kernels'
    // packing kernel); the routes only where it is asked for (this runs at every launch).
    int cp_async = 0;
    if (cp_async_asked() && !flipped) {
        const std::array<GemmOperand, 2> operands = gemm_operands(*problem, args, g, /*can_pack=*/true);
        cp_async = (operands[0].route.cp_async ? 1 : 0) | (operands[1].route.cp_async ? 2 : 0);
    }
    // A batched kernel runs whole tiles on lone CTAs (emit_gemm.cpp).
    if (g.batched) return {t, false, 1, cp_async, flipped};
    const bool split = schedule_gemm(problem->rows, problem->cols, problem->depth, t.bm, t.bn, g.bk, multiprocessors).splits > 1;
    const int cluster = cp_async ? 1 : launch_cluster(problem->rows, problem->cols, problem->depth, t.bm, t.bn, g.bk, multiprocessors);
    return {t, split, cluster, cp_async, flipped};
}

std::array<GemmOperand, 2> gemm_operands(const GemmProblem& pr, const std::vector<Arg>& args, const GemmKernel& g, bool can_pack) {
    const Arg &A = args[static_cast<std::size_t>(g.a)], &B = args[static_cast<std::size_t>(g.b)];
    const double flops = 2.0 * static_cast<double>(pr.rows) * static_cast<double>(pr.cols) * static_cast<double>(pr.depth);
    // A batched view's matrices are its last two dims: packed like a lone matrix's
    // (all of them, one after another) where their rows straddle lines, or where TMA
    // cannot read them in place, which for a batch is also a leading stride that is
    // not a multiple of 16 bytes.
    const int eb = gemm_operand_bytes(g.in);
    // `k_dim`: which of the view's last two dims the program indexes by k (its extent
    // clipped to the k loop's); `flipped`: the view lies the other way round in memory
    // (unit stride along the first of the two), so its rows are the other dim's.
    auto operand = [&](const Arg& v, int k_dim, bool flipped, bool transposed) {
        const std::size_t r = v.extents.size() - 2;
        const std::size_t in_dim = r + (flipped ? 0 : 1), out_dim = r + (flipped ? 1 : 0);
        auto extent = [&](std::size_t d) { return d == r + static_cast<std::size_t>(k_dim) ? std::min(v.extents[d], pr.depth) : v.extents[d]; };
        const std::int64_t inner = extent(in_dim), outer = extent(out_dim);
        GemmOperand o{inner, outer, v.strides[out_dim], v.strides[in_dim], {}, transposed};
        if (transposed) {
            o.route = {true, std::string("copied transposed, K-major, first (it is stored with k outermost, and wgmma reads ") +
                                 gemm_k_major_only_name(g.in) + " operands K-major only)"};
            return o;
        }
        double matrices = 1;
        for (std::size_t i = 0; i < r; ++i) matrices *= static_cast<double>(v.extents[i]);
        const std::string odd_lead = tma_lead_problem(v.extents, v.strides, eb);
        const double bytes = eb * static_cast<double>(inner) * static_cast<double>(outer) * matrices;
        // (The matrix as stored: rows of the inner dim.)
        const std::vector<std::int64_t> extents{v.extents[out_dim], v.extents[in_dim]}, strides{v.strides[out_dim], v.strides[in_dim]};
        o.route = operand_route(v.data, extents, strides, eb, bytes, flops * static_cast<double>(pr.batches), can_pack);
        if (!odd_lead.empty() && !o.route.pack) o.route = {true, "packed to whole 128-byte lines first (TMA needs 16-byte multiples: " + odd_lead + ")"};
        return o;
    };
    return {operand(A, g.a_mmajor ? 0 : 1, (g.flipped & 1) != 0, g.a_transposed), operand(B, g.b_kmajor ? 1 : 0, (g.flipped & 2) != 0, g.b_transposed)};
}

std::unique_ptr<GemmLaunch> gemm_launch(const ir::Program& p, const std::vector<Arg>& args, const GemmKernel& g, const Device& d,
                                        GemmStaging& staging, std::string* why) {
    auto reject = [&](const std::string& w) {
        if (why) *why = w;
        return std::unique_ptr<GemmLaunch>();
    };
    if (g.entry.empty()) return reject("the program is not the canonical GEMM");
    if (!d.api.cuTensorMapEncodeTiled) return reject("the driver has no cuTensorMapEncodeTiled");
    const auto problem = gemm_problem(p, args, g, why);
    if (!problem) return nullptr;
    const std::int64_t rows = problem->rows, cols = problem->cols, depth = problem->depth;
    const Arg &A = args[static_cast<std::size_t>(g.a)], &B = args[static_cast<std::size_t>(g.b)];
    auto L = std::make_unique<GemmLaunch>();
    // A is [rows of m][k] read in boxes of 64 k x bm rows, or, stored [k][m], in boxes
    // of 64 m x bk; B is [k][n] in boxes of 64 n x bk, or, stored [n][k], in boxes of
    // 64 k x bn. The k extent is clipped
    // to what the program's k loop covers. An operand TMA cannot read in place is
    // read from a staged copy (gemm_staging.h), and so is one whose rows straddle
    // 128-byte lines where packing it pays.
    TensorMapCache& maps = tensor_map_cache();
    // L2 promotion: 256 bytes for rows on whole 128-byte lines; none for rows that
    // straddle lines read in place, where 256-byte promotion fetched lines no box
    // used: 3000 x 5000 x 7000 unpacked 431 -> 489-496 TFLOP/s without it, the same
    // shape on whole lines 663-670 either way (H200, bench/results/gpu-20261203-s13).
    // KILN_GEMM_L2_PROMOTION=0..3 (none, 64, 128, 256 bytes; read once per process)
    // sets it for every map, for A/B measurements.
    static const std::optional<std::int64_t> forced_promotion = support::env_integer("KILN_GEMM_L2_PROMOTION", 0, 3);
    auto l2_promotion = [&](std::int64_t row_bytes) {
        if (forced_promotion) return static_cast<int>(*forced_promotion);
        return row_bytes % 128 == 0 ? static_cast<int>(CU_TENSOR_MAP_L2_PROMOTION_L2_256B) : static_cast<int>(CU_TENSOR_MAP_L2_PROMOTION_NONE);
    };
    const std::array<GemmOperand, 2> operands = gemm_operands(*problem, args, g, staging.can_pack());
    const int eb = gemm_operand_bytes(g.in);
    auto operand = [&](const Arg& v, const GemmOperand& o, int box_outer, TensorMap& map, const char* name, WorkspaceSlot slot, bool cp_async) {
        const std::int64_t inner = o.inner, outer = o.outer;
        void* base = v.data;
        const std::size_t lead = v.extents.size() - 2;  // a batched view's leading dims
        if (cp_async) {
            // The kernel's producer threads copy it (emit_gemm_sm90.cuh: GlobalRows, in the
            // map's slot): 16-byte aligned base, rows and leading strides, as TMA would need.
            if (!matrices_readable_in_place(v, eb)) return std::string(name) + " is not 16-byte aligned for the cp.async copies its kernel was compiled for";
            // (tma_readable: extents within 32 bits.) Words: base, row stride, leading
            // strides innermost first, then the row's elements and the rows as 32-bit halves.
            map = TensorMap{};
            map.words[0] = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(v.data));
            map.words[1] = static_cast<std::uint64_t>(v.strides[lead]);
            for (std::size_t i = 0; i < lead; ++i) map.words[2 + i] = static_cast<std::uint64_t>(v.strides[lead - 1 - i]);
            map.words[5] = static_cast<std::uint64_t>(inner) | static_cast<std::uint64_t>(outer) << 32;
            return std::string();
        }
        std::int64_t stride = o.row_stride;
        std::vector<std::int64_t> lead_strides(v.strides.begin(), v.strides.begin() + static_cast<std::ptrdiff_t>(lead));
        // A batch's leading dims, for a copy of it.
        std::vector<StagedLead> leads;
        for (std::size_t i = 0; i < lead; ++i) leads.push_back({v.extents[i], v.strides[i]});
        // The map's dims: the view's inner and outer, or the transposed copy's (its rows the view's columns).
        std::int64_t map_inner = inner, map_outer = outer;
        if (o.transposed) {
            std::string w;
            void* staged = staging.stage_transposed(v.data, outer, inner, o.row_stride, o.inner_stride, eb, slot, &stride, &w, leads);
            if (!staged) return std::string(name) + " is stored with k outermost, which wgmma cannot read for " + gemm_k_major_only_name(g.in) +
                                " operands, and " + w;
            base = staged;
            map_inner = outer;
            map_outer = inner;
            for (std::size_t i = lead, step = static_cast<std::size_t>(inner * stride); i-- > 0; step *= static_cast<std::size_t>(v.extents[i]))
                lead_strides[i] = static_cast<std::int64_t>(step);
        } else if (o.route.pack) {
            std::string w;
            std::int64_t staged_stride = stride;
            if (void* staged = staging.stage(v.data, outer, inner, o.row_stride, o.inner_stride, eb, slot, &staged_stride, &w, leads)) {
                base = staged;
                stride = staged_stride;
                // The copy's matrices lie one after another, outermost leading dim first.
                for (std::size_t i = lead, step = static_cast<std::size_t>(outer * staged_stride); i-- > 0; step *= static_cast<std::size_t>(v.extents[i]))
                    lead_strides[i] = static_cast<std::int64_t>(step);
            } else if (!tma_readable(v.data, {outer, inner}, {o.row_stride, o.inner_stride}, eb) || !tma_lead_problem(v.extents, v.strides, eb).empty()) {
                // (Rows that straddle lines are readable, only slower: those are read in place.)
                return std::string(name) + " does not suit TMA (16-byte aligned base and " + (lead > 0 ? "strides" : "row stride") +
                           ", unit inner stride) and " + w;
            }
        }
        TiledMapRequest r;
        // (TMA moves bytes: i8 as UINT8. A box row is 128 bytes, the swizzle's span.)
        // (f32 read as tf32: FLOAT32, the elements' bits as they are; wgmma reads their top 19.)
        r.data_type = g.in == Kind::BF16  ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                      : g.in == Kind::I8  ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                      : g.in == Kind::F32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                          : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
        r.base = base;
        r.dims[0] = static_cast<std::uint64_t>(map_inner);
        r.dims[1] = static_cast<std::uint64_t>(map_outer);
        r.strides[0] = static_cast<std::uint64_t>(stride) * eb;
        r.box[0] = static_cast<unsigned>(128 / eb);
        r.box[1] = static_cast<unsigned>(box_outer);
        // A batched view's leading dims, innermost first, one deep per box
        // (emit_gemm_sm90.cuh: tma_load_lead; the kernel's coordinates in this order).
        r.rank = static_cast<int>(2 + lead);
        for (std::size_t i = 0; i < lead; ++i) {
            const std::size_t dim = lead - 1 - i;
            const std::int64_t e = v.extents[dim], st = lead_strides[dim] * eb;
            if (e <= 0 || e > std::numeric_limits<std::int32_t>::max()) return std::string(name) + " has a leading extent TMA cannot take";
            if (st <= 0 || st % 16 != 0 || st >= (std::int64_t{1} << 40))
                return std::string(name) + " has a leading stride that is not a positive multiple of 16 bytes";
            r.dims[2 + i] = static_cast<std::uint64_t>(e);
            r.strides[1 + i] = static_cast<std::uint64_t>(st);
            r.box[2 + i] = 1;
        }
        r.interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
        r.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
        r.l2_promotion = l2_promotion(stride * eb);
        r.oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
        // Encoded once per buffer and layout, then reused (tensor_map_cache.h).
        if (!maps.get(d, r, map)) return "cuTensorMapEncodeTiled refused " + std::string(name);
        return std::string();
    };
    // (The boxes as the kernel reads each operand: a transposed copy K-major.)
    std::string refused = operand(A, operands[0], g.kernel_a_mmajor() ? g.bk : g.bm, L->maps[0], "A", WorkspaceSlot::staged_a, (g.cp_async & 1) != 0);
    // In a cluster each CTA loads its share of every B box's rows (multicast to all).
    if (refused.empty())
        refused = operand(B, operands[1], (g.kernel_b_kmajor() ? g.bn : g.bk) / std::max(g.cluster, 1), L->maps[1], "B", WorkspaceSlot::staged_b,
                          (g.cp_async & 2) != 0);
    if (!refused.empty()) return reject(refused);
    L->schedule = schedule_gemm(rows, cols, depth, g.bm, g.bn, g.bk, d.multiprocessors, /*split_k=*/g.split_k, g.cluster);
    const GemmSchedule& sc = L->schedule;
    std::uint64_t counters = 0, partials = 0;
    if (sc.splits > 1) {
        // Without scratch the kernel runs unsplit: slower, the same sums.
        if (auto w = split_k_scratch(d, staging.stream(), sc.counter_bytes, sc.partial_bytes, nullptr); w.counters) {
            counters = w.counters;
            partials = w.partials;
        } else {
            L->schedule = schedule_gemm(rows, cols, depth, g.bm, g.bn, g.bk, d.multiprocessors, /*split_k=*/false);
        }
    }
    L->ctas = sc.ctas;
    // A batched kernel's units are (batch, tile), whole, on lone CTAs: a persistent grid of
    // one CTA per multiprocessor, at most one per unit.
    if (g.batched)
        L->ctas = static_cast<unsigned>(std::min<std::int64_t>(sc.grid_tiles * problem->batches, std::max(d.multiprocessors, 1)));
    // The kernel's scalars in the order of its signature (emit_gemm.cpp), each in an 8-byte slot.
    auto& slots = L->params.slots;
    slots = {static_cast<std::uint64_t>(sc.tiles_n), static_cast<std::uint64_t>(sc.grid_tiles), static_cast<std::uint64_t>(sc.k_tiles),
             static_cast<std::uint64_t>(sc.splits),  partials,
             counters,
             static_cast<std::uint64_t>(rows),       static_cast<std::uint64_t>(cols)};
    if (g.batched) {
        slots.push_back(static_cast<std::uint64_t>(problem->batches));
        for (std::int64_t e : problem->batch_extents) slots.push_back(static_cast<std::uint64_t>(e));
    }
    append_slots(p, args, slots);
    L->pointers.reserve(2 + slots.size());
    L->pointers = {L->maps[0].words, L->maps[1].words};
    for (auto& s : slots) L->pointers.push_back(&s);
    return L;
}

std::unique_ptr<AttentionLaunch> attention_launch(const ir::Program& p, const std::vector<Arg>& args, const AttentionKernel& a, const Device& d,
                                                  CUstream stream, std::string* why) {
    auto reject = [&](const std::string& w) {
        if (why) *why = w;
        return std::unique_ptr<AttentionLaunch>();
    };
    if (a.entry.empty()) return reject("the program is not FlashAttention");
    if (!d.api.cuTensorMapEncodeTiled) return reject("the driver has no cuTensorMapEncodeTiled");
    auto extents = passes::grid_extents(p, args);
    if (!extents || static_cast<int>(extents->size()) != a.grid_rank) return reject("the nest's extents are not known before the launch");
    constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();  // TMA coordinates are 32-bit
    std::int64_t others = 1;
    for (int i = 0; i < a.grid_rank; ++i) {
        std::int64_t e = (*extents)[static_cast<std::size_t>(i)];
        if (e <= 0) return reject("an empty nest");
        if (i != a.row_axis) others *= e;
        if (e > kMax || others > kMax) return reject("a nest too large for the attention kernel's grid");
    }
    const std::int64_t rows = (*extents)[static_cast<std::size_t>(a.row_axis)] * a.program_bq;
    const std::int64_t row_ctas = (rows + a.bm - 1) / a.bm;
    if (rows > kMax || row_ctas * others > kMax) return reject("a nest too large for the attention kernel's grid");
    auto L = std::make_unique<AttentionLaunch>();
    TensorMapCache& maps = tensor_map_cache();
    // Each view as a tensor map of its own rank, boxes of [rows][64 channels] with
    // 128-byte swizzle (the layout wgmma reads): its dims the channels, the rows (or
    // keys: the view's dim `row_dim`), then the others innermost first, in the order
    // of the kernel's coordinates (attention_producer.cpp: coords).
    auto operand = [&](int index, int row_dim, unsigned box_rows, TensorMap& map, const char* name) -> std::string {
        const Arg& v = args[static_cast<std::size_t>(index)];
        const int rank = static_cast<int>(v.extents.size());
        if (rank < 2 || rank > TiledMapRequest::kMaxRank) return std::string(name) + " has a rank TMA cannot take";
        if (v.strides[static_cast<std::size_t>(rank - 1)] != 1) return std::string(name) + " has a non-unit channel stride";
        if (reinterpret_cast<std::uintptr_t>(v.data) % 16 != 0) return std::string(name) + "'s base is not 16-byte aligned";
        TiledMapRequest r;
        r.data_type = a.in == Kind::BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
        r.rank = rank;
        r.base = v.data;
        if (row_dim < 0 || row_dim >= rank) internal_fail("cuda: an attention view's row dim out of range");
        // (K stored transposed: its keys are its last dim, then the channels.)
        std::vector<int> order{rank - 1};  // view dims, the map's innermost first
        if (row_dim != rank - 1) order.push_back(row_dim);
        for (int i = rank - 2; i >= 0; --i)
            if (i != row_dim) order.push_back(i);
        for (int i = 0; i < rank; ++i) {
            const std::size_t dim = static_cast<std::size_t>(order[static_cast<std::size_t>(i)]);
            const std::int64_t e = v.extents[dim];
            if (e <= 0 || e > kMax) return std::string(name) + " has an extent TMA cannot take";
            r.dims[i] = static_cast<std::uint64_t>(e);
            r.box[i] = i == 0 ? 64u : i == 1 ? box_rows : 1u;
            if (i > 0) {
                const std::int64_t s = v.strides[dim] * 2;
                if (s <= 0 || s % 16 != 0 || s >= (std::int64_t{1} << 40)) return std::string(name) + " has a stride that is not a positive multiple of 16 bytes";
                r.strides[i - 1] = static_cast<std::uint64_t>(s);
            }
        }
        r.interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
        r.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
        r.l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
        r.oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
        if (!maps.get(d, r, map)) return "cuTensorMapEncodeTiled refused " + std::string(name);
        return std::string();
    };
    // Q in boxes of 64 rows: each consumer warpgroup's rows are loaded (and refilled
    // for the next tile) on their own barrier.
    // Where the kernel pads the head dimension (passes::attention_kernel_head_dim), the
    // query and key channels past the program's d must read as zeros: TMA's fill past
    // the views' ends. Views with more channels (a slice of a wider row) take the
    // kernel above. (The value channels past dv only give columns that are not stored.)
    if (a.d > a.program_d)
        for (const auto& [index, name] : {std::pair{a.q, "query"}, std::pair{a.k, "key"}}) {
            const Arg& v = args[static_cast<std::size_t>(index)];
            const std::size_t channels = index == a.k && a.k_transposed ? v.extents.size() - 2 : v.extents.size() - 1;
            if (v.extents.size() >= 2 && v.extents[channels] > a.program_d)
                return reject("the " + std::string(name) + " view has " + std::to_string(v.extents[channels]) + " channels, more than the program's " +
                              std::to_string(a.program_d) + ", which the kernel pads to " + std::to_string(a.d) + " with zeros");
        }
    std::string refused = operand(a.q, a.q_row_dim, static_cast<unsigned>(a.bm / 2), L->maps[0], "the query view");
    // K stored transposed: boxes of [d channels][64 keys].
    if (refused.empty())
        refused = a.k_transposed ? operand(a.k, a.k_row_dim, static_cast<unsigned>(a.d), L->maps[1], "the key view")
                                 : operand(a.k, a.k_row_dim, static_cast<unsigned>(a.bn), L->maps[1], "the key view");
    if (refused.empty()) refused = operand(a.v, a.v_row_dim, static_cast<unsigned>(a.bn), L->maps[2], "the value view");
    if (!refused.empty()) return reject(refused);
    // The kernel runs tiles blockIdx.x, + gridDim.x, ...: a persistent grid has one
    // CTA per multiprocessor (one fits: its shared memory), at most one per tile.
    const std::int64_t tiles = row_ctas * others;
    L->ctas = static_cast<unsigned>(a.persistent && d.multiprocessors > 0 ? std::min<std::int64_t>(tiles, d.multiprocessors) : tiles);
    auto& slots = L->params.slots;
    const CUdeviceptr next = stream_workspace(d, stream, WorkspaceSlot::attention_tiles, 2 * sizeof(unsigned), /*zero=*/true, nullptr);
    slots = {static_cast<std::uint64_t>(tiles), static_cast<std::uint64_t>(row_ctas), static_cast<std::uint64_t>(next)};
    for (std::int64_t e : *extents) slots.push_back(static_cast<std::uint64_t>(e));
    append_slots(p, args, slots);
    L->pointers = {L->maps[0].words, L->maps[1].words, L->maps[2].words};
    for (auto& s : slots) L->pointers.push_back(&s);
    return L;
}

}  // namespace kiln::cu
