// A launch that fails writes nothing: the contract applies writes when every
// instance has succeeded, so after an out-of-range error (bounds::check or
// bounds::assume) the caller's buffers are bit for bit what they were, on the
// interpreter and on the cpu target, however the instances were spread over
// threads and whatever else shares the buffer.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include <kiln/kiln.h>

using namespace kiln;

namespace {

// y = y + 1 in place over a grid one instance longer than the view: the last
// instance's access is out of range.
Kernel increment(bounds::Policy policy, const std::string& name) {
    return kernel(name, [policy](View<f32, 1> y, Scalar<i64> instances) {
        for (auto& nest : parallel(shape(axis("g", instances)))) {
            auto i = nest.index();
            y(coord(i), shape(1), policy).store(y[coord(i), shape(1), policy] + 1.0f);
        }
    });
}

std::vector<float> pattern(std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t k = 0; k < n; ++k) v[k] = static_cast<float>(k) * 0.25f - 7.0f;
    return v;
}

std::string launch_error(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

std::vector<Target> host_targets() {
    std::vector<Target> t = {interp()};
    if (cpu().available()) t.push_back(cpu());
    return t;
}

}  // namespace

TEST(FailedLaunch, InPlaceUpdateLeavesTheBufferAsItWas) {
    for (auto policy : {bounds::check, bounds::assume})
        for (const Target& t : host_targets()) {
            auto k = increment(policy, policy == bounds::check ? "increment_checked" : "increment_assumed");
            Tensor<f32> y({4099}, pattern(4099));
            const std::vector<float> before = y.values();
            std::string msg = launch_error([&] { k.launch(t, y.view(), std::int64_t{4100}); });
            EXPECT_NE(msg.find("load: index (4099) is out of range for argument 0 of extent 4099"), std::string::npos) << t.name() << ": " << msg;
            EXPECT_NE(msg.find("in instance 4099"), std::string::npos) << msg;
            EXPECT_EQ(std::memcmp(y.values().data(), before.data(), before.size() * sizeof(float)), 0)
                << t.name() << ": the failed launch changed the buffer (element 0 is now " << y[0] << ", was " << before[0] << ")";
            // The same kernel still works, and writes, when nothing fails.
            k.launch(t, y.view(), std::int64_t{4099});
            for (std::size_t e = 0; e < before.size(); ++e) ASSERT_EQ(y[static_cast<std::int64_t>(e)], before[e] + 1.0f) << t.name() << " " << e;
        }
}

// A strided view interleaved with elements the kernel never touches: the failed
// launch restores exactly its own elements (the others may be someone else's).
TEST(FailedLaunch, StridedViewRestoresItsElementsAndLeavesTheGapsAlone) {
    auto k = kernel("strided_checked", [](View<f32, 2> y) {
        auto c = axis("c", 3);
        for (auto& nest : parallel(shape(axis("g", y.extent(0) + 1)))) {
            auto r = nest.index();
            y(coord(r, 0), shape(1, c), bounds::check).store(y[coord(r, 0), shape(1, c), bounds::check] * 2.0f);
        }
    });
    for (const Target& t : host_targets()) {
        std::vector<float> memory = pattern(64 * 10);
        const std::vector<float> before = memory;
        std::string msg = launch_error([&] { k.launch(t, view(memory.data(), {64, 3}, {10, 2})); });
        EXPECT_NE(msg.find("load: index (64, 0) is out of range for argument 0 of extent 64x3 in instance 64"), std::string::npos)
            << t.name() << ": " << msg;
        EXPECT_EQ(memory, before) << t.name();
    }
}

// A kernel that cannot fail keeps writing in place (no copies): its results are
// the interpreter's.
TEST(FailedLaunch, KernelsThatCannotFailStillWriteTheirResults) {
    auto k = increment(bounds::zero, "increment_zero");
    for (const Target& t : host_targets()) {
        Tensor<f32> y({4099}, pattern(4099));
        k.launch(t, y.view(), std::int64_t{4100});  // the extra instance's access is dropped
        for (std::int64_t e = 0; e < 4099; ++e) ASSERT_EQ(y[e], pattern(4099)[static_cast<std::size_t>(e)] + 1.0f) << t.name();
    }
}
