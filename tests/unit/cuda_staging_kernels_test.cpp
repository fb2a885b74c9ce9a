// The GEMM operand staging kernels (operand_staging.cuh) are one module shared by
// every GEMM (staging_kernels.h), not a part of each GEMM's module: checked offline
// through NVRTC for sm_90a. (Their launches, against a stand-in driver, are in
// tests/fake_cuda; their copies, on a device, in cuda_gemm_device_test.cpp.)
#include <gtest/gtest.h>

#include <utility>

#include "cuda_test_util.h"
#include "examples/typed_gemm.h"
#include "targets/cuda/emit.h"
#include "targets/cuda/kernel_cache.h"
#include "targets/cuda/staging_kernels.h"

using namespace kiln;
using namespace kiln::cuda_test;

namespace {

TEST(CudaStagingKernels, TheModuleCompilesOfflineWithItsThreeEntries) {
    REQUIRE_NVRTC();
    const auto m = cu::compiled_module("the GEMM operand staging kernels", cu::staging_module_source(), "sm_90a");
    EXPECT_FALSE(m->cubin.empty());
    const std::string ptx = cu::kernel_ptx(*m);
    EXPECT_EQ(count(ptx, ".entry "), 3) << ptx.substr(0, 2000);
    for (const char* entry : {cu::kPackRowsEntry, cu::kTransposeBytesEntry, cu::kTransposeWordsEntry}) {
        EXPECT_TRUE(contains(ptx, std::string(".entry ") + entry)) << entry;
        EXPECT_TRUE(contains(m->log, std::string("Compiling entry function '") + entry + "'")) << m->log;
    }
    // Each for kPackThreads threads a CTA, as the launches give it (gemm_staging.cpp).
    EXPECT_EQ(count(ptx, ".maxntid " + std::to_string(cu::kPackThreads) + ", 1, 1"), 3) << ptx.substr(0, 2000);
    EXPECT_EQ(count(m->log, " 0 bytes spill stores"), 3) << "none spills\n" << m->log;
    // The same source again is the same module (the disk cache's entry, or this process's).
    const auto again = cu::compiled_module("the GEMM operand staging kernels", cu::staging_module_source(), "sm_90a");
    EXPECT_EQ(again->key, m->key);
    EXPECT_EQ(again->cubin, m->cubin);
}

TEST(CudaStagingKernels, AGemmModuleHoldsItsGemmKernelAlone) {
    REQUIRE_NVRTC();
    // A's rows (45 bf16: 90 bytes) are packed at launch; the module holds no copy of
    // the packing kernel for it, nor a transposing kernel.
    Tensor<bf16> a({100, 45}), b({45, 70}), c({100, 70});
    const Kernel k = catalog::make_typed_gemm_kernel<bf16, f32, bf16>("gemm_bf16", {});
    const std::string ptx = cuda_text(k, args_of(std::as_const(a).view(), std::as_const(b).view(), c.view()), Precision::standard, What::ptx);
    EXPECT_TRUE(contains(ptx, "wgmma.mma_async")) << ptx.substr(0, 2000);
    EXPECT_FALSE(contains(ptx, "_pack")) << "the packing kernel is the staging module's";
    EXPECT_FALSE(contains(ptx, "_transpose")) << "so is the transposing one";
    EXPECT_FALSE(contains(ptx, cu::kPackRowsEntry));
}

}  // namespace
