// Plain C++ loops, the peers of the cpu target in bench/cpu_rows_bench.cpp
// (plain_loops.h).
#include "plain_loops.h"

#include <cmath>
#include <cstring>

namespace plain {

float bf16_to_float(std::uint16_t h) {
    const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

std::uint16_t float_to_bf16(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<std::uint16_t>(u >> 16);
}

void layernorm_bf16(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y, std::int64_t rows,
                    std::int64_t cols, float eps) {
    const float inv_n = 1.0f / static_cast<float>(cols);
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::uint16_t* xr = x + r * cols;
        std::uint16_t* yr = y + r * cols;
        float sum = 0;
        for (std::int64_t c = 0; c < cols; ++c) sum += bf16_to_float(xr[c]);
        const float mean = sum * inv_n;
        float sq = 0;
        for (std::int64_t c = 0; c < cols; ++c) {
            const float d = bf16_to_float(xr[c]) - mean;
            sq += d * d;
        }
        const float rstd = 1.0f / std::sqrt(sq * inv_n + eps);
        for (std::int64_t c = 0; c < cols; ++c)
            yr[c] = float_to_bf16((bf16_to_float(xr[c]) - mean) * rstd * bf16_to_float(w[c]) + bf16_to_float(b[c]));
    }
}

void top2_router(const float* logits, float* gates, std::int64_t* experts, std::int64_t rows, std::int64_t n) {
    for (std::int64_t r = 0; r < rows; ++r) {
        const float* l = logits + r * n;
        float v0 = l[0], v1 = -INFINITY;
        std::int64_t i0 = 0, i1 = -1;
        for (std::int64_t j = 1; j < n; ++j) {
            if (l[j] > v0) {
                v1 = v0, i1 = i0;
                v0 = l[j], i0 = j;
            } else if (i1 < 0 || l[j] > v1) {
                v1 = l[j], i1 = j;
            }
        }
        const float e1 = std::exp(v1 - v0), s = 1.0f + e1;
        gates[2 * r] = 1.0f / s;
        gates[2 * r + 1] = e1 / s;
        experts[2 * r] = i0;
        experts[2 * r + 1] = i1;
    }
}

void scan_rows(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
    for (std::int64_t r = 0; r < rows; ++r) {
        float acc = 0;
        for (std::int64_t c = 0; c < cols; ++c) {
            acc += x[r * cols + c];
            y[r * cols + c] = acc;
        }
    }
}

void add_row_vector(const float* x, const float* v, float* y, std::int64_t rows, std::int64_t cols) {
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c) y[r * cols + c] = x[r * cols + c] + v[c];
}

void column_sum(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
    for (std::int64_t c = 0; c < cols; ++c) y[c] = 0;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c) y[c] += x[r * cols + c];
}

}  // namespace plain
