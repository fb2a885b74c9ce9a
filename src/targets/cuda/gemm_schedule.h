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
    std::int64_t grid_tiles = 0;  // the tiles the kernel walks: m-tiles counted up to whole clusters
    std::int64_t k_tiles = 0;   // bk-deep steps of the k range
    int splits = 1;             // shares of each tile's k range (1: no split-K)
    int cluster = 1;            // CTAs per cluster: 2 take the m-tiles of a pair (emit_gemm_sm90.cuh)
    unsigned ctas = 0;          // the persistent grid: at most one CTA per multiprocessor, whole clusters
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
// `cluster` 2: the kernel runs in clusters of 2 CTAs, each cluster a pair of
// m-tiles at a time (never split: a cluster kernel has no split-K code).
GemmSchedule schedule_gemm(std::int64_t rows, std::int64_t cols, std::int64_t depth, int bm, int bn, int bk, int multiprocessors,
                           bool split_k = true, int cluster = 1);

// The tile a launch runs the Hopper GEMM kernel at, which may differ from the
// program's (the kernel's tile is its own: the epilogue works on output
// coordinates, clipped to the outputs' extents).
struct GemmTile {
    int bm = 0, bn = 0;
    bool operator==(const GemmTile&) const = default;
};

// The kernel tile for a rows x cols x depth problem whose program compiles to a
// bm x bn x bk kernel (emit_gemm.cpp: choose_tile), on `multiprocessors`:
// - when the output has at most 64 rows, 64-row tiles (one consumer warpgroup: a
//   128-row tile multiplies zeros in more than half its rows): up to 32 rows at
//   128 columns (bn when narrower), split as the schedule likes; above, the widest
//   of bn, bn / 2, bn / 4 (multiples of 64) whose tiles fill 4/5 of the device
//   unsplit, else the narrowest. Fitted to the autotuner's times on ten shapes
//   (bench/results/gpu-20261203-s11); against a 128x256 tile, decode 16 x 4096 x 4096
//   1.27x, 64 x 8192 x 8192 1.24x, 1 x 4096 x 4096 1.54x as fast;
// - else 128x256 (the widest tile the kernel takes) where, at 64-deep k steps,
//   it beats the program's tile by 10% in modelled time (schedule_gemm's, in k
//   steps of its own tile, weighted by the cost of its k step): a 4096^3 GEMM
//   written with 128x128 tiles (the tuner found 128x256 1.10x as fast), or with
//   64x64 ones;
// - and then half of that width (a multiple of 64) where that beats it by 10% in
//   modelled time, unless the full width's
//   schedule splits the k range: measured on an H200, 128 x 14336 x 4096
//   (unsplit) 0.79 -> 0.94 of cuBLAS at half width, while split shapes on 128-row
//   tiles lost (decode 16 x 4096 x 4096 0.78 -> 0.74, 64 x 8192 x 8192 0.75 -> 0.71).
// A batched launch (`batches` > 1: rows x cols x depth per batch) counts the
// device's waves over every batch's tiles, which are never split: 32 batches of
// 1000^3 keep 128x256 tiles (1024 units), where one batch alone would take 128x128.
// Unless KILN_GEMM_RETILE=0 (0 or 1, read at each GEMM launch; for A/B), which
// keeps the program's tile.
GemmTile launch_tile(std::int64_t rows, std::int64_t cols, std::int64_t depth, int bm, int bn, int bk, int multiprocessors,
                     std::int64_t batches = 1);

// The cluster a launch on bm x bn x bk tiles runs the kernel in: 2 (a pair of CTAs
// on adjacent m-tiles, loading B once by TMA multicast: half the L2 traffic of
// B) where clusters are asked for, the schedule does not split k, the output has
// at least two m-tiles, and pairs take no more waves of the device than single
// tiles; else 1. Asked for by KILN_GEMM_CLUSTER=2 (1: never; read at each GEMM
// launch); without it, by default (kClustersByDefault in gemm_schedule.cpp: off,
// the cluster kernel measured no faster than lone CTAs).
// `why`, when given, says why a launch runs on lone CTAs (kiln plan prints it).
int launch_cluster(std::int64_t rows, std::int64_t cols, std::int64_t depth, int bm, int bn, int bk, int multiprocessors,
                   std::string* why = nullptr);

}  // namespace kiln::cu
