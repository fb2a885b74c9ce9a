// The metal target's batches (targets/metal/shim_batch.h): a fuzz campaign's
// programs built by one host-compiler run run bit for bit as the interpreter
// does, nothing is built alone, and the on-disk cache is left alone (its entries
// are one kernel each: the MSL a Mac would compile).
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "fuzz/campaign.h"
#include "targets/common/shared_objects.h"

using namespace kiln;

namespace {

std::size_t cache_entries(const std::filesystem::path& root) {
    std::size_t n = 0;
    if (std::filesystem::exists(root / "entries"))
        for (auto it = std::filesystem::recursive_directory_iterator(root / "entries"); it != std::filesystem::recursive_directory_iterator(); ++it)
            n += it->path().filename() == "kernel.so";
    return n;
}

TEST(MetalBatch, ACampaignsProgramsAreBuiltTogetherAndAgreeWithTheInterpreter) {
    if (!metal().available()) GTEST_SKIP() << metal().unavailable_reason();
    char dir[] = "/tmp/kiln-metal-batch-test-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    ::setenv("KILN_CACHE_DIR", dir, 1);  // a fresh cache: every kernel must be built
    const auto before = native::shared_object_stats();
    for (Precision precision : {Precision::exact, Precision::standard}) {
        fuzz::CampaignOptions o;
        o.seed = precision == Precision::exact ? 7000001 : 7100001;
        o.count = 12;
        o.batch = 12;
        o.targets = {interp(), metal()};
        o.compile = {.precision = precision};
        o.limits.device = true;  // as `kiln fuzz --targets interp,metal` generates them
        const fuzz::Summary s = fuzz::run_campaign(o);
        for (const auto& f : s.failures) ADD_FAILURE() << "program " << f.seed << ": " << fuzz::verdict_name(f.verdict) << ": " << f.detail;
        EXPECT_EQ(s.same, s.programs);
    }
    const auto after = native::shared_object_stats();
    // Two batches built all 24 kernels (a rejected batch would have built none:
    // each kernel then builds alone, into the on-disk cache).
    EXPECT_EQ(after.batches - before.batches, 2);
    EXPECT_EQ(after.compiled - before.compiled, 24);
    EXPECT_EQ(cache_entries(dir), 0u) << "a batch went into the on-disk cache";
    std::filesystem::remove_all(dir);
    ::unsetenv("KILN_CACHE_DIR");
}

}  // namespace
