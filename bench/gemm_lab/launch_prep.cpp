// Host work per launch of the Hopper GEMM path, piece by piece, for the bench's
// bf16 4096^3 GEMM (tile 128x256x64). Nothing runs on the device: the views hold
// fake, aligned device addresses that nothing dereferences. With a CUDA driver the
// encode row times the real cuTensorMapEncodeTiled; without one, a stand-in that
// copies its arguments (so the cache rows still count encodes).
//
// Build and run from the repository root against a kiln build directory B:
//   g++ -std=c++20 -O2 -Wno-comma-subscript -Isrc -Iinclude -Ilib bench/gemm_lab/launch_prep.cpp B/libkiln.a -lcrypto -ldl -lpthread -o /tmp/launch_prep
//   /tmp/launch_prep
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include <kiln/kiln.h>

#include "ir/ir.h"
#include "passes/host_scalars.h"
#include "targets/cuda/emit_gemm.h"
#include "targets/cuda/kernel_cache.h"
#include "targets/cuda/launch_args.h"
#include "targets/cuda/tensor_map_cache.h"
#include "trace/kernel_trace.h"

using namespace kiln;

namespace {

cu::CUresult stand_in_encode(void* map, int, unsigned, void* base, const std::uint64_t* dims, const std::uint64_t* strides,
                             const unsigned* box, const unsigned*, int, int, int, int) {
    auto* w = static_cast<std::uint64_t*>(map);
    std::memset(w, 0, 128);
    w[0] = reinterpret_cast<std::uintptr_t>(base);
    w[1] = dims[0];
    w[2] = dims[1];
    w[3] = strides[0];
    w[4] = std::uint64_t{box[0]} << 32 | box[1];
    return 0;
}

Kernel bench_gemm() {
    return kernel("bench_gemm_bf16", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent(0), 128)), gn = axis("block_n", ceil_div(B.extent(1), 256));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), 64));
        auto m = axis("m", 128), n = axis("n", 256), k = axis("k", 64);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 256;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 2})) {
                auto k0 = step.index() * 64;
                acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
            }
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        }
    });
}

// The median over 9 rounds of the mean time per call in a round of n calls.
template <class F> double ns_per_call(F&& f, int n) {
    for (int i = 0; i < n / 10 + 1; ++i) f();
    std::vector<double> rounds;
    for (int r = 0; r < 9; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) f();
        rounds.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n);
    }
    std::nth_element(rounds.begin(), rounds.begin() + 4, rounds.end());
    return rounds[4];
}

}  // namespace

int main() {
    const std::int64_t S = 4096;
    auto fake = [](std::uintptr_t a) { return reinterpret_cast<bf16*>(a); };
    HostView<const bf16> A{fake(0x7f0000000000), {S, S}, {S, 1}, Device::cuda}, B{fake(0x7f1000000000), {S, S}, {S, 1}, Device::cuda};
    HostView<bf16> C{fake(0x7f2000000000), {S, S}, {S, 1}, Device::cuda};
    std::vector<detail::Arg> args{detail::to_arg(A), detail::to_arg(B), detail::to_arg(C)};
    auto program = detail::specialize(*bench_gemm().shared_impl(), args, Loc::here());
    const ir::Program& p = *program;
    const cu::EmitOptions o;
    const cu::GemmKernel g = cu::emit_kernel(p, o).gemm;
    if (g.entry.empty()) {
        std::puts("the program did not lower to the GEMM kernel");
        return 1;
    }
    std::string why;
    const cu::Device* real = cu::device(&why);
    cu::Device stand_in;
    stand_in.api.cuTensorMapEncodeTiled = &stand_in_encode;
    stand_in.multiprocessors = 132;
    const cu::Device& d = real && real->api.cuTensorMapEncodeTiled ? *real : stand_in;
    std::printf("encoder: %s\n", &d == real ? "the driver's cuTensorMapEncodeTiled" : ("a stand-in (" + why + ")").c_str());

    // The arguments gemm_launch passes for A (tensor_map_cache.h), encoded directly.
    cu::TensorMap map;
    const std::uint64_t dims[2] = {S, S}, strides[1] = {S * 2};
    const unsigned box[2] = {64, static_cast<unsigned>(g.bm)}, unit[2] = {1, 1};
    auto encode = [&] {
        if (d.api.cuTensorMapEncodeTiled(map.words, cu::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<bf16*>(A.data), dims, strides, box, unit,
                                         cu::CU_TENSOR_MAP_INTERLEAVE_NONE, cu::CU_TENSOR_MAP_SWIZZLE_128B, cu::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                         cu::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != cu::CUDA_SUCCESS)
            std::abort();
    };
    const int n = 2000;
    const auto before = cu::tensor_map_cache().counts();
    double launch = ns_per_call([&] { if (!cu::gemm_launch(p, args, g, d)) std::abort(); }, n);
    const auto after = cu::tensor_map_cache().counts();
    std::printf("%-58s %9.0f ns\n", "cuTensorMapEncodeTiled, one map", ns_per_call(encode, n));
    std::printf("%-58s %9.0f ns\n", "gemm_launch, maps cached (every launch but the first)", launch);
    std::printf("%-58s %9llu / %llu\n", "  tensor maps encoded / reused in those launches",
                static_cast<unsigned long long>(after.encodes - before.encodes), static_cast<unsigned long long>(after.hits - before.hits));
    std::printf("%-58s %9.0f ns\n", "match_gemm (no longer per launch)", ns_per_call([&] { if (!cu::match_gemm(p, o)) std::abort(); }, n));
    std::printf("%-58s %9.0f ns\n", "grid_instances (every cuda launch)",
                ns_per_call([&] { if (passes::grid_instances(p, args) <= 0) std::abort(); }, n));
    std::printf("%-58s %9.0f ns\n", "ir::structural_hash (the in-memory kernel key before)",
                ns_per_call([&] { if (ir::structural_hash(p) == 0) std::abort(); }, n));
    // The compiled-kernel lookup every launch makes (kernel_cache.h), once warm.
    const cu::Device* dev = &d == real ? real : nullptr;
    try {
        cu::compiled_kernel(p, o, dev);
        std::printf("%-58s %9.0f ns\n", "compiled_kernel, warm (every cuda launch)",
                    ns_per_call([&] { if (!cu::compiled_kernel(p, o, dev)) std::abort(); }, n));
    } catch (const Error& e) {
        std::printf("%-58s %s\n", "compiled_kernel, warm (every cuda launch)", e.what());
    }
}
