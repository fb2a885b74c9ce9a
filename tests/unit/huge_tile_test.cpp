// A tile too large to hold is the user's error, named at the line that makes it
// and with its size: never std::bad_alloc, never a loop over 2^40 elements, never
// a worker thread that cannot get a stack of terabytes.
#include <gtest/gtest.h>

#include <kiln/kiln.h>

using namespace kiln;

namespace {

// The largest tile kiln's shape rules admit: 8 TiB as the interpreter's doubles.
constexpr std::int64_t kHuge = std::int64_t{1} << 40;
int g_zeros_line = 0;

Kernel huge_sum() {
    return kernel("huge_sum", [](View<f32, 1> y) {
        auto big = axis("big", kHuge);
        for (auto& nest : parallel(shape(axis("g", 1)))) {
            g_zeros_line = __LINE__ + 1;
            auto t = zeros<f32>(shape(big));
            y(coord(nest.index()), shape(axis("one", 1))).store(reduce(t, big, add));
        }
    });
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

// AddressSanitizer's operator new (GCC 12) reports a failed allocation and aborts,
// even with allocator_may_return_null=1, where a plain one throws the bad_alloc kiln
// turns into its error: the two tests that allocate the tile cannot run under it.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kNewCannotThrow = true;
#else
constexpr bool kNewCannotThrow = false;
#endif

}  // namespace

TEST(HugeTiles, TheInterpreterNamesTheTileItCannotAllocate) {
    if (kNewCannotThrow) GTEST_SKIP() << "AddressSanitizer's operator new aborts instead of throwing bad_alloc";
    Tensor<f32> y({1});
    std::string msg = error_of([&] { huge_sum().launch(interp(), y.view()); });
    EXPECT_NE(msg.find("huge_tile_test.cpp:" + std::to_string(g_zeros_line) +
                       ": full: a tile of 1099511627776 elements (8.0 TiB as the interpreter holds it) cannot be allocated"),
              std::string::npos)
        << msg;
}

TEST(HugeTiles, AnEagerTileTooLargeIsAnError) {
    if (kNewCannotThrow) GTEST_SKIP() << "AddressSanitizer's operator new aborts instead of throwing bad_alloc";
    const int line = __LINE__ + 1;
    std::string msg = error_of([] { (void)zeros<f64>(shape(axis("big", kHuge))); });
    EXPECT_NE(msg.find("huge_tile_test.cpp:" + std::to_string(line) + ": full: a tile of 1099511627776 elements (8.0 TiB as the interpreter holds it) cannot be allocated"), std::string::npos) << msg;
}

TEST(HugeTiles, TheCpuTargetRefusesTilesOverItsLimitEvenWhenFused) {
    if (!cpu().available()) GTEST_SKIP() << cpu().unavailable_reason();
    Tensor<f32> y({1});
    std::string msg = error_of([&] { huge_sum().launch(cpu(), y.view()); });
    EXPECT_NE(msg.find("huge_tile_test.cpp:" + std::to_string(g_zeros_line) +
                       ": full: a tile of 1099511627776 elements (4.0 TiB) is too large for the cpu target (at most 2^28 elements)"),
              std::string::npos)
        << msg;
}

// Each tile within the per-tile limit, together past what a thread's stack can
// hold: the largest is named, with the instance's total.
TEST(HugeTiles, TheCpuTargetRefusesAnInstanceWhoseTilesCannotFitAStack) {
    if (!cpu().available()) GTEST_SKIP() << cpu().unavailable_reason();
    int line = 0;
    auto k = kernel("huge_frame", [&line](View<const f16, 1> a, View<const f16, 1> b, View<f16, 1> y) {
        auto big = axis("big", std::int64_t{1} << 28);
        for (auto& nest : parallel(shape(axis("g", 1)))) {
            line = __LINE__ + 1;
            auto u = a[coord(nest.index()), shape(big)];
            auto v = b[coord(nest.index()), shape(big)];
            y(coord(nest.index()), shape(big)).store(u + v);
        }
    });
    Tensor<f16> a({4}), b({4}), y({4});
    std::string msg = error_of([&] { k.launch(cpu(), std::as_const(a).view(), std::as_const(b).view(), y.view()); });
    EXPECT_NE(msg.find("huge_tile_test.cpp:" + std::to_string(line) + ": load: a tile of 268435456 elements (2.0 GiB): an instance's tiles need "),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("on the cpu target, more than its limit of 2.0 GiB; use smaller tiles"), std::string::npos) << msg;
}

// A load's shape whose element count would overflow 64 bits (2^64 here) is
// refused where the shape is made into a tile, before the count is computed.
TEST(HugeTiles, AShapeBeyond2To40ElementsIsRefusedBeforeItsCountOverflows) {
    int line = 0;
    auto k = kernel("overflowing_load", [&line](View<const f32, 2> x, View<f32, 2> y) {
        for (auto& nest : parallel(shape(axis("g", 1)))) {
            line = __LINE__ + 1;
            auto big = axis("rows", std::int64_t{1} << 32), wide = axis("cols", std::int64_t{1} << 32);
            y(coord(nest.index(), 0), shape(1, 1)).store(reduce(x[coord(0, 0), shape(big, wide)], big, add));
        }
    });
    Tensor<f32> x({2, 2}), y({1, 1});
    std::string msg = error_of([&] { k.launch(interp(), std::as_const(x).view(), y.view()); });
    EXPECT_NE(msg.find("huge_tile_test.cpp:" + std::to_string(line) + ": shape: tile too large: more than 2^40 elements (2 dimensions, one of extent 4294967296)"),
              std::string::npos)
        << msg;
}
