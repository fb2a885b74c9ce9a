// How a launch of the Hopper GEMM kernel (emit_gemm_sm90.cuh) divides its work
// over the device: output tiles, and, when there are too few of them to occupy
// every multiprocessor, each tile's k range split into shares (split-K) whose
// partial sums the kernel adds in a fixed order. Host-only arithmetic over the
// problem's extents, so the launch and `kiln plan` agree and tests need no device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::cu {

struct GemmSchedule {
    std::int64_t tiles_n = 0;   // tiles along the output's columns
    std::int64_t tiles = 0;     // all output tiles
    std::int64_t k_tiles = 0;   // bk-deep steps of the k range
    int splits = 1;             // shares of each tile's k range (1: no split-K)
    unsigned ctas = 0;          // the persistent grid: at most one CTA per multiprocessor
    // Split-K's scratch (split_k_workspace.h): counters, one per tile, and the
    // partial sums of every share; 0 without split-K.
    std::size_t counter_bytes = 0, partial_bytes = 0;
    int bm = 0, bn = 0;         // the tile the schedule is for
    std::string describe() const;  // "16 tiles of 128x256 over 64 k steps, k split 7 ways (...): 112 units on 112 CTAs"
};

// The schedule of a rows x cols output over a k range of `depth`, on tiles
// bm x bn x bk, for a device of `multiprocessors`. Splits k when that shortens the
// modelled time by at least 10%: a unit costs its k tiles plus a fixed start and
// finish, units run in waves of `multiprocessors`, and a split tile also writes and
// reads back its partial sums (only the rows the output has).
// `split_k` false keeps every tile whole (a launch without scratch for the sums).
// KILN_GEMM_SPLITS=N (1 to 64; read once per process) forces N shares, at most
// one per k step (1: none), for A/B measurements of the model's choice.
GemmSchedule schedule_gemm(std::int64_t rows, std::int64_t cols, std::int64_t depth, int bm, int bn, int bk, int multiprocessors,
                           bool split_k = true);

// Whether the kernel at half the tile width (bn / 2) would finish sooner: the
// same model over twice the tiles, a k step of a half-width tile costing 0.6 of a
// full one (half the products, two thirds of the loads; 128x128 tiles run 0.93 as
// fast as 128x256 on 4096^3). False when bn / 2 is not a multiple of 64, and when
// the full width's schedule splits the k range: measured on an H200, 128 x 14336 x
// 4096 (unsplit) 0.79 -> 0.94 of cuBLAS at half width, while the split shapes lost
// (decode 16 x 4096 x 4096 0.78 -> 0.74, 64 x 8192 x 8192 0.75 -> 0.71).
bool half_width_pays(std::int64_t rows, std::int64_t cols, std::int64_t depth, int bm, int bn, int bk, int multiprocessors);

// Whether launches may take the half-width variant (the same kernel at half the
// tile width, compiled as its own variant): unless KILN_GEMM_HALF_WIDTH=0 (0 or 1,
// read at each GEMM launch; for A/B).
bool half_width_enabled();

}  // namespace kiln::cu
