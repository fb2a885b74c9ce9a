#include "targets/cuda/gemm_staging.h"

#include <algorithm>
#include <atomic>
#include <limits>

#include "support/environment.h"
#include "targets/cuda/emit.h"

namespace kiln::cu {

namespace {
constexpr std::int64_t kTmaAlignment = 16;  // bytes, of the base and of every stride
constexpr std::int64_t kLineBytes = 128;    // a staged copy's rows are whole lines
// The packing model (operand_route): a copy reads and writes the operand at about
// this bandwidth, and rows on whole lines save about a third of the product's time
// at the device's dense bf16 rate (434 -> 644 TFLOP/s measured): pack where the
// copy costs less than a quarter of that time.
constexpr double kPackBytesPerSecond = 3.0e12;
constexpr double kProductFlopsPerSecond = 700e12;
constexpr double kPackShare = 0.25;
std::atomic<std::uint64_t> g_packed{0}, g_pitched{0}, g_transposed{0};

// The share of the product's time at full speed a copy of `bytes` costs (read and written).
double copy_share(double bytes, double flops) { return 2 * bytes / kPackBytesPerSecond / (flops / kProductFlopsPerSecond); }

// A batch's leading dims in the copying kernels' three slots, innermost last (unused:
// extent 1), and how many matrices they hold (0 where one is empty).
struct LeadSlots {
    std::int64_t extents[kMaxStagedLeads] = {1, 1, 1}, strides[kMaxStagedLeads] = {0, 0, 0};
    std::int64_t matrices = 1;
};
LeadSlots lead_slots(const std::vector<StagedLead>& lead) {
    LeadSlots s;
    for (std::size_t i = 0, at = kMaxStagedLeads - lead.size(); i < lead.size(); ++i, ++at) {
        s.extents[at] = lead[i].extent;
        s.strides[at] = lead[i].stride;
        s.matrices *= std::max<std::int64_t>(lead[i].extent, 0);
    }
    return s;
}

// Launches one of the shared staging kernels (operand_staging.cuh: pack_rows,
// transpose_bytes, transpose_words: the same parameters) on `ctas` CTAs, at most 8 a
// multiprocessor.
void launch_copy(const Device& d, CUstream stream, CUfunction f, std::int64_t ctas, const void* src, std::int64_t src_stride, void* dst,
                 std::int64_t dst_stride, std::int64_t rows, std::int64_t cols, LeadSlots& s, const char* what) {
    const unsigned grid = static_cast<unsigned>(std::min<std::int64_t>(ctas, std::int64_t{8} * std::max(1, d.multiprocessors)));
    void* params[] = {&src, &src_stride, &dst, &dst_stride, &rows, &cols, &s.extents[0], &s.extents[1], &s.extents[2], &s.strides[0], &s.strides[1], &s.strides[2]};
    check(d, d.api.cuLaunchKernel(f, grid, 1, 1, kPackThreads, 1, 1, 0, stream, params, nullptr), what);
}

}  // namespace

OperandRoute operand_route(const void* data, const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides, int elem_bytes,
                           double bytes, double flops, bool can_pack) {
    const std::int64_t row_bytes = strides.size() == 2 ? strides[0] * elem_bytes : 0;
    const std::string rows = "rows of " + std::to_string(row_bytes) + " bytes";
    if (!tma_readable(data, extents, strides, elem_bytes)) {
        if (strides.size() != 2 || strides[1] != 1)
            return {true, "not readable by TMA and not packable (inner stride " + std::to_string(strides.empty() ? 0 : strides.back()) +
                              ", not 1: a copy would have to transpose it)"};
        const std::uintptr_t misaligned = reinterpret_cast<std::uintptr_t>(data) % kTmaAlignment;
        return {true, "packed to whole 128-byte lines first (TMA needs a 16-byte aligned base and row stride: " + rows +
                          (misaligned ? ", a base " + std::to_string(misaligned) + " bytes past 16" : "") + ")"};
    }
    if (row_bytes % kLineBytes == 0) return {false, "read in place"};
    if (cp_async_asked())
        return {false, "read in place by cp.async (" + rows + " straddle 128-byte lines; KILN_GEMM_CPASYNC=1)", true};
    const double share = copy_share(bytes, flops);
    const int percent = static_cast<int>(share * 100 + 0.5);
    const std::int64_t mode = support::env_integer("KILN_GEMM_PACK", 0, 2).value_or(1);
    const std::string straddle = rows + " straddle 128-byte lines";
    if (can_pack && (mode == 2 || (mode == 1 && share < kPackShare)))
        return {true, "packed to whole 128-byte lines first (" + straddle + "; the copy costs about " + std::to_string(percent) +
                          "% of the product's time" + (mode == 2 ? ", KILN_GEMM_PACK=2)" : ")")};
    std::string because = mode == 0  ? "KILN_GEMM_PACK=0"
                          : !can_pack ? "no packing kernel"
                                      : "packing would cost about " + std::to_string(percent) + "% of the product's time, over " +
                                            std::to_string(static_cast<int>(kPackShare * 100)) + "%";
    return {false, "read in place without L2 promotion (" + straddle + "; " + because + ")"};
}

bool cp_async_asked() { return support::env_integer("KILN_GEMM_CPASYNC", 0, 1).value_or(0) == 1; }

StagingCounts staging_counts() { return {g_packed.load(), g_pitched.load(), g_transposed.load()}; }

bool tma_readable(const void* data, const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides, int elem_bytes) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();  // TMA coordinates are 32-bit
    return extents.size() == 2 && strides[1] == 1 && reinterpret_cast<std::uintptr_t>(data) % kTmaAlignment == 0 && strides[0] > 0 &&
           (strides[0] * elem_bytes) % kTmaAlignment == 0 && extents[0] > 0 && extents[1] > 0 && extents[0] <= kMax && extents[1] <= kMax;
}

