#include "targets/cuda/gemm_schedule.h"

#include <algorithm>
#include <optional>
#include <string>

#include "support/environment.h"

namespace kiln::cu {

namespace {

// The model's constants, in units of one k step of a tile (one ring stage's TMA
// loads and wgmmas). A unit's fixed cost: filling the ring and the epilogue.
constexpr double kUnitOverhead = 2.0;
// A split tile's partial sums (written by every share, fenced, counted, read back
// by the last) cost about 4 stages' time per stage-sized amount: fitted on an H200
// to forced splits of 16 x 4096 x 4096 (best at 4-8 shares), 64 x 8192 x 8192 (3-4)
// and 128 x 14336 x 4096 (none), bench/results/gemm-20261202/README.md.
constexpr double kPartialCost = 4.0;
// Fewer k steps per share leave the ring no time to fill.
constexpr std::int64_t kMinStepsPerSplit = 4;
constexpr int kMaxSplits = 16;
// Whether launches take clusters of 2 where launch_cluster's rules allow, without
// KILN_GEMM_CLUSTER=2. Off: measured on an H200 (bench/results/gpu-20261203-s13),
// the cluster kernel runs about as fast as lone CTAs, not faster (4096^3 679-692
// against 696 TFLOP/s, 8192^3 757-759 against 746-753, 2048^3 415-450 against
// 458-466), so halving B's L2 traffic is not what limits these shapes.
constexpr bool kClustersByDefault = false;
// Withdrawn: on an H200 (bench/results/gpu-20261203-s14, call 3) the device test
// CudaGemmDevice.ClusterPairsMatchF64AndLoneCtasBitForBit saw a cluster launch of
// 1160 x 1800 x 2000 differ from the same launch on lone CTAs in 2 of 3 runs (about
// half the elements), with and without the quad stores; the cause is not found. Until
// it is, KILN_GEMM_CLUSTER=2 is ignored (the plan says so) unless
// KILN_GEMM_CLUSTER_DEBUG=1 asks for the faulty kernel, for that investigation.
bool clusters_withdrawn() {
    return support::env_integer("KILN_GEMM_CLUSTER_DEBUG", 0, 1).value_or(0) != 1;
}
// A split must shorten the modelled time by this much to be worth its scratch.
constexpr double kRequiredGain = 0.9;

// The modelled time of a schedule, in k steps of its own tile (see schedule_gemm).
double modelled_time(const GemmSchedule& g, std::int64_t rows, int bk, int multiprocessors) {
    const std::int64_t sms = std::max(multiprocessors, 1), units = g.tiles * g.splits, waves = (units + sms - 1) / sms;
    double t = static_cast<double>(waves) * (static_cast<double>(g.k_tiles) / g.splits + kUnitOverhead);
    const double valid_rows = static_cast<double>(std::min<std::int64_t>(rows, g.bm));
    if (g.splits > 1) t += (g.splits + 1) * valid_rows * g.bn * 4 / (static_cast<double>(g.bm + g.bn) * bk * 2) * kPartialCost;
    return t;
}

// The cost of a k step of a bm x bn tile against one of a 128x256 tile: a part
// for the loads, (bm + bn), and a part for the products, bm * bn, fitted so that
// a 128x128 step costs 0.6 of a 128x256 one (measured: 128x128 tiles run 0.93 as
// fast as 128x256 on 4096^3, at twice the tiles).
double step_cost(int bm, int bn) { return (bm + bn) / 640.0 + 0.4 * bm * bn / 32768.0; }

}  // namespace

GemmSchedule schedule_gemm(std::int64_t rows, std::int64_t cols, std::int64_t depth, int bm, int bn, int bk, int multiprocessors,
                           bool split_k, int cluster) {
    GemmSchedule g;
    g.bm = bm;
    g.bn = bn;
    g.tiles_n = (cols + bn - 1) / bn;
    g.tiles = (rows + bm - 1) / bm * g.tiles_n;
    g.k_tiles = (depth + bk - 1) / bk;
    const std::int64_t sms = std::max(multiprocessors, 1);
    g.grid_tiles = g.tiles;
    if (cluster > 1) {
        // Pairs of m-tiles, one per cluster at a time, over whole clusters of the device.
        g.cluster = cluster;
        g.grid_tiles = ((rows + bm - 1) / bm + cluster - 1) / cluster * cluster * g.tiles_n;
        const std::int64_t pairs = g.grid_tiles / cluster;
        g.ctas = static_cast<unsigned>(std::min(pairs, std::max<std::int64_t>(sms / cluster, 1)) * cluster);
        return g;
    }
    auto cost = [&](int splits) {
        GemmSchedule t = g;
        t.splits = splits;
        return modelled_time(t, rows, bk, multiprocessors);
    };
    const int most = split_k ? static_cast<int>(std::clamp<std::int64_t>(g.k_tiles / kMinStepsPerSplit, 1, kMaxSplits)) : 1;
    double best = cost(1);
    for (int s = 2; s <= most && g.tiles < sms; ++s)
        if (double c = cost(s); c < best * kRequiredGain || (g.splits > 1 && c < best)) {
            best = c;
            g.splits = s;
        }
    // Validated like every kiln knob (a value out of range is an error naming it).
    static const std::optional<std::int64_t> forced = support::env_integer("KILN_GEMM_SPLITS", 1, kMaxSplits * 4);
    if (forced && split_k) g.splits = static_cast<int>(std::min(*forced, g.k_tiles));
    const std::int64_t units = g.tiles * g.splits;
    g.ctas = static_cast<unsigned>(std::min(units, sms));
    if (g.splits > 1) {
        g.counter_bytes = (static_cast<std::size_t>(g.tiles) * sizeof(unsigned) + 255) / 256 * 256;
        g.partial_bytes = static_cast<std::size_t>(units) * static_cast<std::size_t>(bm) * static_cast<std::size_t>(bn) * sizeof(float);
    }
    return g;
}

GemmTile launch_tile(std::int64_t rows, std::int64_t cols, std::int64_t depth, int bm, int bn, int bk, int multiprocessors, std::int64_t batches) {
    const GemmTile program{bm, bn};
    if (support::env_integer("KILN_GEMM_RETILE", 0, 1).value_or(1) == 0) return program;
    batches = std::max<std::int64_t>(batches, 1);
    // A batched launch's units are (batch, tile), never split (launch_args.cpp): the
    // device's waves are counted over all of them, not over one batch's tiles.
    auto schedule = [&](GemmTile t) {
        GemmSchedule g = schedule_gemm(rows, cols, depth, t.bm, t.bn, bk, multiprocessors, /*split_k=*/batches == 1);
        g.tiles *= batches;
        return g;
    };
    auto cost = [&](GemmTile t) { return modelled_time(schedule(t), rows, bk, multiprocessors) * step_cost(t.bm, t.bn); };
    auto usable = [](int width) { return width >= 64 && width % 64 == 0; };
    if (rows <= 64) {
        // 64-row tiles whatever the program's, at a width fitted to the autotuner's
        // times of 64x64, 64x128 and 64x256 on ten shapes of 1 to 64 rows
        // (bench/results/gpu-20261203-s11, gemm-tuned0.err): up to 32 rows a split k
        // range is cheap (the partial sums are small), and 128 columns were within 5%
        // of the best everywhere; above 32 rows the splits cost more than the wide
        // tiles gain, and the best was the widest tile whose unsplit tiles nearly fill
        // the device (64 x 28672 x 8192: 256; 48 x 14336 x 4096: 128; 64 x 8192 x 8192:
        // 64), else the narrowest (64 x 4096 x 4096: 64). A batched launch, never
        // split, takes that rule at every row count, its tiles counted over the batches.
        if (rows <= 32 && batches == 1) return {64, std::min(bn, 128)};
        int narrowest = bn;
        for (int width : {bn, bn / 2, bn / 4}) {
            if (!usable(width)) continue;
            narrowest = width;
            if ((cols + width - 1) / width * batches * 5 >= static_cast<std::int64_t>(multiprocessors) * 4) return {64, width};
        }
        return {64, narrowest};
    }
    // The widest tile the kernel takes, where it beats the program's by 10%: a
    // narrower tile reads more operand bytes from shared memory per product and
    // pays its fill and epilogue more often (the autotuner chose 128x256 for
    // 4096^3 written with 128x128 tiles, 1.10x as fast, bench/results/
    // gpu-20261203-s10). Only at 64-deep k steps: 128x256x128 stages leave room
    // for two in shared memory.
    GemmTile start = program;
    if (const GemmTile wide{128, 256}; bk == 64 && !(program == wide) && cost(wide) < cost(program) * kRequiredGain) start = wide;
    if (usable(start.bn / 2) && schedule(start).splits == 1 &&
        cost({start.bm, start.bn / 2}) < cost(start) * kRequiredGain)
        return {start.bm, start.bn / 2};
    return start;
}

int launch_cluster(std::int64_t rows, std::int64_t cols, std::int64_t depth, int bm, int bn, int bk, int multiprocessors, std::string* why) {
    auto single = [&](const std::string& w) {
        if (why) *why = w;
        return 1;
    };
    const std::int64_t tiles_m = (rows + bm - 1) / bm;
    const GemmSchedule one = schedule_gemm(rows, cols, depth, bm, bn, bk, multiprocessors);
    if (one.splits > 1) return single("k is split (a cluster kernel has no split-K code)");
    if (tiles_m < 2) return single("one m-tile: no pair shares B");
    const std::optional<std::int64_t> asked = support::env_integer("KILN_GEMM_CLUSTER", 1, 2);
    if (asked == 1) return single("KILN_GEMM_CLUSTER=1");
    if (!asked && !kClustersByDefault) return single("clusters are opt-in (KILN_GEMM_CLUSTER=2): no faster than lone CTAs on an H200");
    if (clusters_withdrawn())
        return single("clusters of 2 are withdrawn: a device test saw a cluster launch differ from lone CTAs (bench/results/gpu-20261203-s14); "
                      "KILN_GEMM_CLUSTER=2 is ignored");
    // Waves of the device: single tiles on every multiprocessor, pairs on every cluster.
    const GemmSchedule paired = schedule_gemm(rows, cols, depth, bm, bn, bk, multiprocessors, false, 2);
    const std::int64_t pairs = paired.grid_tiles / 2, clusters = paired.ctas / 2;
    const std::int64_t waves = (one.tiles + one.ctas - 1) / one.ctas, pair_waves = (pairs + clusters - 1) / clusters;
    if (pair_waves > waves)
        return single("pairs of m-tiles would take " + std::to_string(pair_waves) + " waves of the device, single tiles " + std::to_string(waves));
    return 2;
}

std::string GemmSchedule::describe() const {
    std::string s = std::to_string(tiles) + " tiles of " + std::to_string(bm) + "x" + std::to_string(bn) + " over " + std::to_string(k_tiles) +
                    " k steps";
    if (splits > 1)
        s += ", k split " + std::to_string(splits) + " ways (too few tiles for the multiprocessors; the shares' sums added in a fixed order)";
    if (cluster > 1) {
        const std::int64_t pairs = grid_tiles / cluster;
        return s + ": " + std::to_string(pairs) + " pairs of m-tiles on " + std::to_string(ctas) + " CTAs in clusters of " + std::to_string(cluster) +
               " (B loaded once a pair, by TMA multicast)";
    }
    return s + ": " + std::to_string(tiles * splits) + " units on " + std::to_string(ctas) + " CTAs";
}

}  // namespace kiln::cu
