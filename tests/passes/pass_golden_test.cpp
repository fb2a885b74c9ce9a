// Golden tests of the middle end: for a few kernels and each target's pipeline, the
// annotated IR after every pass (passes/lower.h), without source locations, against
// tests/passes/golden/<kernel>.<target>.txt. A change in what a pass decides shows
// up here as a diff to read. KILN_UPDATE_GOLDEN=1 rewrites the files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <kiln/kiln.h>

#include "passes/lower.h"
#include "trace/kernel_trace.h"

namespace kiln {
namespace {

// A row softmax over bf16 with f32 math (cuda: runs of 8, a register reduction).
Kernel softmax() {
    return kernel("softmax", [](View<const bf16, 2> x, View<bf16, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto v = cast<f32>(x[o, shape(r, c)]);
            auto e = exp(v - reduce(v, c, maximum));
            y(o, shape(r, c)).store(cast<bf16>(e / reduce(e, c, add)));
        }
    });
}

// A GEMM with a bias and relu (the canonical GEMM on cuda), plus a value nothing uses (dce).
Kernel gemm_bias() {
    return kernel("gemm_bias", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1> bias, View<bf16, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent(0), 128)), gn = axis("block_n", ceil_div(B.extent(1), 128));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), 64));
        auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * 64;
                acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
            }
            [[maybe_unused]] auto unused = acc * 2.0f;
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(max(acc + cast<f32>(bias[coord(n0), shape(n)]), 0.0f)));
        }
    });
}

// A pipeline summing row blocks of x, with a second input read at an offset taken
// from a scalar argument: both loads' origins depend only on the loop's index and
// values from outside the loop, so both are prefetched into a window-deep ring.
Kernel pipelined_sum() {
    return kernel("pipelined_sum", [](View<const f32, 2> x, View<const f32, 2> z, Scalar<i64> offset, View<f32, 2> y) {
        auto steps = axis("steps", ceil_div(x.extent(0), 4));
        auto r = axis("r", 4), c = axis("c", 64);
        for (auto& nest : parallel(shape(axis("blocks", 1)))) {
            auto acc = zeros<f32>(shape(r, c));
            for (auto& s : nest.pipeline(shape(steps), {.window = 2})) {
                auto row = s.index() * 4;
                acc = acc + x[coord(row, 0), shape(r, c)] * z[coord(row + offset, 0), shape(r, c)];
            }
            y(coord(nest.index() * 4, 0), shape(r, c)).store(acc);
        }
    });
}

std::string golden_path(const std::string& name) { return std::string(KILN_SOURCE_DIR) + "/tests/passes/golden/" + name + ".txt"; }

void check_golden(const std::string& name, const Kernel& k, const std::vector<detail::Arg>& args, passes::TargetKind target) {
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    std::ostringstream text;
    passes::LowerOptions o;
    o.target = target;
    o.args = &args;
    for (auto pass : passes::pass_names(target)) {
        text << "=== after " << pass << "\n";
        text << passes::print(passes::lower(*program, o, pass), /*locations=*/false);
    }
    const std::string path = golden_path(name + "." + std::string(passes::target_name(target)));
    if (const char* u = std::getenv("KILN_UPDATE_GOLDEN"); u && *u && std::string(u) != "0") {
        std::ofstream(path) << text.str();
        return;
    }
    std::ifstream in(path);
    ASSERT_TRUE(in) << path << " is missing; KILN_UPDATE_GOLDEN=1 writes it";
    std::stringstream want;
    want << in.rdbuf();
    EXPECT_EQ(text.str(), want.str()) << "the middle end's output changed; if intended, rerun with KILN_UPDATE_GOLDEN=1 and review the diff";
}

template <class... A> std::vector<detail::Arg> args_of(A&&... a) {
    std::vector<detail::Arg> v;
    (v.push_back(detail::to_arg(a)), ...);
    return v;
}

TEST(PassGolden, Softmax) {
    Tensor<bf16> x({64, 4096}), y({64, 4096});
    auto args = args_of(std::as_const(x).view(), y.view());
    for (auto t : {passes::TargetKind::interp, passes::TargetKind::cpu, passes::TargetKind::cuda}) check_golden("softmax", softmax(), args, t);
}

TEST(PassGolden, GemmWithBias) {
    Tensor<bf16> a({256, 128}), b({128, 256}), bias({256}), c({256, 256});
    auto args = args_of(std::as_const(a).view(), std::as_const(b).view(), std::as_const(bias).view(), c.view());
    for (auto t : {passes::TargetKind::cpu, passes::TargetKind::cuda}) check_golden("gemm_bias", gemm_bias(), args, t);
}

TEST(PassGolden, PipelinedLoads) {
    Tensor<f32> x({16, 64}), z({20, 64}), y({4, 64});
    auto args = args_of(std::as_const(x).view(), std::as_const(z).view(), std::int64_t{2}, y.view());
    check_golden("pipelined_sum", pipelined_sum(), args, passes::TargetKind::cuda);
}

TEST(PassGolden, UnknownPassIsNamedWithTheTargetsPasses) {
    Tensor<bf16> x({4, 64}), y({4, 64});
    auto args = args_of(std::as_const(x).view(), y.view());
    auto program = detail::specialize(*softmax().shared_impl(), args, Loc::here());
    passes::LowerOptions o;
    o.target = passes::TargetKind::cpu;
    try {
        passes::lower(*program, o, "cuda_layout");
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "no pass 'cuda_layout' for the cpu target; its passes are dce, host_scalars, index_width, contraction");
    }
}

}  // namespace
}  // namespace kiln
