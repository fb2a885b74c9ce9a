// Timing a compiled kernel the way Triton's do_bench does: warm-up launches, then
// each timed launch on its own, the median reported. On a cuda target the time is
// the device's, measured with events on the target's stream; on the host targets
// it is the launch's wall time (a launch returns when its grid is done). With
// flush_l2 the cache is evicted before each timed launch (outside its time), so
// inputs come from memory as in a real pipeline rather than from a warm cache.
//
//     auto exe = k.compile(cuda(stream));
//     BenchResult r = bench(exe, {.reps = 200, .flush_l2 = true}, xd.view(), yd.view());
//     std::printf("%.2f us\n", r.median * 1e6);
#pragma once

#include <functional>
#include <vector>

#include <kiln/executable.h>

namespace kiln {

struct BenchOptions {
    int warmup = 10;        // launches before timing (the first compiles)
    int reps = 100;         // timed launches
    bool flush_l2 = false;  // evict the cache before each timed launch
};

struct BenchResult {
    double median = 0, min = 0, mean = 0;  // seconds per launch
    std::vector<double> samples;           // each timed launch, in order
};

namespace detail {
BenchResult bench(const Executable& exe, const BenchOptions& o, const std::function<void()>& launch, Loc loc);
}

template <class... Args> BenchResult bench(const Executable& exe, const BenchOptions& o, Args&&... args) {
    return detail::bench(exe, o, [&] { exe.launch(args...); }, Loc{});
}
template <class First, class... Args> requires(!std::is_same_v<std::remove_cvref_t<First>, BenchOptions>)
BenchResult bench(const Executable& exe, First&& first, Args&&... args) {
    return bench(exe, BenchOptions{}, std::forward<First>(first), std::forward<Args>(args)...);
}

}  // namespace kiln
