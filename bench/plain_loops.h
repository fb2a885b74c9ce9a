// The peers of bench/cpu_rows_bench.cpp: each kernel as a plain single-threaded
// C++ loop, the way a user writes it by hand (compiled at -O3 -march=native,
// without -ffast-math: bench/CMakeLists.txt). bf16 is stored as its 16 bits.
#pragma once

#include <cstdint>

namespace plain {

float bf16_to_float(std::uint16_t h);
std::uint16_t float_to_bf16(float f);  // round to nearest even; NaN -> 0x7fc0

// y = (x - mean) / sqrt(var + eps) * w + b per row, in f32, two-pass variance.
void layernorm_bf16(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y, std::int64_t rows,
                    std::int64_t cols, float eps);
// Per row: the two largest logits (ties: lower index first), their indices, and
// the softmax of the two as gates.
void top2_router(const float* logits, float* gates, std::int64_t* experts, std::int64_t rows, std::int64_t n);
// Inclusive prefix sum of each row.
void scan_rows(const float* x, float* y, std::int64_t rows, std::int64_t cols);
// y[r][c] = x[r][c] + v[c].
void add_row_vector(const float* x, const float* v, float* y, std::int64_t rows, std::int64_t cols);
// y[c] = sum over rows of x[r][c].
void column_sum(const float* x, float* y, std::int64_t rows, std::int64_t cols);

}  // namespace plain
