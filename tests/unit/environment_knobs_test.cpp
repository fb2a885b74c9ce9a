// kiln's numeric environment knobs: a value that is not a whole number in range
// is an error naming the variable and the range, never a silent default or a wrap.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include <kiln/kiln.h>

#include "support/environment.h"
#include "targets/cuda/emit.h"
#include "targets/cuda/launch_args.h"
#include "targets/cuda/program_index.h"
#include "trace/kernel_trace.h"

using namespace kiln;

namespace {

struct ScopedEnv {
    std::string name;
    std::optional<std::string> old;
    ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
        if (const char* v = std::getenv(name.c_str())) old = v;
        setenv(name.c_str(), value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (old) setenv(name.c_str(), old->c_str(), 1);
        else unsetenv(name.c_str());
    }
};

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

Kernel copy_kernel() {
    return kernel("copy_knob", [](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("g", x.extent(0))))) y(coord(nest.index()), shape(1)).store(x[coord(nest.index()), shape(1)]);
    });
}

}  // namespace

TEST(EnvironmentKnobs, IntegerIsReadWholeAndInRange) {
    unsetenv("KILN_TEST_KNOB");
    EXPECT_EQ(support::env_integer("KILN_TEST_KNOB", 1, 10), std::nullopt);
    {
        ScopedEnv e("KILN_TEST_KNOB", "");
        EXPECT_EQ(support::env_integer("KILN_TEST_KNOB", 1, 10), std::nullopt);
    }
    {
        ScopedEnv e("KILN_TEST_KNOB", "7");
        EXPECT_EQ(support::env_integer("KILN_TEST_KNOB", 1, 10), 7);
    }
    for (const char* bad : {"0", "11", "-1", "7x", "x7", " 7", "1e1", "99999999999999999999999"}) {
        ScopedEnv e("KILN_TEST_KNOB", bad);
        EXPECT_EQ(error_of([] { support::env_integer("KILN_TEST_KNOB", 1, 10); }),
                  std::string("KILN_TEST_KNOB='") + bad + "' is not a whole number from 1 to 10");
    }
}

TEST(EnvironmentKnobs, CudaElementsPerThreadIsChecked) {
    Tensor<f32> x({8}), y({8});
    std::vector<detail::Arg> args = {detail::to_arg(std::as_const(x)), detail::to_arg(y)};
    for (const char* bad : {"abc", "0", "-4", "4097"}) {
        ScopedEnv e("KILN_CUDA_ELEMENTS_PER_THREAD", bad);
        EXPECT_EQ(error_of([&] { cu::emit_options(args, CompileOptions{}); }),
                  std::string("KILN_CUDA_ELEMENTS_PER_THREAD='") + bad + "' is not a whole number from 1 to 4096");
    }
    {
        ScopedEnv e("KILN_CUDA_ELEMENTS_PER_THREAD", "8");
        EXPECT_EQ(cu::emit_options(args, CompileOptions{}).elements_per_thread, 8);
    }
    unsetenv("KILN_CUDA_ELEMENTS_PER_THREAD");
    EXPECT_EQ(cu::emit_options(args, CompileOptions{}).elements_per_thread, 32);
}

// The knob reaches the layout as an emit option, and the program index's key holds
// it: a process asking for another value never finds the kernel laid out under the
// first (session 44's A/B of 32, 16 and 8 elements a thread, in one cache, timed one
// kernel three times).
TEST(EnvironmentKnobs, CudaElementsPerThreadIsPartOfTheProgramIndexKey) {
    auto row = kernel("row_knob", [](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("g", 1)))) {
            (void)nest;
            y(coord(0), shape(8192)).store(x[coord(0), shape(8192)] * 2.0f);
        }
    });
    Tensor<f32> x({8192}), y({8192});
    std::vector<detail::Arg> args = {detail::to_arg(std::as_const(x)), detail::to_arg(y)};
    auto program = detail::specialize(*row.shared_impl(), args, Loc::here());
    cu::EmitOptions wide, narrow;
    narrow.elements_per_thread = 8;
    EXPECT_EQ(cu::emit_kernel(*program, wide).threads, 256) << "8192 elements at 32 a thread";
    EXPECT_EQ(cu::emit_kernel(*program, narrow).threads, 1024) << "8192 elements at 8 a thread";
    EXPECT_NE(cu::index_key(*program, wide, "sm_90a", 232448, "nvrtc"), cu::index_key(*program, narrow, "sm_90a", 232448, "nvrtc"));
    EXPECT_EQ(cu::index_key(*program, wide, "sm_90a", 232448, "nvrtc"), cu::index_key(*program, cu::EmitOptions{}, "sm_90a", 232448, "nvrtc"));
}

TEST(EnvironmentKnobs, NumThreadsIsChecked) {
    if (!cpu().available()) GTEST_SKIP() << cpu().unavailable_reason();
    auto k = copy_kernel();
    Tensor<f32> x({8}), y({8});
    for (const char* bad : {"0", "many", "5000"}) {
        ScopedEnv e("KILN_NUM_THREADS", bad);
        EXPECT_NE(error_of([&] { k.launch(cpu(), std::as_const(x).view(), y.view()); })
                      .find(std::string("KILN_NUM_THREADS='") + bad + "' is not a whole number from 1 to 4096"),
                  std::string::npos);
    }
}
