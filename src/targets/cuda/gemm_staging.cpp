#include "targets/cuda/gemm_staging.h"

#include <limits>

namespace kiln::cu {

namespace {
constexpr std::int64_t kTmaAlignment = 16;  // bytes, of the base and of every stride
constexpr std::int64_t kLineBytes = 128;    // a staged copy's rows are whole lines
}  // namespace

bool tma_readable(const void* data, const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides, int elem_bytes) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();  // TMA coordinates are 32-bit
    return extents.size() == 2 && strides[1] == 1 && reinterpret_cast<std::uintptr_t>(data) % kTmaAlignment == 0 && strides[0] > 0 &&
           (strides[0] * elem_bytes) % kTmaAlignment == 0 && extents[0] > 0 && extents[1] > 0 && extents[0] <= kMax && extents[1] <= kMax;
}

GemmStaging::~GemmStaging() {
    // Stream-ordered: the memory returns to the pool once the kernel reading it is done.
    for (CUdeviceptr p : scratch_) d_.api.cuMemFreeAsync(p, stream_);
}

void* GemmStaging::stage(const void* data, std::int64_t rows, std::int64_t cols, std::int64_t stride, std::int64_t inner_stride,
                         int elem_bytes, std::int64_t* staged_stride, std::string* why) {
    auto no = [&](const std::string& w) -> void* {
        if (why) *why = w;
        return nullptr;
    };
    if (inner_stride != 1) return no("its inner stride is " + std::to_string(inner_stride) + ", not 1 (a copy would have to transpose it)");
    if (!d_.api.cuMemAllocAsync || !d_.api.cuMemFreeAsync || !d_.api.cuMemcpy2DAsync)
        return no("the driver has no stream-ordered allocation to stage it in");
    if (rows <= 0 || cols <= 0) return no("it is empty");
    const std::int64_t per_row = kLineBytes / elem_bytes;
    const std::int64_t padded = (cols + per_row - 1) / per_row * per_row;
    CUdeviceptr p = 0;
    check(d_, d_.api.cuMemAllocAsync(&p, static_cast<std::size_t>(padded * rows * elem_bytes), stream_), "allocating GEMM staging memory");
    scratch_.push_back(p);
    Memcpy2D c;
    c.src_device = reinterpret_cast<CUdeviceptr>(data);
    c.src_pitch = static_cast<std::size_t>(stride * elem_bytes);
    c.dst_device = p;
    c.dst_pitch = static_cast<std::size_t>(padded * elem_bytes);
    c.width_bytes = static_cast<std::size_t>(cols * elem_bytes);
    c.height = static_cast<std::size_t>(rows);
    check(d_, d_.api.cuMemcpy2DAsync(&c, stream_), "staging a GEMM operand for TMA");
    *staged_stride = padded;
    return reinterpret_cast<void*>(p);
}

}  // namespace kiln::cu
