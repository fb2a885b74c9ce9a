// Launch-time errors name the line of the launch (k.launch records its caller's
// source location, whether a target or an argument comes first).
#include <gtest/gtest.h>

#include <kiln/kiln.h>

using namespace kiln;

namespace {
// The message of the kiln::Error f raises ("" when none).
template <class F> std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}
std::string here(int line) { return "launch_site_test.cpp:" + std::to_string(line) + ": "; }
}  // namespace

TEST(LaunchSite, ArgumentErrorNamesTheLaunchLine) {
    auto k = kernel("two", [](View<const f32, 1>, View<f32, 1>) {});
    Tensor<f32> y({2});
    int line = 0;
    std::string e = error_of([&] { line = __LINE__; k.launch(interp(), y.view()); });
    EXPECT_EQ(e.rfind(here(line) + "launch: kernel 'two' takes 2 arguments, got 1", 0), 0u) << e;
}

TEST(LaunchSite, WithoutATargetTheFirstArgumentRecordsIt) {
    auto k = kernel("k", [](View<const f32, 1>) {});
    Tensor<f64> y({2});
    int line = 0;
    std::string e = error_of([&] { line = __LINE__; k.launch(y.view()); });
    EXPECT_EQ(e.rfind(here(line) + "launch: kernel 'k' argument 0 expects View<const f32, 1>, got a view of f64 with rank 1", 0), 0u) << e;
}

TEST(LaunchSite, HandlersSeeTheLaunchLine) {
    auto k = kernel("k", [](View<f32, 1>) {});
    Tensor<f32> y({2});
    Loc seen;
    auto scope = handle_launch([&](LaunchRequest& r, const Next&) { seen = r.loc; });
    int line = __LINE__ + 1;
    k.launch(interp(), y.view());
    EXPECT_EQ(seen.str(), "launch_site_test.cpp:" + std::to_string(line));
}
