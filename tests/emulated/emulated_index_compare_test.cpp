// An i64 compare of an iota with a value its thread's run shares is emitted in 32
// bits with the value clamped to [-1, n] (src/targets/cuda/scalar_ops.cpp:
// index_compare; EmitOptions::narrow_index_compares, on by default, and the index
// facts, KILN_CUDA_INDEX_FACTS=1: ctest's kiln_emulated_tests_index_facts). Every
// compare against every edge of that clamp, on the emulated cuda target, bit for bit
// with the interpreter: values below, at and above the axis, the i64 extremes, and
// 2^32 + 3, which a plain truncation to 32 bits would take for column 3. With neither
// (ctest's kiln_emulated_tests_wide_index_compares), the same values from the 64-bit
// compares.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <string>

#include "cuda_emulator.h"
#include "interp_bytes.h"
#include "tests/unit/cpu_diff.h"

using namespace kiln;
using cpu_diff::Buffer;
using emulated::expect_interp_bytes;

namespace {

// Per row, the six compares of the row's value s with iota(c), s on either side,
// each as one bit of an exact float.
Kernel index_compares() {
    return kernel("index_compares", [](View<const i64, 1> s, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", y.extent(1));
        for (auto& nest : parallel(shape(axis("rows", y.extent(0))))) {
            auto v = s[coord(nest.index()), shape(r)];
            auto i = iota(c);
            auto bits = ite(v == i, 1.0f, 0.0f) + ite(i != v, 2.0f, 0.0f) + ite(i < v, 4.0f, 0.0f) + ite(v <= i, 8.0f, 0.0f) +
                        ite(i > v, 16.0f, 0.0f) + ite(v >= i, 32.0f, 0.0f);
            y(coord(nest.index(), 0), shape(r, c)).store(bits);
        }
    });
}

Buffer row_values(std::int64_t cols) {
    const std::int64_t big = std::int64_t{1} << 40;
    const std::vector<std::int64_t> values = {-big, -5, -1, 0, 1, cols / 2, cols - 1, cols, cols + 1, big, (std::int64_t{1} << 32) + 3,
                                              std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
    Buffer b = cpu_diff::input(Kind::I64, {static_cast<std::int64_t>(values.size())}, 0);
    for (std::size_t k = 0; k < values.size(); ++k) ref::write_int(b.arg, static_cast<std::int64_t>(k), values[k]);
    return b;
}

}  // namespace

TEST(EmulatedIndexCompare, EveryCompareAtEveryEdgeOfTheClampMatchesTheInterpreter) {
    for (std::int64_t cols : {1000, 64, 5123, 8}) {
        SCOPED_TRACE(cols);
        Buffer s = row_values(cols);
        std::vector<Buffer> bufs = {s, cpu_diff::output(Kind::F32, {s.arg.extents[0], cols})};
        for (Precision p : {Precision::exact, Precision::standard}) expect_interp_bytes(index_compares(), bufs, p);
        // The compares took the form the option asks for.
        std::vector<detail::Arg> args = {bufs[0].arg, bufs[1].arg};
        const std::string source = emulated::emulated_source(index_compares(), args, Precision::standard);
        const char* facts = std::getenv("KILN_CUDA_INDEX_FACTS");
        const char* narrow = std::getenv("KILN_CUDA_NARROW_INDEX_COMPARES");
        const bool on = facts && std::string(facts) == "1", narrow_on = !narrow || std::string(narrow) != "0";
        EXPECT_EQ(source.find("kc::clamp_to_index(v") != std::string::npos, on || narrow_on) << source;
        EXPECT_EQ(source.find("kc::assume(tid") != std::string::npos, on) << source;
    }
}
