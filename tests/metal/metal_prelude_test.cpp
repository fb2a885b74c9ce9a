// The prelude every metal kernel carries, as the shim compiles it: kf64 (software
// binary64) against the host's hardware doubles, kiln's math in the MSL dialect
// (on kf64) against kiln's math on doubles, and the narrow-float conversions
// against kround.h, over random and special operands. The prelude is compiled
// here exactly as in a kernel (shim header, then the prelude text), with a few
// exported functions to call it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <regex>

#include <kiln/detail/kmath.h>

#include "cache/disk_cache.h"
#include "targets/common/embedded_text.h"
#include "targets/common/shared_objects.h"
#include "targets/metal/emit_msl.h"
#include "targets/metal/msl_dialect.h"
#include "targets/metal/shim_module.h"

using namespace kiln;

namespace {

typedef unsigned long (*Op2)(int, unsigned long, unsigned long);

// op: 0 + 1 - 2 * 3 / 4 sqrt, 5 == 6 < 7 <=, 8 to float (bits), 9 from long, 10 to long,
// 11 from float (bits in a), 20.. kiln math (exp log tanh erf sin cos pow rsqrt sqrt),
// 40 f16 bits from float (bits), 41 bf16 bits from float, 42 f16 bits from double,
// 43 f16 value as float bits, 44 bf16 value, 45 i64 -> f32 bits.
const char* kDriver = R"(
extern "C" __attribute__((visibility("default"))) ulong kiln_test_op(int op, ulong a, ulong b) {
    const kf64 x = kf64_from_bits(a), y = kf64_from_bits(b);
    switch (op) {
        case 0: return (x + y).bits;
        case 1: return (x - y).bits;
        case 2: return (x * y).bits;
        case 3: return (x / y).bits;
        case 4: return kf64_sqrt(x).bits;
        case 5: return x == y;
        case 6: return x < y;
        case 7: return x <= y;
        case 8: return as_type<uint>((float)x);
        case 9: return kf64((long)a).bits;
        case 10: return (ulong)(long)x;
        case 11: return kf64(as_type<float>((uint)a)).bits;
        case 20: return kiln_rt::k_exp(x).bits;
        case 21: return kiln_rt::k_log(x).bits;
        case 22: return kiln_rt::k_tanh(x).bits;
        case 23: return kiln_rt::k_erf(x).bits;
        case 24: return kiln_rt::k_sin(x).bits;
        case 25: return kiln_rt::k_cos(x).bits;
        case 26: return kiln_rt::k_pow(x, y).bits;
        case 27: return kiln_rt::k_rsqrt(x).bits;
        case 28: return kiln_rt::k_sqrt(x).bits;
        case 40: return kiln_f16_bits(as_type<float>((uint)a));
        case 41: return kiln_bf16_bits(as_type<float>((uint)a));
        case 42: return kiln_rt::f16_bits_from_double(x);
        case 43: return as_type<uint>(kiln_f16_value((ushort)a));
        case 44: return as_type<uint>(kiln_bf16_value((ushort)a));
        case 45: return as_type<uint>(kiln_i64_to_f32((long)a));
    }
    return 0;
}
)";

Op2 prelude_op() {
    static Op2 fn = [] {
        std::string why;
        const native::HostCompiler* cc = native::host_compiler(&why);
        if (!cc) return Op2(nullptr);
        const std::string source = mtl::msl_prelude() + kDriver;
        cache::KeyBuilder key;
        key.add("test", "metal prelude test");
        key.add("source", source);
        key.add("shim", embedded::metal_stdlib());
        key.add("compiler", cc->identity);
        native::BuildRequest r;
        r.target = "metal";
        r.kernel_name = "prelude_test";
        r.files = {{"kernel.cpp", source}, {"metal_stdlib", std::string(embedded::metal_stdlib())}};
        r.flags = mtl::shim_flags();
        r.include_build_dir = true;
        const auto cache = cache::DiskCache::open_or_warn();
        return reinterpret_cast<Op2>(native::load_shared_object(cache ? &*cache : nullptr, key.hex(), r, *cc).symbol("kiln_test_op"));
    }();
    return fn;
}

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }
double dbl(std::uint64_t b) { return std::bit_cast<double>(b); }
bool same(double a, double b) { return (a != a && b != b) || bits(a) == bits(b); }

// Operands that reach every path: any bits, subnormals, numbers near 1, huge and
// tiny exponents, integers, special values, and neighbours of each other.
struct Operands {
    std::mt19937_64 rng{20261201};
    double next() {
        const std::uint64_t b = rng();
        switch (rng() % 7) {
            case 0: return dbl(b);
            case 1: return dbl(b & 0x800fffffffffffffULL);
            case 2: return dbl((b & 0x80ffffffffffffffULL) | 0x3f00000000000000ULL);
            case 3: return static_cast<double>(static_cast<std::int64_t>(b >> (rng() % 64))) * ((rng() & 1) ? -1 : 1);
            case 4: {
                static const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 2.0, 0.5,
                                                 std::numeric_limits<double>::max(), std::numeric_limits<double>::min(), 4.9e-324, -4.9e-324};
                return special[rng() % 13];
            }
            case 5: return dbl(b & 0x801fffffffffffffULL);
            default: return dbl((b & 0x83ffffffffffffffULL) | 0x3c00000000000000ULL);
        }
    }
};

#define NEED_PRELUDE()                                   \
    Op2 op = prelude_op();                               \
    if (!op) GTEST_SKIP() << "no host compiler for the shim"

