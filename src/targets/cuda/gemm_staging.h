// Staging of GEMM operands that TMA cannot read in place. A TMA descriptor needs a
// 16-byte aligned base and a row stride that is a multiple of 16 bytes; an 8191-wide
// bf16 matrix (a row of 16382 bytes), or a view that starts at an odd column, has
// neither. Rather than falling back to a kernel ten times slower, the operand's
// covered rows are copied into a buffer on the launch's stream whose row stride is
// rounded up to whole 128-byte lines (8191^3: 4.1x cuBLAS, which has no such path,
// on an H200), and the kernel reads that. Only operands with a unit inner stride are
// staged. Without the shared packing kernel (a fake driver in tests) the
// copy is a pitched cuMemcpy2DAsync.
//
// 8-bit and tf32 operands stored with k outermost (an int8 or f32 B [K, N], A [K, M])
// are copied transposed, K-major, by the staging kernels' transposing kernels
// (operand_staging.cuh: transpose_bytes, transpose_words): wgmma transposes 16-bit
// operands only. The copy reads and writes
// the operand once (4096^2 bytes: about 11 us at 3 TB/s, a tenth of a 4096^3 int8
// product), where the alternative was the generic mma.sync kernel.
//
// A staged copy's rows are padded to whole 128-byte lines: a row stride that is not
// a multiple of the line (7000 bf16 columns: 14000 bytes) puts every 128-byte box row
// across two lines, measured on an H200 at 434 TFLOP/s for 3000 x 5000 x 7000 as is
// and 644-681 with both operands' rows padded to whole lines. Such operands (TMA can
// read them in place) are packed too where the copy costs less than a quarter of
// the product's time at full speed (operand_route): 433 -> 553 TFLOP/s (H200,
// bench/results/gpu-20261203-s12). The copy is the shared packing kernel
// (operand_staging.cuh: pack_rows; staging_kernels.h: one module for every GEMM)
// into the stream's workspace (stream_workspace.h);
// a pitched cuMemcpy2DAsync into memory allocated per launch made the same staging
// lose (431 -> 388 TFLOP/s, gpu-20261203-s11), and the packing kernel into per-launch
// memory gained nothing (the pool maps it anew at every synchronisation).
// KILN_GEMM_PACK (0: never pack rows TMA can read, 1: where it pays, the default,
// 2: always; read at each launch) for A/B.
//
// Or such rows are read in place by the kernel's producer warpgroup with cp.async
// (emit_gemm_sm90.cuh: cp_async_box), which copies 16-byte chunks into the swizzled
// layout TMA would write, with neither TMA's two line requests a box row nor a copy
// of the operand. KILN_GEMM_CPASYNC=1 (read at each launch) chooses it for every
// operand whose rows straddle lines. Off: measured on an H100 (gpu-20261205-s27) at
// about a third of TMA's speed (3000 x 5000 x 7000 184 against 523 TFLOP/s; 128
// threads issuing 16-byte copies do not feed the tensor cores as one TMA thread does).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "targets/cuda/driver.h"
#include "targets/cuda/staging_kernels.h"
#include "targets/cuda/stream_workspace.h"

