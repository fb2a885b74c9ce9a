// The three suites over the variant tables (variant_suite.h says what each checks);
// gemm_variants_test.cpp and attention_variants_test.cpp instantiate them.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "fuzz/standard_bound.h"
#include "passes/lower.h"
#include "targets/cuda/kernel_cache.h"
#include "targets/cuda/launch_args.h"
#include "tests/unit/cuda_test_util.h"
#include "trace/kernel_trace.h"
#include "variant_suite.h"

namespace kiln::variants {
namespace {

// What the cuda target's plan does with the program (sm_90, precision standard):
// "fast" where the family's Hopper kernel takes it, else the reason it gives.
std::string plan_outcome(Family family, const ir::Program& program) {
    passes::LowerOptions o;
    o.target = passes::TargetKind::cuda;
    o.precision = Precision::standard;
    o.sm = 90;
    const passes::Lowered l = passes::lower(program, o);  // points into `program`, which outlives it
    if (family == Family::gemm) return l.contractions.gemm ? fast : l.contractions.gemm_why;
    return l.contractions.attention ? fast : l.contractions.attention_why;
}

std::int64_t max_trips(const Variant& v, const Dims& d) {
    // The k loop's or the key loop's trip count at the smallest block any variant uses (16).
    const std::int64_t extent = v.family == Family::gemm ? d.k : d.keys;
    return (extent + 15) / 16 + 1;
}

}  // namespace

TEST_P(VariantPlan, ReachesTheHopperKernelOrSaysWhyNot) {
    const Variant& v = GetParam();
    const Kernel k = v.make();
    ASSERT_EQ(k.name(), v.name) << "the table's name is the kernel's";
    for (const Trace& t : v.traces) {
        SCOPED_TRACE(describe(v.family, t.dims));
        auto bufs = buffers(v.args(t.dims), 1);
        const auto args = args_of(bufs);
        const std::shared_ptr<const ir::Program> program = detail::specialize(*k.shared_impl(), args, Loc::here());
        EXPECT_EQ(plan_outcome(v.family, *program), t.expected) << (std::getenv("KILN_DEBUG_IR") ? ir::print(*program) : std::string());
    }
}

TEST_P(VariantCpu, TheCpuTargetWritesTheInterpretersBitsInExactPrecision) {
    const Variant& v = GetParam();
    SCOPED_TRACE(describe(v.family, v.cpu));
    const Kernel k = v.make();
    cpu_diff::expect_same(k, buffers(v.args(v.cpu), 2), CompileOptions{.precision = Precision::exact});
}

// The fast variants' modules compiled by NVRTC without a device, through ptxas to a
// cubin as a launch compiles them: each holds its Hopper kernel's wgmma, and ptxas
// did not serialise its wgmma (warnings C7510-C7520: "... serialized ..."). What a
// device run would compile, found here before device time is spent. About 1.5 s a
// variant, so asked for: KILN_VARIANTS_NVRTC=1.
TEST_P(VariantDevice, TheHopperKernelCompilesOffline) {
    REQUIRE_NVRTC();
    if (!std::getenv("KILN_VARIANTS_NVRTC")) GTEST_SKIP() << "KILN_VARIANTS_NVRTC=1 compiles every fast variant with NVRTC (minutes)";
    const Variant& v = GetParam();
    const Kernel k = v.make();
    for (const Trace& t : v.traces) {
        if (t.expected != fast) continue;
        SCOPED_TRACE(describe(v.family, t.dims));
        auto bufs = buffers(v.args(t.dims), 1);
        const auto args = args_of(bufs);
        const auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
        const auto compiled = cu::compiled_kernel(*program, cu::emit_options(args, CompileOptions{.precision = Precision::standard}), nullptr,
                                                  /*need_text=*/true);
        EXPECT_NE(cu::kernel_ptx(*compiled).find("wgmma.mma_async"), std::string::npos) << "no wgmma in the module";
        EXPECT_EQ(compiled->log.find("serialized"), std::string::npos) << compiled->log;
        const cu::Resources& r = v.family == Family::gemm ? compiled->gemm_resources : compiled->attention_resources;
        EXPECT_TRUE(r.known) << "the Hopper kernel is in the module: " << compiled->log;
    }
}

TEST_P(VariantDevice, TheHopperKernelIsWithinTheDerivedBoundOfTheInterpreter) {
    REQUIRE_DEVICE();
    const Variant& v = GetParam();
    const Kernel k = v.make();
    for (const Trace& t : v.traces) {
        if (t.expected != fast) continue;
        SCOPED_TRACE(describe(v.family, t.dims));
        auto bufs = buffers(v.args(t.dims), 3);
        const auto want = cpu_diff::run_on(k, interp(), bufs);
        const auto host_args = args_of(bufs);
        const auto program = detail::specialize(*k.shared_impl(), host_args, Loc::here());
        const auto bounds = fuzz::standard_bounds(*program, host_args, max_trips(v, t.dims));

        // Every view copied to the device as bytes (Tensor::to), launched there, copied back.
        std::vector<Tensor<i8>> on_device(bufs.size());
        std::vector<detail::Arg> args = host_args;
        for (std::size_t i = 0; i < bufs.size(); ++i) {
            if (!bufs[i].arg.is_view) continue;
            Tensor<i8> bytes({static_cast<std::int64_t>(bufs[i].bytes.size())});
            std::memcpy(bytes.values().data(), bufs[i].bytes.data(), bufs[i].bytes.size());
            on_device[i] = bytes.to(cuda());
            args[i].data = on_device[i].data();
            args[i].device = Device::cuda;
            args[i].ordinal = on_device[i].ordinal();
        }
        run_kernel(k, cuda(), args, CompileOptions{.precision = Precision::standard}, Loc::here());
        for (std::size_t i = 0; i < bufs.size(); ++i) {
            if (!bufs[i].output) continue;
            const Tensor<i8> back = on_device[i].to(host());
            std::vector<unsigned char> got_bytes(bufs[i].bytes.size());
            std::memcpy(got_bytes.data(), back.values().data(), got_bytes.size());
            detail::Arg interp_out = want[i].arg, cuda_out = bufs[i].arg;
            interp_out.data = const_cast<unsigned char*>(want[i].bytes.data());
            cuda_out.data = got_bytes.data();
            const auto count = static_cast<std::int64_t>(got_bytes.size()) / kind_bytes(interp_out.kind);
            const auto read = [](const detail::Arg& a, std::int64_t e) {
                return is_float(a.kind) ? ref::read_float(a, e) : static_cast<double>(ref::read_int(a, e));
            };
            if (bounds.at(i).bounded()) {
                std::int64_t outside = 0, first = -1;
                for (std::int64_t e = 0; e < count; ++e)
                    if (!bounds[i].admits(read(interp_out, e), read(cuda_out, e)) && outside++ == 0) first = e;
                EXPECT_EQ(outside, 0) << "argument " << i << ": " << outside << " of " << count << " elements outside |d| <= " << bounds[i].abs
                                      << " + " << bounds[i].rel << " |interp|; the first, element " << first << ": interp "
                                      << (first >= 0 ? read(interp_out, first) : 0) << ", cuda " << (first >= 0 ? read(cuda_out, first) : 0);
            } else {
                double num = 0, den = 0;
                std::int64_t nan_mismatch = 0;
                for (std::int64_t e = 0; e < count; ++e) {
                    const double r = read(interp_out, e), g = read(cuda_out, e);
                    if (std::isnan(r) || std::isnan(g)) {
                        nan_mismatch += std::isnan(r) != std::isnan(g);
                        continue;
                    }
                    num += (g - r) * (g - r);
                    den += r * r;
                }
                EXPECT_EQ(nan_mismatch, 0) << "argument " << i << ": NaN where the interpreter has none, or the reverse";
                EXPECT_LE(std::sqrt(num / std::max(den, 1e-300)), 2e-2) << "argument " << i << " (no finite derived bound): relative L2 error";
            }
        }
    }
}

}  // namespace kiln::variants