std::string tma_lead_problem(const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides, int elem_bytes) {
    for (std::size_t i = 0; i + 2 < extents.size(); ++i) {
        if (extents[i] > std::numeric_limits<std::int32_t>::max()) return "a leading extent of " + std::to_string(extents[i]) + ", over TMA's 32 bits";
        const std::int64_t bytes = strides[i] * elem_bytes;
        if (extents[i] > 1 && (bytes <= 0 || bytes % kTmaAlignment != 0))
            return "a leading stride of " + std::to_string(bytes) + " bytes, not a positive multiple of 16";
    }
    return std::string();
}

bool GemmStaging::can_pack() const { return kernels_ == CopyKernels::shared_modules && !staging_kernel_failed(d_, StagingKernel::pack_rows); }

CUfunction GemmStaging::copy_kernel(StagingKernel k, std::string* why) const {
    if (kernels_ == CopyKernels::none) {
        if (why) *why = "no staging kernels";
        return nullptr;
    }
    return staging_kernel(d_, k, why);
}

CUdeviceptr GemmStaging::memory(WorkspaceSlot slot, std::size_t bytes) {
    CUdeviceptr p = stream_workspace(d_, stream_, slot, bytes, /*zero=*/false, nullptr);
    if (!p) {
        check(d_, d_.api.cuMemAllocAsync(&p, bytes, stream_), "allocating GEMM staging memory");
        scratch_.push_back(p);
    }
    return p;
}

GemmStaging::~GemmStaging() {
    // Stream-ordered: the memory returns to the pool once the kernel reading it is done.
    for (CUdeviceptr p : scratch_) d_.api.cuMemFreeAsync(p, stream_);
}

