// A warm launch through a compiled handle allocates nothing on the way to its
// target (the request and its argument vectors are reused), which an
// asynchronous launch needs to cost no more than a bare cuLaunchKernel and a CUDA
// graph capture needs to be legal. The cuda target's own part (packed parameters
// on the stack, no message built unless a call fails) is measured on the GPU by
// bench/launch_overhead.cpp. Counted with a replaced global operator new.
#include <gtest/gtest.h>

#include "counting_new.h"
#include "interop_util.h"
#include "targets/common/target_impl.h"


using namespace kiln;
using namespace kiln::interop_test;

namespace {
// A target that runs nothing: what is counted is kiln's path up to a target.
class NullTarget final : public detail::TargetImpl {
public:
    const std::string& name() const override { return name_; }
    void run(const ir::Program&, const std::vector<detail::Arg>& args, const CompileOptions&, Loc) override {
        ++runs;
        last_rows = args.at(0).extents.at(0);
    }
    int runs = 0;
    std::int64_t last_rows = 0;

private:
    std::string name_ = "null";
};

using counting_new::allocations_in;
}  // namespace

TEST(LaunchAllocations, AWarmExecutableLaunchAllocatesNothing) {
    auto impl = std::make_shared<NullTarget>();
    Target t(impl);
    Kernel k = softmax_kernel();
    Executable exe = k.compile(t);
    Tensor<f32> x({4, 8}), y({4, 8}), z({6, 8});
    HostView<const f32> xv = std::as_const(x).view();
    HostView<f32> yv = y.view();
    exe.launch(xv, yv);  // traces; the request's vectors get their storage
    EXPECT_EQ(allocations_in([&] {
                  for (int i = 0; i < 100; ++i) exe.launch(xv, yv);
              }),
              0);
    EXPECT_EQ(impl->runs, 101);
    // Another row count is the same program (a launch value): still nothing allocated.
    HostView<f32> zv = z.view();
    exe.launch(std::as_const(z).view(), zv);
    EXPECT_EQ(allocations_in([&] { exe.launch(xv, yv); }), 0);
    EXPECT_EQ(impl->last_rows, 4);
}

TEST(LaunchAllocations, ValidatingLargeViewsAllocatesNothing) {
    // Each launch validates its views (detail::view_problem): with extents whose
    // text is longer than a short string, no message may be built unless it fails.
    auto impl = std::make_shared<NullTarget>();
    Target t(impl);
    Kernel k = softmax_kernel();
    Executable exe = k.compile(t);
    static f32 in[1], out[1];  // the null target reads no element
    HostView<const f32> xv = view(static_cast<const f32*>(in), {12345678901234, 8});
    HostView<f32> yv = view(out, {12345678901234, 8});
    exe.launch(xv, yv);
    EXPECT_EQ(allocations_in([&] { exe.launch(xv, yv); }), 0);
    EXPECT_EQ(impl->last_rows, 12345678901234);
}

TEST(LaunchAllocations, TheCountingIsReal) {
    // The control: a launch that builds its request afresh does allocate.
    auto impl = std::make_shared<NullTarget>();
    Target t(impl);
    Kernel k = softmax_kernel();
    Tensor<f32> x({4, 8}), y({4, 8});
    HostView<const f32> xv = std::as_const(x).view();
    HostView<f32> yv = y.view();
    k.launch(t, xv, yv);
    EXPECT_GT(allocations_in([&] { k.launch(t, xv, yv); }), 0);
}
