// The catalog on the emulated cuda target (cuda_emulator.h): the cuda emitter's
// kernels, run on the host with every CTA's threads as fibers. In exact precision
// each case's outputs must be byte-identical to the interpreter's; in standard
// precision within the entry's error bound. Cases whose kernels use tensor cores
// are skipped (not emulated); the real device runs them (scripts/gpu-check.sh).
#include <gtest/gtest.h>

#include "catalog.h"
#include "cuda_emulator.h"
#include "kiln/detail/identical.h"

using namespace kiln;

namespace {

std::string first_difference(const catalog::Buffer& want, const catalog::Buffer& got) {
    if (want.bytes.size() != got.bytes.size()) return "sizes differ";
    const long long e = detail::first_non_identical(want.kind, want.bytes.data(), got.bytes.data(), want.bytes.size());
    if (e < 0) return "";
    return "element " + std::to_string(e) + ": interp " + std::to_string(want.get(e)) + ", emulated cuda " + std::to_string(got.get(e));
}

bool tensor_core_trap(const std::exception& e) { return std::string(e.what()).find("tensor cores are not emulated") != std::string::npos; }

class EmulatedCudaCatalog : public ::testing::TestWithParam<std::string> {};

TEST_P(EmulatedCudaCatalog, ExactIsBitExactAndStandardWithinBounds) {
    const auto* e = catalog::find(GetParam());
    ASSERT_NE(e, nullptr);
    Target emulated = emulated::cuda_emulated();
    int skipped = 0, ran = 0;
    for (auto& c : e->cases(catalog::Size::small, 20261130)) {
        auto want = catalog::run_outputs(c, interp(), {});
        try {
            auto got = catalog::run_outputs(c, emulated, {.precision = Precision::exact});
            ASSERT_EQ(want.size(), got.size());
            for (std::size_t o = 0; o < want.size(); ++o)
                EXPECT_EQ(first_difference(want[o], got[o]), "") << e->name << " " << c.shape << " exact, output " << o;
            ++ran;
        } catch (const std::runtime_error& err) {
            if (!tensor_core_trap(err)) throw;
            ++skipped;
        }
        try {
            auto r = catalog::run_case(c, emulated, {.precision = Precision::standard});
            EXPECT_TRUE(r.ok) << e->name << " " << c.shape << " standard: " << r.detail << " (error/bound " << r.worst << ")";
            ++ran;
        } catch (const std::runtime_error& err) {
            if (!tensor_core_trap(err)) throw;
            ++skipped;
        }
    }
    if (ran == 0) GTEST_SKIP() << "every case uses tensor cores, which are not emulated";
}

std::vector<std::string> entry_names() {
    std::vector<std::string> v;
    for (auto& e : catalog::entries()) v.push_back(e.name);
    return v;
}

INSTANTIATE_TEST_SUITE_P(Catalog, EmulatedCudaCatalog, ::testing::ValuesIn(entry_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