void* GemmStaging::stage(const void* data, std::int64_t rows, std::int64_t cols, std::int64_t stride, std::int64_t inner_stride,
                         int elem_bytes, WorkspaceSlot slot, std::int64_t* staged_stride, std::string* why, const std::vector<StagedLead>& lead) {
    auto no = [&](const std::string& w) -> void* {
        if (why) *why = w;
        return nullptr;
    };
    if (inner_stride != 1) return no("its inner stride is " + std::to_string(inner_stride) + ", not 1 (a copy would have to transpose it)");
    // The packing kernel for 2-byte elements where it can be had (a failure to load it
    // leaves the pitched copies).
    CUfunction pack = nullptr;
    if (elem_bytes == 2 && can_pack()) pack = copy_kernel(StagingKernel::pack_rows, nullptr);
    if (!d_.api.cuMemAllocAsync || !d_.api.cuMemFreeAsync || (!pack && !d_.api.cuMemcpy2DAsync))
        return no("the driver has no stream-ordered allocation to stage it in");
    if (rows <= 0 || cols <= 0) return no("it is empty");
    if (lead.size() > kMaxStagedLeads) return no("it has " + std::to_string(lead.size()) + " leading dims (at most " + std::to_string(kMaxStagedLeads) + " are staged)");
    LeadSlots slots = lead_slots(lead);
    const std::int64_t matrices = slots.matrices;
    if (matrices == 0) return no("it is empty");
    if (!pack && matrices > kMaxPitchedMatrices)
        return no("it is a batch of " + std::to_string(matrices) + " matrices and there is no packing kernel (a pitched copy each: at most " +
                  std::to_string(kMaxPitchedMatrices) + ")");
    const std::int64_t per_row = kLineBytes / elem_bytes;
    const std::int64_t padded = (cols + per_row - 1) / per_row * per_row;
    const CUdeviceptr p = memory(slot, static_cast<std::size_t>(padded * rows * matrices * elem_bytes));
    *staged_stride = padded;
    if (pack) {
        // A CTA per row at a time (every matrix's rows in turn).
        launch_copy(d_, stream_, pack, rows * matrices, data, stride, reinterpret_cast<void*>(p), padded, rows, cols, slots, "packing a GEMM operand for TMA");
        ++g_packed;
        return reinterpret_cast<void*>(p);
    }
    for (std::int64_t m = 0; m < matrices; ++m) {
        std::int64_t offset = 0;  // the matrix's first element in the view
        for (std::int64_t i = kMaxStagedLeads - 1, rest = m; i >= 0; rest /= slots.extents[i], --i) offset += rest % slots.extents[i] * slots.strides[i];
        Memcpy2D c;
        c.src_device = reinterpret_cast<CUdeviceptr>(data) + static_cast<CUdeviceptr>(offset * elem_bytes);
        c.src_pitch = static_cast<std::size_t>(stride * elem_bytes);
        c.dst_device = p + static_cast<CUdeviceptr>(m * rows * padded * elem_bytes);
        c.dst_pitch = static_cast<std::size_t>(padded * elem_bytes);
        c.width_bytes = static_cast<std::size_t>(cols * elem_bytes);
        c.height = static_cast<std::size_t>(rows);
        check(d_, d_.api.cuMemcpy2DAsync(&c, stream_), "staging a GEMM operand for TMA");
    }
    ++g_pitched;
    return reinterpret_cast<void*>(p);
}

void* GemmStaging::stage_transposed(const void* data, std::int64_t rows, std::int64_t cols, std::int64_t stride, std::int64_t inner_stride,
                                    int elem_bytes, WorkspaceSlot slot, std::int64_t* staged_stride, std::string* why,
                                    const std::vector<StagedLead>& lead) {
    auto no = [&](const std::string& w) -> void* {
        if (why) *why = w;
        return nullptr;
    };
    if (elem_bytes != 1 && elem_bytes != 4) return no("its elements are " + std::to_string(elem_bytes) + " bytes (the transposing kernels take 1 or 4)");
    std::string no_kernel;
    const CUfunction transpose = copy_kernel(elem_bytes == 1 ? StagingKernel::transpose_bytes : StagingKernel::transpose_words, &no_kernel);
    if (!transpose) return no("there is no transposing kernel (" + no_kernel + ")");
    if (inner_stride != 1) return no("its inner stride is " + std::to_string(inner_stride) + ", not 1");
    if (!d_.api.cuMemAllocAsync || !d_.api.cuMemFreeAsync) return no("the driver has no stream-ordered allocation to stage it in");
    if (rows <= 0 || cols <= 0) return no("it is empty");
    if (lead.size() > kMaxStagedLeads) return no("it has " + std::to_string(lead.size()) + " leading dims (at most " + std::to_string(kMaxStagedLeads) + " are staged)");
    LeadSlots slots = lead_slots(lead);
    const std::int64_t matrices = slots.matrices;
    if (matrices == 0) return no("it is empty");
    // The copy's rows are the view's columns, each `rows` elements padded to whole lines.
    const std::int64_t per_line = kLineBytes / elem_bytes;
    const std::int64_t padded = (rows + per_line - 1) / per_line * per_line;
    const CUdeviceptr p = memory(slot, static_cast<std::size_t>(padded * cols * matrices * elem_bytes));
    *staged_stride = padded;
    // Tiles of 128 x 128 bytes or 32 x 32 words (operand_staging.cuh: transpose_bytes, transpose_words).
    const std::int64_t edge = elem_bytes == 1 ? 128 : 32;
    const std::int64_t tiles = (rows + edge - 1) / edge * ((cols + edge - 1) / edge) * matrices;
    launch_copy(d_, stream_, transpose, tiles, data, stride, reinterpret_cast<void*>(p), padded, rows, cols, slots, "transposing a GEMM operand for wgmma");
    ++g_transposed;
    return reinterpret_cast<void*>(p);
}

}  // namespace kiln::cu