namespace kiln::cu {

// Whether TMA can read a rank-2 view in place: unit inner stride, 16-byte aligned
// base and row stride (elements of `elem_bytes`), extents within TMA's 32-bit coordinates.
bool tma_readable(const void* data, const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides, int elem_bytes);

// Why TMA cannot read a batched view's leading dims (all but its last two) in place,
// or "" where it can: each stride of a dim of more than one element a positive
// multiple of 16 bytes (elements of `elem_bytes`), each extent within 32 bits.
std::string tma_lead_problem(const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides, int elem_bytes);

// Whether KILN_GEMM_CPASYNC=1 asks for cp.async copies of rows that straddle lines
// (read at each call).
bool cp_async_asked();

// How a GEMM operand reaches TMA: read in place, or packed to whole lines first
// (`why`, for kiln plan: what about the view decided it). `bytes`: what the launch
// reads of it; `flops`: the product's; `can_pack`: the staging module's packing
// kernel may be used. The launch and the plan decide alike.
struct OperandRoute {
    bool pack = false;
    std::string why;
    bool cp_async = false;  // read in place by the kernel's cp.async copies, not TMA (rows that straddle lines)
};
OperandRoute operand_route(const void* data, const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides, int elem_bytes,
                           double bytes, double flops, bool can_pack);

// A leading dim of a batched operand (a batch of matrices): its extent and stride (elements).
struct StagedLead {
    std::int64_t extent = 1, stride = 0;
};
inline constexpr std::size_t kMaxStagedLeads = 3;  // the packing kernel's (operand_staging.cuh: pack_rows)
// Without the packing kernel a batch is copied a matrix at a time, one pitched copy
// each: up to this many.
inline constexpr std::int64_t kMaxPitchedMatrices = 64;

// The copying kernels a launch's staging may use: none (pitched copies only, and rows
// TMA can read are never staged; no transposition), or the shared staging kernels
// (staging_kernels.h: a module each), compiled or loaded when a copy first needs one.
enum class CopyKernels { none, shared_modules };

// The copies made for one launch: in the stream's workspace, or in memory of the
// launch released (stream-ordered, after the kernel that reads it) when this goes
// out of scope. Not copyable.
class GemmStaging {
public:
    GemmStaging(const Device& d, CUstream stream, CopyKernels kernels = CopyKernels::none) : d_(d), stream_(stream), kernels_(kernels) {}
    ~GemmStaging();
    GemmStaging(const GemmStaging&) = delete;
    GemmStaging& operator=(const GemmStaging&) = delete;

    // The address of a TMA-readable copy of `rows` x `cols` elements of a view with
    // unit inner stride and row stride `stride` (elements), its row stride (whole
    // 128-byte lines) in `staged_stride`; the copy is enqueued on the stream. Null
    // (with `why`) when the view cannot be staged (a non-unit inner stride, or a
    // driver without stream-ordered allocation).
    // The copy goes to the stream's workspace `slot` (stream_workspace.h), or, while
    // the stream is captured and the workspace too small, to memory of this launch.
    // A batched view's matrices (`lead`: its leading dims, outermost first, up to
    // kMaxStagedLeads) are copied one after another, each `rows` x staged_stride:
    // the copy's leading strides are the products of what follows them.
    void* stage(const void* data, std::int64_t rows, std::int64_t cols, std::int64_t stride, std::int64_t inner_stride, int elem_bytes,
                WorkspaceSlot slot, std::int64_t* staged_stride, std::string* why, const std::vector<StagedLead>& lead = {});

    // A K-major copy of an 8-bit or tf32 operand stored with its k axis outermost (wgmma
    // reads those K-major only): the `rows` x `cols` elements (of 1 or 4 bytes) of a view
    // with unit inner stride and row stride `stride` (elements), copied transposed by
    // the staging kernels' transposing kernel, `cols` rows of `rows` elements each
    // `*staged_stride` elements (whole 128-byte lines) apart; a batch (`lead`) one
    // matrix after another. Null (with `why`) where it cannot be made.
    void* stage_transposed(const void* data, std::int64_t rows, std::int64_t cols, std::int64_t stride, std::int64_t inner_stride, int elem_bytes,
                           WorkspaceSlot slot, std::int64_t* staged_stride, std::string* why, const std::vector<StagedLead>& lead = {});

    // Whether operands may be packed (the staging kernels are asked for and the
    // packing kernel has not failed to load: cheap, every launch asks).
    bool can_pack() const;

    CUstream stream() const { return stream_; }  // the launch's
    std::size_t count() const { return scratch_.size(); }

private:
    const Device& d_;
    CUstream stream_;
    CopyKernels kernels_;
    std::vector<CUdeviceptr> scratch_;

    // Staging kernel `k`, loaded now if this is the first copy to need it; null (with
    // `why`) without it.
    CUfunction copy_kernel(StagingKernel k, std::string* why) const;
    // Stream-ordered memory of `bytes` for a copy: the workspace's `slot`, or this launch's.
    CUdeviceptr memory(WorkspaceSlot slot, std::size_t bytes);
};

// Operands staged in this process: by the packing kernel, by pitched copies, by the
// transposing kernel (tests).
struct StagingCounts {
    std::uint64_t packed = 0, pitched = 0, transposed = 0;
};
StagingCounts staging_counts();

}  // namespace kiln::cu
