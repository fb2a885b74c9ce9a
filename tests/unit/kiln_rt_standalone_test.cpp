// kround.h and kmath.h are pasted verbatim into generated C++ and NVRTC CUDA,
// where no standard header exists. This file includes them before anything
// else, so any use of the standard library in them fails to compile here; the
// test below also compiles them with every standard include path removed.
#include <kiln/detail/kround.h>
#include <kiln/detail/kmath.h>

// Every entry point, called from code that sees nothing but the two headers.
namespace standalone {
inline double use_everything(double x, double y, long long i) {
    using namespace kiln_rt;
    double s = round_f32(x) + round_f16(x) + round_bf16(x);
    s += f16_bits_to_double(f16_bits_from_double(x)) + bf16_bits_to_double(bf16_bits_from_double(x));
    s += (double)(wrap_i8(i) + wrap_i32(i) + f64_to_i64_sat(x) + f64_to_int_sat(x, 8) + idiv(i, 3, 32) + imod(i, 3, 32));
    s += k_exp(x) + k_expm1(x) + k_log(x) + k_log1p(x) + k_sqrt(x) + k_rsqrt(x) + k_tanh(x) + k_erf(x);
    s += k_sin(x) + k_cos(x) + k_pow(x, y) + k_abs(x) + k_max(x, y) + k_min(x, y) + k_sigmoid(x);
    return s + k_floor(x) + k_trunc(x);
}
}  // namespace standalone

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <sys/wait.h>

namespace {

TEST(KilnRtStandalone, UsableBeforeAnyOtherInclude) {
    const double v = standalone::use_everything(0.5, 2.0, 7);
    EXPECT_EQ(v - v, 0.0) << v;  // finite: every function ran and returned a number
    EXPECT_EQ(kiln_rt::k_pow(3.0, 2.0), 9.0);
}

// Syntax-check the two headers with no standard include directories at all, in
// C++17 (NVRTC's default dialect), warnings as errors: as generated code pastes
// them (kround.h then kmath.h) and with kmath.h included on its own.
TEST(KilnRtStandalone, CompilesWithoutStandardIncludePaths) {
    const std::string dir = std::string(KILN_SOURCE_DIR) + "/include/kiln/detail/";
    const char* cxx = std::getenv("CXX");
    const std::string compiler = cxx && *cxx ? cxx : "c++";
    const std::string heads[] = {"#include \"" + dir + "kround.h\"\n#include \"" + dir + "kmath.h\"\n",
                                 "#include \"" + dir + "kmath.h\"\n"};
    for (int i = 0; i < 2; ++i) {
        const std::string src = testing::TempDir() + "kiln_rt_standalone_check" + std::to_string(i) + ".cpp";
        {
            std::ofstream out(src);
            out << heads[i]
                << "double f(double x, double y) { return kiln_rt::k_pow(kiln_rt::k_exp(x), y) + kiln_rt::round_f16(x); }\n";
        }
        const std::string cmd = compiler + " -std=c++17 -nostdinc -nostdinc++ -fsyntax-only -Wall -Wextra -Wshadow -Werror " +
                                src + " > " + src + ".log 2>&1";
        const int rc = std::system(cmd.c_str());
        if (WIFEXITED(rc) && WEXITSTATUS(rc) == 127) GTEST_SKIP() << "no C++ compiler on PATH: " << compiler;
        std::ifstream log(src + ".log");
        const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
        EXPECT_EQ(rc, 0) << cmd << "\n" << text;
    }
}

}  // namespace
