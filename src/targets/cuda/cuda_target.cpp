// The CUDA target: emits CUDA C++ from the Tile IR, compiles it with NVRTC for
// the device's architecture (sm_90a offline), caches it, and launches one CTA per
// program instance through the driver API. See emit.h for the execution model.
#include <algorithm>
#include <sstream>

#include "ir/attrs.h"
#include "ir/axis_names.h"
#include "passes/host_scalars.h"
#include "targets/cuda/driver.h"
#include "targets/cuda/kernel_cache.h"
#include "targets/cuda/launch_args.h"
#include "targets/cuda/nvrtc.h"
#include "targets/common/target_impl.h"

namespace kiln::detail {

namespace {

cu::EmitOptions emit_options(const std::vector<Arg>& args, const CompileOptions& opts) {
    cu::EmitOptions o;
    o.precision = opts.precision;
    o.index64 = cu::needs_64bit_offsets(args);
    return o;
}

class CudaTarget final : public TargetImpl {
public:
    const std::string& name() const override { return name_; }
    Device device() const override { return Device::cuda; }

    // Asked before every launch, so it only finds NVRTC's file: a launch whose
    // kernel is cached never loads NVRTC.
    std::string unavailable_reason() const override {
        std::string why;
        if (!cu::device(&why)) return why;
        if (cu::nvrtc_identity(&why).empty()) return why;
        return {};
    }

    void run(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, Loc loc) override {
        for (std::size_t i = 0; i < args.size(); ++i)
            if (args[i].is_view && args[i].device != Device::cuda)
                fail(loc, "launch", "kernel '" + p.name + "' argument " + std::to_string(i) +
                                        " is in host memory; the cuda target runs on device memory (copy it with .to(cuda()))");
        const cu::Device& d = cu::require_device("kernel '" + p.name + "'");
        auto k = cu::compiled_kernel(p, emit_options(args, opts), &d);
        std::int64_t instances = passes::grid_instances(p, args);
        if (instances == 0) return;
        // Instances beyond the grid's x limit are covered by the kernel's grid-stride loop.
        auto grid = static_cast<unsigned>(std::min<std::int64_t>(instances, 0x7fffffff));
        cu::make_current(d);
        // The Hopper GEMM kernel when the program has one and these views suit TMA (emit_gemm.h).
        if (k->gemm_function)
            if (auto g = cu::gemm_launch(p, args, k->kernel.gemm, d)) {
                const cu::GemmKernel& gk = k->kernel.gemm;
                cu::check(d,
                          d.api.cuLaunchKernel(k->gemm_function, g->ctas, 1, 1, static_cast<unsigned>(gk.threads), 1, 1,
                                               static_cast<unsigned>(gk.shared_bytes), nullptr, g->pointers.data(), nullptr),
                          "launching kernel '" + p.name + "' (GEMM)");
                cu::check(d, d.api.cuCtxSynchronize(), "kernel '" + p.name + "' failed");
                return;
            }
        auto params = cu::pack_params(p, args);
        cu::check(d,
                    d.api.cuLaunchKernel(k->function, grid, 1, 1, static_cast<unsigned>(k->kernel.threads), 1, 1,
                                         static_cast<unsigned>(k->kernel.shared_bytes), nullptr, params.pointers.data(), nullptr),
                    "launching kernel '" + p.name + "'");
        // Synchronous: a fault is reported at the launch that caused it.
        cu::check(d, d.api.cuCtxSynchronize(), "kernel '" + p.name + "' failed");
    }

    std::string source(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, bool assembly) override {
        auto o = emit_options(args, opts);
        if (!assembly) return cu::emit_kernel(p, o).source;
        return cu::compiled_kernel(p, o, cu::device())->ptx;
    }

    std::string plan(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts) override {
        const cu::Device* d = cu::device();
        auto o = emit_options(args, opts);
        auto k = cu::compiled_kernel(p, o, d);
        std::ostringstream s;
        s << "target cuda: kernel " << p.name << " for " << k->arch << (d ? " (" + d->name + ")" : " (compiled offline: no device)")
          << ", " << (opts.precision == Precision::exact ? "exact" : "standard") << " precision, " << (o.index64 ? 64 : 32)
          << "-bit offsets\n";
        s << "  grid: " << passes::grid_instances(p, args) << " CTAs (one per program instance";
        if (p.grid) {
            s << " of [";
            for (int a = 0; a < ir::loop_rank(*p.grid); ++a)
                s << (a ? ", " : "") << ir::axis_name(static_cast<int>(ir::loop_axes(*p.grid)[static_cast<std::size_t>(a)]));
            s << "]";
        }
        s << "), " << k->kernel.threads << " threads each, serial and pipeline nests as loops inside\n";
        s << "  shared memory: " << k->kernel.shared_bytes << " bytes dynamic"
          << (k->kernel.shared_site.empty() ? "" : " (most for " + k->kernel.shared_site + ")") << "\n";
        if (k->resources.known)
            s << "  registers: " << k->resources.registers << " per thread; stack " << k->resources.stack_bytes << " bytes; spills "
              << k->resources.spill_store_bytes << " bytes stored, " << k->resources.spill_load_bytes << " bytes loaded\n";
        if (!k->kernel.gemm.entry.empty()) {
            const auto& r = k->gemm_resources;
            s << "  lowering: " << k->kernel.gemm.describe() << "\n";
            if (r.known)
                s << "  registers (GEMM kernel): " << r.registers << " per thread; stack " << r.stack_bytes << " bytes; spills "
                  << r.spill_store_bytes << " bytes stored, " << r.spill_load_bytes << " bytes loaded\n";
        }
        if (!k->kernel.contractions.empty()) {
            s << "  contractions:\n";
            for (const auto& line : k->kernel.contractions) s << "    " << line << "\n";
        }
        s << "  tensor-core instructions: " << k->tensor_core_instructions << " (mma ops on tensor cores: " << k->kernel.tensor_core_mmas
          << ")\n";
        s << "  cache: " << (k->from_disk ? "hit" : "compiled") << " " << k->key.substr(0, 16) << "\n";
        s << "  values:\n";
        for (const auto& v : k->kernel.values) s << "    " << v << "\n";
        return s.str();
    }

private:
    std::string name_ = "cuda";
};

}  // namespace

std::shared_ptr<TargetImpl> make_cuda_target() { return std::make_shared<CudaTarget>(); }

}  // namespace kiln::detail
