// The cpu target's two cache keys: the compiled kernel's (over its generated
// source and the toolchain) and the program index's (over the program's
// structure, the launch specialisation, the toolchain and kiln's sources). Each
// must change whenever anything that decides the shared object changes, and the
// index key must not depend on where in the user's source the kernel was written.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include <kiln/kiln.h>

#include "targets/common/host_compiler.h"
#include "targets/cpu/launch_plan.h"
#include "targets/cpu/program_index.h"
#include "trace/kernel_trace.h"

using namespace kiln;

namespace {

// A kernel traced for a 1-D f32 view of `n` elements with `stride` (never
// launched: keys are computed from the program and the view's shape alone).
struct Traced {
    Kernel kernel;
    std::vector<detail::Arg> args;
    std::shared_ptr<const ir::Program> program;
};
Traced trace(Kernel k, std::int64_t n = 64, std::int64_t stride = 1) {
    Traced t{std::move(k), {}, nullptr};
    detail::Arg a;
    a.kind = Kind::F32;
    a.extents = {n};
    a.strides = {stride};
    t.args = {a};
    t.program = detail::specialize(*t.kernel.shared_impl(), t.args, Loc::here());
    return t;
}

Kernel scaled(float scale) {
    return kernel("scaled", [scale](View<f32, 1> y) {
        auto c = axis("c", 8);
        for (auto& nest : parallel(shape(axis("g", ceil_div(y.extent(0), 8))))) {
            auto o = coord(nest.index() * 8);
            y(o, shape(c)).store(y[o, shape(c)] * scale);
        }
    });
}
// The same kernel as scaled(2.0f), written at other source lines.
Kernel scaled_elsewhere() {
    return kernel("scaled", [](View<f32, 1> y) {
        auto c = axis("c", 8);
        for (auto& nest : parallel(shape(axis("g", ceil_div(y.extent(0), 8))))) {
            auto o = coord(nest.index() * 8);
            y(o, shape(c)).store(y[o, shape(c)] * 2.0f);
        }
    });
}

class CpuKeys : public ::testing::Test {
protected:
    void SetUp() override {
        const native::HostCompiler* cc = native::host_compiler(nullptr);
        if (!cc) GTEST_SKIP() << "no host compiler";
        compiler_ = *cc;
    }
    std::string index_key(const Traced& t, CompileOptions o = {}) const {
        return native::index_key(*t.program, native::launch_spec(*t.program, t.args, o), &compiler_);
    }
    std::string kernel_key(const Traced& t, CompileOptions o = {}) const {
        auto spec = native::launch_spec(*t.program, t.args, o);
        return native::cache_key(native::emit_cpp(*t.program, spec.emit), spec, compiler_);
    }
    native::HostCompiler compiler_;
};

TEST_F(CpuKeys, IndexKeyFollowsTheProgramNotItsSourceLines) {
    Traced a = trace(scaled(2.0f)), b = trace(scaled_elsewhere());
    ASSERT_NE(ir::print(*a.program), ir::print(*b.program));  // the locations differ
    EXPECT_EQ(index_key(a), index_key(b));
    EXPECT_EQ(kernel_key(a), kernel_key(b));
    EXPECT_NE(index_key(a), index_key(trace(scaled(3.0f))));  // a different constant
    // The extent is a launch value, not part of the program: one kernel serves all.
    EXPECT_EQ(index_key(a), index_key(trace(scaled(2.0f), 72)));
}

TEST_F(CpuKeys, BothKeysFollowTheLaunchSpecialisation) {
    Traced t = trace(scaled(2.0f));
    const std::string index = index_key(t), kernel = kernel_key(t);
    EXPECT_NE(index_key(t, {.precision = Precision::exact}), index);
    EXPECT_NE(kernel_key(t, {.precision = Precision::exact}), kernel);
    Traced strided = trace(scaled(2.0f), 64, 3);  // inner stride 3: no unit-stride fast path
    EXPECT_NE(index_key(strided), index);
    EXPECT_NE(kernel_key(strided), kernel);
    Traced huge = trace(scaled(2.0f), 2, std::int64_t{1} << 31);  // a span beyond 2^31: 64-bit offsets
    ASSERT_TRUE(native::launch_spec(*huge.program, huge.args, {}).emit.index64);
    EXPECT_NE(index_key(huge), index);
    EXPECT_NE(kernel_key(huge), kernel);
}

TEST_F(CpuKeys, BothKeysFollowTheToolchain) {
    Traced t = trace(scaled(2.0f));
    const std::string index = index_key(t), kernel = kernel_key(t);
    for (auto change : {+[](native::HostCompiler& c) { c.identity += " (another build)"; },
                        +[](native::HostCompiler& c) { c.flags.push_back("-O3"); },
                        +[](native::HostCompiler& c) { c.host_cpu += " avx512fp16"; }}) {
        native::HostCompiler saved = compiler_;
        change(compiler_);
        EXPECT_NE(index_key(t), index);
        EXPECT_NE(kernel_key(t), kernel);
        compiler_ = saved;
    }
    EXPECT_EQ(index_key(t), index);
}

// $CXX is a whole command: each of its words can change the code it builds
// ("c++ -O0", "c++ -fsanitize=address"), so each is in the keys; so is each
// program it names ("ccache g++": g++'s file identity, not only ccache's).
TEST_F(CpuKeys, EveryWordOfCxxIsInBothKeys) {
    Traced t = trace(scaled(2.0f));
    std::string why;
    auto plain = native::describe_compiler("c++", &why);
    ASSERT_TRUE(plain) << why;
    std::set<std::string> index_keys, kernel_keys;
    for (const char* cxx : {"c++", "c++ -O0", "c++ -fsanitize=address", "c++  -O0"}) {
        auto c = native::describe_compiler(cxx, &why);
        ASSERT_TRUE(c) << why;
        compiler_ = *c;
        index_keys.insert(index_key(t));
        kernel_keys.insert(kernel_key(t));
    }
    EXPECT_EQ(index_keys.size(), 3u);  // the doubled space is the same command
    EXPECT_EQ(kernel_keys.size(), 3u);
    EXPECT_NE(plain->identity.find("command: c++\nprogram: "), std::string::npos) << plain->identity;
}

TEST_F(CpuKeys, AWrappersCompilerIsIdentifiedByItsOwnFile) {
    namespace fs = std::filesystem;
    auto dir = fs::path(testing::TempDir()) / ("kiln-wrapper-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "wrap");
    fs::create_directories(dir / "real");
    auto script = [](const fs::path& p, const std::string& text) {
        std::ofstream(p) << text;
        fs::permissions(p, fs::perms::owner_all);
    };
    script(dir / "wrap" / "ccache", "#!/bin/sh\nexec \"$@\"\n");
    script(dir / "real" / "g++", "#!/bin/sh\n# compiler 1\n");
    fs::create_symlink("ccache", dir / "wrap" / "g++");  // ccache's masquerade
    const char* old_path = std::getenv("PATH");
    const std::string saved_path = old_path ? old_path : "";
    setenv("PATH", ((dir / "wrap").string() + ":" + (dir / "real").string()).c_str(), 1);
    std::string why;
    auto explicit_1 = native::describe_compiler((dir / "wrap" / "ccache").string() + " g++", &why);
    auto masquerade_1 = native::describe_compiler("g++", &why);
    script(dir / "real" / "g++", "#!/bin/sh\n# compiler 2, a different build\n");
    auto explicit_2 = native::describe_compiler((dir / "wrap" / "ccache").string() + " g++", &why);
    auto masquerade_2 = native::describe_compiler("g++", &why);
    setenv("PATH", saved_path.c_str(), 1);
    ASSERT_TRUE(explicit_1 && masquerade_1 && explicit_2 && masquerade_2) << why;
    // Replacing the compiler behind ccache changes the identity either way.
    EXPECT_NE(explicit_1->identity, explicit_2->identity);
    EXPECT_NE(masquerade_1->identity, masquerade_2->identity);
    EXPECT_NE(masquerade_1->identity.find("behind the wrapper: " + (dir / "real" / "g++").string() + " dev="), std::string::npos)
        << masquerade_1->identity;
    fs::remove_all(dir);
}

// GCC's kernels carry the flags that keep its x86 backend from broadcasting a wide
// constant from its first word and its VRP from a wrong range (host_compiler.cpp:
// kGnuFlags, kGnuX86Flags; the regressions are tests/fuzz/cpu_regression_test.cpp);
// a compiler whose --version is not GCC's gets neither GCC-only flag, which it could
// reject.
TEST(HostCompilerFlags, OnlyGccGetsItsWideConstantWorkaround) {
    namespace fs = std::filesystem;
    const std::string workaround = "-mtune-ctrl=^inter_unit_moves_to_vec";
    std::string why;
#if defined(__x86_64__) || defined(__i386__)
    if (auto gcc = native::describe_compiler("g++", &why)) {
        EXPECT_NE(gcc->flags_text().find(workaround), std::string::npos) << gcc->flags_text();
    }
#endif
    if (auto gcc = native::describe_compiler("g++", &why)) EXPECT_NE(gcc->flags_text().find("-fno-tree-vrp"), std::string::npos) << gcc->flags_text();
    auto dir = fs::path(testing::TempDir()) / ("kiln-notgcc-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "otherc++") << "#!/bin/sh\necho 'Other clang version 99.0'\n";
    fs::permissions(dir / "otherc++", fs::perms::owner_all);
    auto other = native::describe_compiler((dir / "otherc++").string(), &why);
    ASSERT_TRUE(other) << why;
    EXPECT_EQ(other->flags_text().find(workaround), std::string::npos) << other->flags_text();
    EXPECT_EQ(other->flags_text().find("-fno-tree-vrp"), std::string::npos) << other->flags_text();
    fs::remove_all(dir);
}

TEST(CpuIndexRecord, RoundTripsAndRejectsMalformedText) {
    native::IndexRecord r{std::string(64, 'a'), 4096};
    std::string text = native::format_record(r);
    EXPECT_EQ(text, "kiln-cpu-index 1\nkernel " + std::string(64, 'a') + "\nframe_bytes 4096\n");
    auto back = native::parse_record(text);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->kernel_key, r.kernel_key);
    EXPECT_EQ(back->frame_bytes, 4096);
    for (const std::string& bad : {text.substr(0, text.size() - 1), "kiln-cpu-index 2\n" + text.substr(17), text + "extra\n",
                                   native::format_record({std::string(63, 'a'), 1}), native::format_record({std::string(64, 'A'), 1}),
                                   native::format_record({std::string(64, 'a'), -1}),
                                   "kiln-cpu-index 1\nkernel " + std::string(64, 'a') + "\nframe_bytes 12x\n"})
        EXPECT_FALSE(native::parse_record(bad)) << bad;
}

}  // namespace
