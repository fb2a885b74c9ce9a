// The host side of a launch: the width of element offsets, the grid size, and
// the kernel's parameters packed as cuLaunchKernel takes them.
#pragma once

#include <array>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <kiln/target.h>

#include "ir/ir.h"
#include "passes/index_width.h"
#include "targets/cuda/driver.h"
#include "targets/cuda/emit.h"
#include "targets/cuda/gemm_schedule.h"
#include "targets/cuda/gemm_staging.h"
#include "targets/cuda/tensor_map_cache.h"

namespace kiln::cu {

using passes::needs_64bit_offsets;

// Which views' rows (unit innermost stride) may start off a 16-byte boundary: its
// base, or a stride other than the innermost, is not a multiple of 16 bytes.
struct MisalignedRows {
    bool any = false;           // some view's
    bool sixteen_bit = false;   // some f16 or bf16 view's (emit.h: coalesced_elements)
};
MisalignedRows misaligned_rows_of(const std::vector<detail::Arg>& args);

// For the plan: one line for each view whose rows start off 16-byte boundaries, naming
// the argument, why (its row pitch or its data's address) and, for a pitch, the
// nearest one that would let its rows move as 16-byte vectors. `params`: the
// program's parameters as written ("View<const bf16, 2>").
std::vector<std::string> misaligned_row_notes(const std::vector<detail::Arg>& args, const std::vector<detail::ParamSig>& params);

// The emitter's options for a launch with these arguments and compile options: the
// offsets' width, whether rows may be misaligned, and the A/B knobs read from the
// environment once (KILN_ATTENTION_OVERLAP, KILN_CUDA_PREFETCH, KILN_CUDA_CLUSTER,
// KILN_CUDA_SHIFTED_RUNS, KILN_CUDA_SHARED_DIVISOR, KILN_CUDA_LOOP_PREFETCH, KILN_CUDA_NARROWER_VECTORS,
// KILN_CUDA_INDEX_FACTS; each part of the cache keys).
EmitOptions emit_options(const std::vector<detail::Arg>& args, const CompileOptions& opts);

// Parameters in the order of kernel_signature(): each value in an 8-byte slot
// (cuLaunchKernel reads each parameter's size from the start of its slot).
struct PackedParams {
    std::vector<std::uint64_t> slots;
    std::vector<void*> pointers;  // into slots, one per kernel parameter
};
PackedParams pack_params(const ir::Program& p, const std::vector<detail::Arg>& args);

// The same parameters in a buffer that lives on the caller's stack for the usual
// few (so that a warm launch allocates nothing), on the heap beyond. Pinned in
// memory: `pointers()` points into it.
class InlineParams {
public:
    InlineParams() = default;
    InlineParams(const InlineParams&) = delete;
    InlineParams& operator=(const InlineParams&) = delete;
    void** pointers() { return heap_pointers_.empty() ? pointers_ : heap_pointers_.data(); }
    std::size_t size() const { return count_; }
    void pack(const ir::Program& p, const std::vector<detail::Arg>& args);

private:
    static constexpr std::size_t kInline = 96;  // 8 views of rank 4 and their strides, and more
    std::uint64_t slots_[kInline];
    void* pointers_[kInline];
    std::vector<std::uint64_t> heap_slots_;
    std::vector<void*> heap_pointers_;
    std::size_t count_ = 0;
};

// A launch of the Hopper GEMM kernel (emit_gemm.h): the tensor maps of A and B,
// then the kernel's own scalars (tile counts, covered rows and columns), then
// pack_params's parameters. Pinned in memory: `pointers` points into it.
struct GemmLaunch {
    TensorMap maps[2];                           // A, B
    PackedParams params;                         // the scalars, then pack_params's slots
    std::vector<void*> pointers;                 // one per kernel parameter
    unsigned ctas = 0;                           // persistent: at most one per multiprocessor
    GemmSchedule schedule;                       // tiles, split-K (gemm_schedule.h)
    GemmLaunch() = default;
    GemmLaunch(const GemmLaunch&) = delete;
    GemmLaunch& operator=(const GemmLaunch&) = delete;
};

// What a launch of the GEMM kernel computes: the rows and columns of output the
// program's tiles cover and the k range (emit_gemm_sm90.cuh's kiln_rows,
// kiln_cols and k tiles), or nullopt (with `why`) for an empty or too large problem.
struct GemmProblem {
    std::int64_t rows = 0, cols = 0, depth = 0;  // of one batch
    std::int64_t batches = 1;                    // a batched kernel's (GemmKernel::batch_axes: the product of their extents)
    std::vector<std::int64_t> batch_extents;     // each batch axis's extent, in GemmKernel::batch_axes' order
};
std::optional<GemmProblem> gemm_problem(const ir::Program& p, const std::vector<detail::Arg>& args, const GemmKernel& g,
                                        std::string* why = nullptr);

// What the launch reads of A and of B (inner x outer elements: the k extent clipped
// to the program's k loop), and how each reaches TMA (gemm_staging.h:
// operand_route; `can_pack`: the shared packing kernel may be used). The launch and
// kiln plan both ask here.
struct GemmOperand {
    std::int64_t inner = 0, outer = 0;                 // as stored: elements of a row, rows
    std::int64_t row_stride = 0, inner_stride = 1;     // ... and their strides (elements)
    OperandRoute route;
    bool transposed = false;  // copied transposed, K-major, first (GemmKernel::a_transposed, b_transposed)
};
std::array<GemmOperand, 2> gemm_operands(const GemmProblem& pr, const std::vector<detail::Arg>& args, const GemmKernel& g, bool can_pack);

// The kernel this launch of the GEMM kernel g (compiled at the program's tile,
// without split-K) wants: its tile (gemm_schedule.h: launch_tile) and whether its
// schedule splits the k range there, and its cluster (gemm_schedule.h:
// launch_cluster). When any differs from g's, the launch compiles and takes that
// variant (EmitOptions::gemm_bm, gemm_bn, gemm_split_k, gemm_cluster).
struct GemmChoice {
    GemmTile tile;
    bool split_k = false;
    int cluster = 1;
    int cp_async = 0;  // operands read by cp.async (EmitOptions::gemm_cp_async): their routes say so (gemm_staging.h)
    int flipped = 0;   // operands whose views lie the other way round in memory (EmitOptions::gemm_flipped)
};
GemmChoice gemm_launch_choice(const ir::Program& p, const std::vector<detail::Arg>& args, const GemmKernel& g, int multiprocessors);

// The GEMM kernel's launch for these arguments, or null (with `why`) when it cannot
// take them. A or B that TMA cannot read in place (its row stride or base not
// 16-byte aligned: 8191 bf16 columns) is staged by `staging` into a copy it can
// read, enqueued on staging's stream; one with a non-unit inner stride is refused
// (then the ordinary kernel runs). Outputs may have any strides: the kernel
// stores element pairs where a row allows it and single elements elsewhere.
// `p` is the program g was emitted from (its k loop is found where g records it,
// not matched again); the tensor maps come from tensor_map_cache(), so repeated
// launches over the same buffers encode nothing.
std::unique_ptr<GemmLaunch> gemm_launch(const ir::Program& p, const std::vector<detail::Arg>& args, const GemmKernel& g, const Device& d,
                                        GemmStaging& staging, std::string* why = nullptr);

// A launch of the FlashAttention kernel (emit_attention.h): the tensor maps of Q,
// K and V, the CTA counts and the parallel nest's extents, then pack_params's
// parameters. Pinned in memory: `pointers` points into it.
struct AttentionLaunch {
    TensorMap maps[3];                           // Q, K, V
    PackedParams params;                         // the scalars, then pack_params's slots
    std::vector<void*> pointers;                 // one per kernel parameter
    unsigned ctas = 0;
    AttentionLaunch() = default;
    AttentionLaunch(const AttentionLaunch&) = delete;
    AttentionLaunch& operator=(const AttentionLaunch&) = delete;
};

// The attention kernel's launch on `stream` for these arguments, or null (with
// `why`) when TMA cannot read Q, K or V in place (unit inner stride, 16-byte
// aligned base and strides); then the ordinary kernel runs. The tile counter is
// the stream's workspace (stream_workspace.h); without one (no stream-ordered
// allocation, or a graph capture that would have to allocate it) each CTA takes
// every gridDim.x-th tile.
std::unique_ptr<AttentionLaunch> attention_launch(const ir::Program& p, const std::vector<detail::Arg>& args, const AttentionKernel& a,
                                                  const Device& d, CUstream stream, std::string* why = nullptr);

}  // namespace kiln::cu