TEST(MetalPrelude, Kf64ArithmeticIsTheHardwareDoubles) {
    NEED_PRELUDE();
    Operands gen;
    int bad = 0;
    for (int i = 0; i < 300000 && bad < 10; ++i) {
        double a = gen.next(), b = gen.next();
        if (i % 4 == 0) b = a * (1 + static_cast<double>(static_cast<int>(gen.rng() % 5) - 2) * 0x1p-52);  // near-cancellation
        const double want[5] = {a + b, a - b, a * b, a / b, std::sqrt(a)};
        for (int k = 0; k < 5; ++k)
            if (!same(want[k], dbl(op(k, bits(a), bits(b))))) {
                ++bad;
                ADD_FAILURE() << "op " << k << " of " << std::hexfloat << a << ", " << b << ": " << dbl(op(k, bits(a), bits(b))) << ", want " << want[k];
            }
        const bool cmp[3] = {a == b, a < b, a <= b};
        for (int k = 0; k < 3; ++k)
            if (op(5 + k, bits(a), bits(b)) != cmp[k]) ++bad, ADD_FAILURE() << "comparison " << k << " of " << std::hexfloat << a << ", " << b;
        const float f = static_cast<float>(a);
        if (!same(f, std::bit_cast<float>(static_cast<std::uint32_t>(op(8, bits(a), 0))))) ++bad, ADD_FAILURE() << "to float " << std::hexfloat << a;
        const auto l = static_cast<std::int64_t>(gen.rng()) >> (gen.rng() % 64);
        if (!same(static_cast<double>(l), dbl(op(9, static_cast<std::uint64_t>(l), 0)))) ++bad, ADD_FAILURE() << "from long " << l;
        if (std::fabs(a) < 9e18 && static_cast<std::int64_t>(op(10, bits(a), 0)) != static_cast<std::int64_t>(a)) ++bad, ADD_FAILURE() << "to long " << a;
        const auto fb = static_cast<std::uint32_t>(gen.rng());
        if (!same(static_cast<double>(std::bit_cast<float>(fb)), dbl(op(11, fb, 0)))) ++bad, ADD_FAILURE() << "from float bits " << fb;
    }
}

TEST(MetalPrelude, KilnMathOnKf64IsKilnMathOnDoubles) {
    NEED_PRELUDE();
    Operands gen;
    int bad = 0;
    for (int i = 0; i < 40000 && bad < 10; ++i) {
        double a = gen.next(), b = gen.next();
        if (i % 3 == 0) a = static_cast<double>(static_cast<int>(gen.rng() % 2000) - 1000) / 7.0;
        const double want[9] = {kiln_rt::k_exp(a), kiln_rt::k_log(a), kiln_rt::k_tanh(a), kiln_rt::k_erf(a), kiln_rt::k_sin(a),
                                kiln_rt::k_cos(a), kiln_rt::k_pow(a, b), kiln_rt::k_rsqrt(a), kiln_rt::k_sqrt(a)};
        for (int k = 0; k < 9; ++k)
            if (!same(want[k], dbl(op(20 + k, bits(a), bits(b))))) {
                ++bad;
                ADD_FAILURE() << "math function " << k << " of " << std::hexfloat << a << ", " << b;
            }
    }
}

TEST(MetalPrelude, NarrowFloatsRoundAsKround) {
    NEED_PRELUDE();
    Operands gen;
    for (int i = 0; i < 100000; ++i) {
        const double a = gen.next();
        const float f = static_cast<float>(a);
        const auto fb = std::bit_cast<std::uint32_t>(f);
        ASSERT_EQ(op(40, fb, 0), kiln_rt::f16_bits_from_double(f)) << std::hexfloat << f;
        ASSERT_EQ(op(41, fb, 0), kiln_rt::bf16_bits_from_double(f)) << std::hexfloat << f;
        ASSERT_EQ(op(42, bits(a), 0), kiln_rt::f16_bits_from_double(a)) << std::hexfloat << a;
        const auto l = static_cast<std::int64_t>(gen.rng()) >> (gen.rng() % 64);
        ASSERT_EQ(op(45, static_cast<std::uint64_t>(l), 0), std::bit_cast<std::uint32_t>(static_cast<float>(l))) << l;
    }
    for (std::uint32_t h = 0; h < 65536; ++h) {
        ASSERT_TRUE(same(std::bit_cast<float>(static_cast<std::uint32_t>(op(43, h, 0))), kiln_rt::f16_bits_to_double(static_cast<unsigned short>(h)))) << h;
        ASSERT_TRUE(same(std::bit_cast<float>(static_cast<std::uint32_t>(op(44, h, 0))), kiln_rt::bf16_bits_to_double(static_cast<unsigned short>(h)))) << h;
    }
}

// The rewrite onto kf64 leaves no double, no long long and no double literal behind.
TEST(MetalPrelude, TheMslDialectHasNoDoubles) {
    std::string text = mtl::msl_dialect(embedded::kround_h()) + mtl::msl_dialect(embedded::kmath_h());
    text = std::regex_replace(text, std::regex("//[^\n]*"), "");  // the comments speak of doubles
    for (const char* banned : {" double ", "(double)", "long long", "ULL", "__builtin_sqrt(", "static const"})
        EXPECT_EQ(text.find(banned), std::string::npos) << banned;
    EXPECT_NE(text.find("thread int& k"), std::string::npos);  // references name their address space
    EXPECT_NE(text.find("kf64_from_bits(0x3fe0000000000000UL)"), std::string::npos);  // 0.5, by its bits
    EXPECT_EQ(mtl::msl_dialect("double x = 1.5; float y = 2.0f; unsigned long long z = 3ULL; // 0.25 stays\n"),
              "kf64 x = kf64_from_bits(0x3ff8000000000000UL); float y = 2.0f; ulong z = 3UL; // 0.25 stays\n");
}

}  // namespace
