// The cuda target's kernel cache compiles outside its lock (kernel_cache.cpp:
// find_or_compile): threads compiling different kernels run NVRTC at once, and
// threads asking for the same kernel at once all get one that works. Offline
// (NVRTC only); the tsan preset runs these under ThreadSanitizer.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cuda_test_util.h"

using namespace kiln;
using namespace kiln::cuda_test;

namespace {

// y = x * c + 1 in tiles of `tile`: a different source for each (tile, c).
Kernel scaled(std::int64_t tile, float c) {
    return kernel("scaled_" + std::to_string(tile), [tile, c](View<const f32, 1> x, View<f32, 1> y) {
        auto n = axis("n", tile);
        for (auto& nest : parallel(shape(axis("g", ceil_div(x.extent(0), tile))))) {
            auto o = coord(nest.index() * tile);
            y(o, shape(n)).store(x[o, shape(n)] * c + 1.0f);
        }
    });
}

// A constant no earlier run used, so that the kernels are compiled here, not found
// in the disk cache.
float fresh_constant() {
    const auto t = std::chrono::steady_clock::now().time_since_epoch().count();
    return 1.0f + static_cast<float>(t % 1000003) / 65536.0f;
}

std::string ptx_of(const Kernel& k) {
    Tensor<f32> x({1000}), y({1000});
    return generic_ptx(k, args_of(std::as_const(x).view(), y.view()), Precision::exact);
}

}  // namespace

TEST(CudaConcurrentCompile, ThreadsCompilingDifferentKernelsEachGetTheirOwn) {
    REQUIRE_NVRTC();
    const float c = fresh_constant();
    const std::vector<std::int64_t> tiles = {8, 16, 32, 64, 128, 256};
    std::vector<std::string> ptx(tiles.size());
    const std::size_t compiles_before = cu::nvrtc_compiles();
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < tiles.size(); ++i) threads.emplace_back([&, i] { ptx[i] = ptx_of(scaled(tiles[i], c)); });
    for (auto& t : threads) t.join();
    EXPECT_GE(cu::nvrtc_compiles() - compiles_before, tiles.size()) << "each kernel compiled (none was cached)";
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        EXPECT_TRUE(contains(ptx[i], ".entry kiln_scaled_" + std::to_string(tiles[i]))) << "tile " << tiles[i];
        // The same kernel traced again, alone: the PTX the threads got.
        EXPECT_EQ(ptx[i], ptx_of(scaled(tiles[i], c))) << "tile " << tiles[i];
    }
}

TEST(CudaConcurrentCompile, ThreadsAskingForOneKernelAtOnceAllGetIt) {
    REQUIRE_NVRTC();
    const float c = fresh_constant();
    std::vector<std::string> ptx(4);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < ptx.size(); ++i) threads.emplace_back([&, i] { ptx[i] = ptx_of(scaled(48, c)); });
    for (auto& t : threads) t.join();
    for (std::size_t i = 0; i < ptx.size(); ++i) {
        EXPECT_TRUE(contains(ptx[i], ".entry kiln_scaled_48")) << "thread " << i;
        EXPECT_EQ(ptx[i], ptx[0]) << "thread " << i;
    }
}
