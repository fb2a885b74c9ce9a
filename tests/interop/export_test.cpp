// KILN_EXPORT_KERNEL (kiln/export.h): what a library's table holds, and the export
// mistakes refused at the line that makes them.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <kiln/export.h>

using namespace kiln;

namespace {

template <Element T> Kernel scale() {
    return kernel("scale", [](View<const T, 1> x, View<T, 1> y) {
        auto i = axis("i", x.extent(0));
        y(coord(0), shape(i)).store(x[coord(0), shape(i)] * 2);
    });
}

Kernel scale_f32 = scale<f32>();
Kernel add_one = kernel("add_one", [](View<const f32, 1> x, View<f32, 1> y) {
    auto i = axis("i", x.extent(0));
    y(coord(0), shape(i)).store(x[coord(0), shape(i)] + 1);
});
Kernel twice = kernel("twice", [](View<const f32, 1> x, View<f32, 1> y) {
    auto i = axis("i", x.extent(0));
    y(coord(0), shape(i)).store(x[coord(0), shape(i)] * 2);
});

}  // namespace

// Two exports on one line: each declares a flag of its own (the macro numbers them
// by __COUNTER__; by __LINE__ the second redefined the first's).
KILN_EXPORT_KERNEL(scale_f32, "x", "y"); KILN_EXPORT_KERNEL(add_one);
KILN_EXPORT_KERNEL(twice);

TEST(Export, TheTableHoldsEveryExportedKernelWithItsParameterNames) {
    const kiln_abi_library* lib = kiln_library_v1();
    ASSERT_EQ(lib->kernel_count, 3);
    EXPECT_STREQ(lib->kernels[0].name, "scale");
    EXPECT_STREQ(lib->kernels[1].name, "add_one");
    EXPECT_STREQ(lib->kernels[2].name, "twice");
    ASSERT_EQ(lib->kernels[0].param_count, 2);
    EXPECT_STREQ(lib->kernels[0].params[0].name, "x");
    EXPECT_STREQ(lib->kernels[1].params[1].name, "arg1");
}

// A second kernel of an exported name could never be found by name: refused where
// it is exported, naming where the first was (a template's instantiations share the
// name given to kernel()).
TEST(Export, ASecondKernelOfTheSameNameIsRefusedAtItsLine) {
    const unsigned line = __LINE__ + 2;
    try {
        exports::add(scale<bf16>(), {"x", "y"}, "my_kernels.cpp", line);
        FAIL() << "a second kernel named 'scale' was exported";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("my_kernels.cpp:" + std::to_string(line) + ": KILN_EXPORT_KERNEL: a kernel named 'scale' is already exported, at export_test.cpp:"),
                  std::string::npos)
            << what;
        EXPECT_NE(what.find("each kernel of a library needs a name of its own"), std::string::npos) << what;
    }
    EXPECT_EQ(exports::entries().size(), 3u) << "nothing was added";
}
