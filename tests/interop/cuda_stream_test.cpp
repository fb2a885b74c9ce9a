// CUDA streams and devices. Without a device (this CI) the errors are checked;
// on a GPU machine (scripts/gpu-interop-check.sh) launches on a stream are
// asynchronous and stream-ordered, copies too, and a kernel that faults is
// reported at the next synchronisation naming it and its launch line.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>

#include "interop_util.h"
#include "targets/cuda/driver.h"

using namespace kiln;
using namespace kiln::interop_test;

namespace {
std::string here(int line) { return "cuda_stream_test.cpp:" + std::to_string(line) + ": "; }
bool have_device() { return cu::device() != nullptr; }
#define REQUIRE_DEVICE() \
    if (!have_device()) GTEST_SKIP() << "no CUDA device: " << [] { std::string w; cu::device(&w); return w; }()
}  // namespace

TEST(CudaStreamNoDevice, CreatingAStreamSaysWhyNot) {
    if (have_device()) GTEST_SKIP() << "a device is present";
    std::string why;
    cu::device(&why);
    int line = 0;
    std::string e = error_of([&] { line = __LINE__; (void)Stream::create(); });
    EXPECT_EQ(e, here(line) + "stream: cannot create a CUDA stream: " + why);
}

TEST(CudaStreamNoDevice, ADeviceThatIsNotThere) {
    Target t = cuda(7);
    if (cu::device_at(7)) GTEST_SKIP() << "this machine has 8 devices";
    EXPECT_FALSE(t.available());
    std::string why = t.unavailable_reason();
    EXPECT_TRUE(contains(why, "no CUDA device 7") || contains(why, "no CUDA driver") || contains(why, "no CUDA device")) << why;
    // Views that claim to be on device 7 (never dereferenced): host memory would be
    // refused first, on any machine, before the target's availability is asked.
    f32* nowhere = reinterpret_cast<f32*>(std::uintptr_t{1} << 40);
    HostView<const f32> x{nowhere, {2, 3}, {3, 1}, Device::cuda, 7};
    HostView<f32> y{nowhere, {2, 3}, {3, 1}, Device::cuda, 7};
    int line = 0;
    std::string e = error_of([&] { line = __LINE__; softmax_kernel().launch(t, x, y); });
    EXPECT_EQ(e.rfind(here(line) + "launch: target 'cuda' is not available: ", 0), 0u) << e;
}

TEST(CudaStream, AsynchronousLaunchesAreStreamOrdered) {
    REQUIRE_DEVICE();
    Stream s = Stream::create();
    Kernel k = softmax_kernel();
    Tensor<f32> x = inputs(64, 300), want({64, 300});
    k.launch(interp(), std::as_const(x).view(), want.view());
    auto xd = x.to(cuda(s));
    Tensor<f32> y({64, 300}), z({64, 300});
    auto yd = y.to(cuda(s)), zd = z.to(cuda(s));
    Target t = cuda(s);
    // y = softmax(x), then z = softmax(y) reads what the first launch wrote: stream order.
    k.launch(t, Precision::exact, std::as_const(xd).view(), yd.view());
    k.launch(t, Precision::exact, std::as_const(yd).view(), zd.view());
    Tensor<f32> back = yd.to(host());  // waits for the stream
    EXPECT_EQ(back.values(), want.values()) << "exact precision on the GPU is the interpreter's result";
    Tensor<f32> want2({64, 300});
    k.launch(interp(), std::as_const(want).view(), want2.view());
    EXPECT_EQ(zd.to(host()).values(), want2.values());
}

TEST(CudaStream, BorrowedStreamsShareTheirRecord) {
    REQUIRE_DEVICE();
    Stream s = Stream::create();
    Stream a = Stream::wrap(s.handle()), b = Stream::wrap(s.handle());
    EXPECT_EQ(a.state(), b.state());
    EXPECT_EQ(a.handle(), s.handle());
    a.synchronize();
}

TEST(CudaStream, AFaultIsReportedAtTheNextSynchronisationNamingTheLaunch) {
    REQUIRE_DEVICE();
    // A fault ruins the context, so it happens in a fresh child process.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    auto child = [] {
            Stream s = Stream::create();
            auto k = kernel("faulty", [](View<f32, 1> y) {
                for (auto& nest : parallel(shape(axis("blocks", 64))))
                    y(coord(nest.index() * 256), shape(axis("b", 256))).store(zeros<f32>(shape(axis("b", 256))));
            });
            // A device view over memory that is not there.
            HostView<f32> bogus{reinterpret_cast<f32*>(std::uintptr_t{1} << 40), {64 * 256}, {1}, Device::cuda, 0};
            int line = __LINE__ + 1;
            k.launch(cuda(s), bogus);  // enqueued: no error yet
            std::string e = error_of([&] { s.synchronize(); });
            bool ok = contains(e, "cuda: a kernel failed: ") && contains(e, "'faulty' (cuda_stream_test.cpp:" + std::to_string(line) + ")") &&
                      e.rfind(here(line), 0) == 0;
            std::fprintf(stderr, "%s\n", e.c_str());
            std::exit(ok ? 0 : 1);
    };
    EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "");
}

TEST(CudaStream, TensorsOnAnotherDevice) {
    REQUIRE_DEVICE();
    if (!cu::device_at(1)) GTEST_SKIP() << "one device";
    Stream s1 = Stream::create(1);
    Kernel k = softmax_kernel();
    Tensor<f32> x = inputs(8, 40), want({8, 40});
    k.launch(interp(), std::as_const(x).view(), want.view());
    auto xd = x.to(cuda(s1));
    Tensor<f32> y({8, 40});
    auto yd = y.to(cuda(s1));
    EXPECT_EQ(xd.ordinal(), 1);
    k.launch(cuda(s1), Precision::exact, std::as_const(xd).view(), yd.view());
    EXPECT_EQ(yd.to(host()).values(), want.values());
    auto y0 = y.to(cuda());  // device 0
    std::string e = error_of([&] { k.launch(cuda(s1), std::as_const(xd).view(), y0.view()); });
    EXPECT_TRUE(contains(e, "argument 1 is on CUDA device 0, the target on device 1")) << e;
}
