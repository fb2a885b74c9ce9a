// One kernel launched from 16 host threads at once, each with its own buffers
// and its own extent (so several threads trace, compile and look up programs at
// the same moment): every result is checked against an f64 formula, on the
// interpreter and on the cpu target, directly and through one compiled handle
// shared by the threads (its remembered program and prepared launch change under
// them). The tsan preset runs these under ThreadSanitizer.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <functional>
#include <thread>

#include <kiln/kiln.h>

#include "targets/common/target_impl.h"

using namespace kiln;

namespace {

// y = x * s + 1, in tiles of 8; s is the scalar argument.
Kernel axpy_tiles() {
    return kernel("axpy_tiles", [](View<const f32, 1> x, View<f32, 1> y, Scalar<f32> s) {
        auto n = axis("n", 8);
        for (auto& nest : parallel(shape(axis("g", ceil_div(x.extent(0), 8))))) {
            auto o = coord(nest.index() * 8);
            y(o, shape(n)).store(x[o, shape(n)] * s + 1.0f);
        }
    });
}

using Launch = std::function<void(HostView<const f32>, HostView<f32>, float)>;

void launch_from_16_threads(const std::string& what, const Launch& launch) {
    constexpr int kThreads = 16;
    std::atomic<int> ready{0}, failures{0};
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int id = 0; id < kThreads; ++id)
        threads.emplace_back([&, id] {
            const std::int64_t count = 100 + 37 * id;  // ragged: the last tile is partial
            const float s = 0.5f + static_cast<float>(id);
            Tensor<f32> x({count}), y({count});
            for (std::int64_t e = 0; e < count; ++e) x[e] = static_cast<float>(e) * 0.25f - static_cast<float>(id);
            ready.fetch_add(1);
            while (ready.load() < kThreads) std::this_thread::yield();  // start together
            try {
                for (int rep = 0; rep < 3; ++rep) {
                    launch(std::as_const(x).view(), y.view(), s);
                    for (std::int64_t e = 0; e < count; ++e) {
                        // Two roundings to f32, as kiln's f32 mul and add.
                        const float want = static_cast<float>(static_cast<double>(static_cast<float>(static_cast<double>(x[e]) * s)) + 1.0);
                        if (y[e] != want) throw std::runtime_error("element " + std::to_string(e) + ": " + std::to_string(y[e]) + " != " + std::to_string(want));
                    }
                }
            } catch (const std::exception& e) {
                errors[static_cast<std::size_t>(id)] = e.what();
                failures.fetch_add(1);
            }
        });
    for (auto& th : threads) th.join();
    for (int id = 0; id < kThreads; ++id) EXPECT_EQ(errors[static_cast<std::size_t>(id)], "") << what << " thread " << id;
    EXPECT_EQ(failures.load(), 0);
}

void launch_from_16_threads(const Target& t) {
    auto k = axpy_tiles();
    launch_from_16_threads(t.name(), [&](HostView<const f32> x, HostView<f32> y, float s) { k.launch(t, x, y, s); });
}

void launch_one_handle_from_16_threads(const Target& t) {
    Executable exe = axpy_tiles().compile(t);
    launch_from_16_threads(t.name() + " handle", [&](HostView<const f32> x, HostView<f32> y, float s) { exe.launch(x, y, s); });
}

}  // namespace

TEST(ConcurrentLaunch, SixteenThreadsOnTheInterpreter) { launch_from_16_threads(interp()); }

TEST(ConcurrentLaunch, SixteenThreadsOnTheCpuTarget) {
    if (!cpu().impl().compiles_here()) GTEST_SKIP() << "no host compiler";
    launch_from_16_threads(cpu());
}

TEST(ConcurrentLaunch, SixteenThreadsThroughOneHandle) {
    launch_one_handle_from_16_threads(interp());
    if (cpu().impl().compiles_here()) launch_one_handle_from_16_threads(cpu());
}
