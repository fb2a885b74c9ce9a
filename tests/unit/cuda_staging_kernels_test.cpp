// The GEMM operand staging kernels (operand_staging.cuh) are shared by every GEMM, a
// module each (staging_kernels.h), not a part of each GEMM's module: checked offline
// through NVRTC for sm_90a. (Their launches, against a stand-in driver, are in
// tests/fake_cuda; their copies, on a device, in cuda_gemm_device_test.cpp.)
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "cuda_test_util.h"
#include "examples/typed_gemm.h"
#include "targets/cuda/emit.h"
#include "targets/cuda/kernel_cache.h"
#include "targets/cuda/staging_kernels.h"

using namespace kiln;
using namespace kiln::cuda_test;

namespace {

TEST(CudaStagingKernels, EachKernelIsAModuleOfItsOwn) {
    REQUIRE_NVRTC();
    const cu::StagingKernel all[] = {cu::StagingKernel::pack_rows, cu::StagingKernel::transpose_bytes, cu::StagingKernel::transpose_words};
    std::set<std::string> entries, keys;
    for (cu::StagingKernel k : all) {
        const std::string entry = cu::staging_entry(k);
        SCOPED_TRACE(entry);
        entries.insert(entry);
        const auto m = cu::compiled_module(entry, cu::staging_module_source(k), "sm_90a");
        keys.insert(m->key);
        EXPECT_FALSE(m->cubin.empty());
        const std::string ptx = cu::kernel_ptx(*m);
        EXPECT_EQ(count(ptx, ".entry "), 1) << "its kernel alone: a GEMM that packs compiles no transposition\n" << ptx.substr(0, 2000);
        EXPECT_TRUE(contains(ptx, ".entry " + entry)) << ptx.substr(0, 2000);
        EXPECT_TRUE(contains(m->log, "Compiling entry function '" + entry + "'")) << m->log;
        // For kPackThreads threads a CTA, as the launches give it (gemm_staging.cpp).
        EXPECT_TRUE(contains(ptx, ".maxntid " + std::to_string(cu::kPackThreads) + ", 1, 1")) << ptx.substr(0, 2000);
        EXPECT_TRUE(contains(m->log, " 0 bytes spill stores")) << "it does not spill\n" << m->log;
        // The same source again is the same module (the disk cache's entry, or this process's).
        const auto again = cu::compiled_module(entry, cu::staging_module_source(k), "sm_90a");
        EXPECT_EQ(again->key, m->key);
        EXPECT_EQ(again->cubin, m->cubin);
    }
    EXPECT_EQ(entries.size(), 3u) << "three entry points";
    EXPECT_EQ(keys.size(), 3u) << "three modules";
}

TEST(CudaStagingKernels, AGemmModuleHoldsItsGemmKernelAlone) {
    REQUIRE_NVRTC();
    // A's rows (45 bf16: 90 bytes) are packed at launch; the module holds no copy of
    // the packing kernel for it, nor a transposing kernel.
    Tensor<bf16> a({100, 45}), b({45, 70}), c({100, 70});
    const Kernel k = catalog::make_typed_gemm_kernel<bf16, f32, bf16>("gemm_bf16", {});
    const std::string ptx = cuda_text(k, args_of(std::as_const(a).view(), std::as_const(b).view(), c.view()), Precision::standard, What::ptx);
    EXPECT_TRUE(contains(ptx, "wgmma.mma_async")) << ptx.substr(0, 2000);
    EXPECT_FALSE(contains(ptx, "_pack")) << "the packing kernel is a module of its own";
    EXPECT_FALSE(contains(ptx, "_transpose")) << "so is the transposing one";
    EXPECT_FALSE(contains(ptx, cu::staging_entry(cu::StagingKernel::pack_rows)));
}

}  // namespace
