// Staging of GEMM operands that TMA cannot read in place. A TMA descriptor needs a
// 16-byte aligned base and a row stride that is a multiple of 16 bytes; an 8191-wide
// bf16 matrix (a row of 16382 bytes), or a view that starts at an odd column, has
// neither. Rather than falling back to a kernel ten times slower, the operand's
// covered rows are copied into a stream-ordered scratch buffer whose row stride is
// rounded up to 16 bytes (one pitched copy, at memory bandwidth: ~0.1 ms for an
// 8191^2 bf16 matrix against ~2 ms of tensor-core work), and the kernel reads that.
// Only operands with a unit inner stride are staged; a copy cannot transpose.
//
// A row stride TMA can read but that is not a multiple of the 128-byte line (7000
// bf16 columns: 14000 bytes) puts every 128-byte box row across two lines: measured
// on an H200, 3000 x 5000 x 7000 ran at 434 TFLOP/s as is and 644 with both
// operands' rows padded to whole lines (bench/results/gpu-20261203-s11). Such an
// operand is staged too when enough tiles read it (line_staging_pays); every staged
// copy's rows are padded to whole lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "targets/cuda/driver.h"

namespace kiln::cu {

// Whether TMA can read a rank-2 view in place: unit inner stride, 16-byte aligned
// base and row stride (elements of `elem_bytes`), extents within TMA's 32-bit coordinates.
bool tma_readable(const void* data, const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides, int elem_bytes);

// Whether to stage a TMA-readable operand of `bytes` whose row stride
// (`stride_bytes`) is not a multiple of 128 bytes, when `reads` tiles read each of
// its boxes (an A block row is read by every tile of its row of output tiles): the
// copy reads and writes it once, against a slower read by every one of those
// tiles. From 16 reads and 4 MB (3000 x 5000 x 7000 on 128x256 tiles: A 42 MB read
// by 20 tiles, B 70 MB by 24); never for a decode-like operand read by one tile or
// one small enough that the copy's launch would cost more than it saves.
// KILN_GEMM_LINE_STAGING=0 (read at each launch) turns it off (A/B).
bool line_staging_pays(std::int64_t stride_bytes, std::int64_t bytes, std::int64_t reads);

// Scratch copies made for one launch, released (stream-ordered, after the kernel
// that reads them) when this goes out of scope. Not copyable.
class GemmStaging {
public:
    GemmStaging(const Device& d, CUstream stream) : d_(d), stream_(stream) {}
    ~GemmStaging();
    GemmStaging(const GemmStaging&) = delete;
    GemmStaging& operator=(const GemmStaging&) = delete;

    // The address of a TMA-readable copy of `rows` x `cols` elements of a view with
    // unit inner stride and row stride `stride` (elements), its row stride (whole
    // 128-byte lines) in `staged_stride`; the copy is enqueued on the stream. Null (with `why`) when the
    // view cannot be staged (a non-unit inner stride, or a driver without
    // stream-ordered allocation).
    void* stage(const void* data, std::int64_t rows, std::int64_t cols, std::int64_t stride, std::int64_t inner_stride, int elem_bytes,
                std::int64_t* staged_stride, std::string* why);

    CUstream stream() const { return stream_; }  // the launch's
    std::size_t count() const { return scratch_.size(); }

private:
    const Device& d_;
    CUstream stream_;
    std::vector<CUdeviceptr> scratch_;
};

}  // namespace kiln::cu
