// kiln's numeric environment knobs: a value that is not a whole number in range
// is an error naming the variable and the range, never a silent default or a wrap.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include <kiln/kiln.h>

#include "support/environment.h"
#include "targets/cuda/emit.h"
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
    auto k = copy_kernel();
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    for (const char* bad : {"abc", "0", "-4", "4097"}) {
        ScopedEnv e("KILN_CUDA_ELEMENTS_PER_THREAD", bad);
        EXPECT_EQ(error_of([&] { cu::emit_kernel(*program, cu::EmitOptions{}); }),
                  std::string("KILN_CUDA_ELEMENTS_PER_THREAD='") + bad + "' is not a whole number from 1 to 4096");
    }
    ScopedEnv e("KILN_CUDA_ELEMENTS_PER_THREAD", "8");
    EXPECT_NO_THROW(cu::emit_kernel(*program, cu::EmitOptions{}));
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
