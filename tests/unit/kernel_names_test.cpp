// Names users give (kernels, stages, axes) never become code: an unprintable name
// is refused where it is given, naming the user's line; and a name that reached a
// program anyway (defence in depth) is escaped in the cpu and cuda sources, so a
// name holding a newline and a C++ statement runs nothing when the kernel loads.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "cpu_diff.h"
#include "support/names.h"
#include "targets/cpu/emit_cpp.h"
#include "targets/cuda/emit.h"
#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"

using namespace kiln;

namespace {

// A name that, pasted raw into a `//` comment, ends the comment and defines a
// namespace-scope variable whose initialiser runs at dlopen.
const std::string kInjection = "evil\nstatic int kiln_injected = (setenv(\"KILN_NAME_INJECTED\", \"1\", 1), 0);\n//";

Kernel scale_kernel(const std::string& name) {
    return kernel(name, [](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("g", x.extent(0))))) y(coord(nest.index()), shape(1)).store(x[coord(nest.index()), shape(1)] * 3.0f);
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

// Every line of generated source that does not start a comment or a preprocessor
// directive, after the first: where an injected statement would show up.
bool has_line_starting_with(const std::string& source, const std::string& prefix) {
    std::istringstream in(source);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0) return true;
    return false;
}

}  // namespace

TEST(KernelNames, NewlineInAKernelNameIsRefusedAtTheKernelsLine) {
    std::string msg = error_of([] { (void)scale_kernel("a\nb"); });
    EXPECT_NE(msg.find("kernel: invalid kernel name 'a\\nb': character 1 is a newline (0x0a); names are printable ASCII"), std::string::npos) << msg;
    // The kernel(...) call is in scale_kernel, whose line the message names.
    EXPECT_NE(msg.find("kernel_names_test.cpp:"), std::string::npos) << msg;
}

TEST(KernelNames, InjectionThroughAKernelNameIsRefused) {
    const int line = __LINE__ + 2;
    std::string msg = error_of([] {
        (void)kernel(kInjection, [](View<f32, 1> y) { (void)y; });
    });
    EXPECT_NE(msg.find("kernel_names_test.cpp:" + std::to_string(line) + ": kernel: invalid kernel name 'evil\\nstatic int"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("character 4 is a newline"), std::string::npos) << msg;
}

TEST(KernelNames, OtherUnprintableCharactersAndLengthAreRefused) {
    EXPECT_NE(error_of([] { (void)scale_kernel(std::string("tab\there")); }).find("character 3 is a tab (0x09)"), std::string::npos);
    EXPECT_NE(error_of([] { (void)scale_kernel(std::string("nul\0x", 5)); }).find("character 3 is a NUL (0x00)"), std::string::npos);
    EXPECT_NE(error_of([] { (void)scale_kernel("caf\xc3\xa9"); }).find("character 3 is not ASCII (0xc3)"), std::string::npos);
    EXPECT_NE(error_of([] { (void)scale_kernel(std::string(300, 'k')); }).find("a name has at most 256 characters, this one 300"),
              std::string::npos);
    // Printable punctuation, spaces and quotes are fine.
    EXPECT_EQ(error_of([] { (void)scale_kernel("my kernel: \"v2\" (a\\b) */ ok"); }), "no error");
}

TEST(KernelNames, StageAndAxisNamesFollowTheSameRule) {
    const int stage_line = __LINE__ + 5;
    std::string msg = error_of([] {
        auto k = kernel("staged", [](View<f32, 1> y) {
            for (auto& nest : parallel(shape(axis("g", 1))))
                for (auto& step : nest.pipeline(shape(axis("k", 2)))) {
                    step.stage("load\nint x;");
                    y(coord(nest.index()), shape(1)).store(y[coord(nest.index()), shape(1)]);
                }
        });
        Tensor<f32> t({1});
        k.launch(interp(), t.view());
    });
    EXPECT_NE(msg.find("kernel_names_test.cpp:" + std::to_string(stage_line) + ": stage: invalid stage name 'load\\nint x;'"), std::string::npos)
        << msg;
    const int axis_line = __LINE__ + 1;
    msg = error_of([] { (void)axis("rows\r", 4); });
    EXPECT_NE(msg.find("kernel_names_test.cpp:" + std::to_string(axis_line) + ": axis: invalid axis name 'rows\\x0d': character 4 is a carriage return"),
              std::string::npos)
        << msg;
}

// Defence in depth: a program whose name never went through kernel(...)'s check
// (here set by hand) is emitted with the name escaped, on both targets, and the
// cpu kernel compiled from it runs without running the name.
TEST(KernelNames, EmittersEscapeANameThatBypassedTheCheck) {
    auto k = scale_kernel("bypass");
    std::vector<cpu_diff::Buffer> bufs = {cpu_diff::input(Kind::F32, {5}, 7), cpu_diff::output(Kind::F32, {5})};
    std::vector<detail::Arg> args;
    for (auto& b : bufs) args.push_back(b.arg);
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    const_cast<ir::Program&>(*program).name = kInjection;

    native::EmitOptions co;
    co.unit_inner.assign(2, true);
    std::string cpp = native::emit_cpp(*program, co).source;
    EXPECT_NE(cpp.find("// kiln cpu kernel 'evil\\x0astatic int kiln_injected = (setenv(\\x22KILN_NAME_INJECTED\\x22"), std::string::npos)
        << cpp.substr(0, 300);
    EXPECT_FALSE(has_line_starting_with(cpp, "static int kiln_injected"));

    std::string cu = cu::emit_kernel(*program, cu::EmitOptions{}).source;
    EXPECT_NE(cu.find("// kiln: kernel 'evil\\x0astatic int"), std::string::npos) << cu.substr(0, 300);
    EXPECT_FALSE(has_line_starting_with(cu, "static int kiln_injected"));

    if (!cpu().available()) GTEST_SKIP() << cpu().unavailable_reason();
    unsetenv("KILN_NAME_INJECTED");
    for (auto& b : bufs) b.arg.data = b.bytes.data();
    args.clear();
    for (auto& b : bufs) args.push_back(b.arg);
    cpu().impl().run(*program, args, {}, Loc::here());
    EXPECT_EQ(std::getenv("KILN_NAME_INJECTED"), nullptr) << "the kernel's name ran as code when the kernel loaded";
    auto ref = cpu_diff::run_on(k, interp(), {cpu_diff::input(Kind::F32, {5}, 7), cpu_diff::output(Kind::F32, {5})});
    EXPECT_EQ(ref[1].bytes, bufs[1].bytes);
}

TEST(KernelNames, FileNamePartsAreOneSafeComponent) {
    EXPECT_EQ(support::file_name_part("../../etc/passwd"), "______etc_passwd");
    EXPECT_EQ(support::file_name_part("a\nb c"), "a_b_c");
    EXPECT_EQ(support::file_name_part(""), "_");
    EXPECT_EQ(support::file_name_part(std::string(100, 'x')).size(), 64u);
}
