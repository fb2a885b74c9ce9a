// The CUDA target: emits CUDA C++ from the Tile IR, compiles it with NVRTC for
// the device's architecture (sm_90a offline), caches it, and launches one CTA per
// program instance through the driver API. See emit.h for the execution model.
#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

#include "ir/attrs.h"
#include "ir/axis_names.h"
#include "passes/host_scalars.h"
#include "support/environment.h"
#include "support/warnings.h"
#include "targets/cuda/driver.h"
#include "targets/cuda/gemm_staging.h"
#include "targets/cuda/kernel_cache.h"
#include "targets/cuda/launch_args.h"
#include "targets/cuda/nvrtc.h"
#include "targets/cuda/nvtx_range.h"
#include "targets/cuda/occupancy.h"
#include "targets/cuda/stream_state.h"
#include "targets/common/target_impl.h"

namespace kiln::detail {

namespace {

// `kiln plan` without a device shows the GEMM schedule an H200 would get.
constexpr int kOfflineMultiprocessors = 132;

// Whether a launch over `args` runs another variant of the GEMM kernel g than the
// one compiled under `o`: then `o` is updated to ask for it.
bool gemm_variant_for_launch(const ir::Program& p, const std::vector<Arg>& args, const cu::GemmKernel& g, cu::EmitOptions& o, const cu::Device* d) {
    if (g.entry.empty()) return false;
    const cu::GemmChoice c = cu::gemm_launch_choice(p, args, g, d ? d->multiprocessors : kOfflineMultiprocessors);
    if (c.tile.bm == g.bm && c.tile.bn == g.bn && c.split_k == g.split_k && c.cluster == g.cluster && c.cp_async == g.cp_async && c.flipped == g.flipped)
        return false;
    o.gemm_bm = c.tile.bm;
    o.gemm_bn = c.tile.bn;
    o.gemm_split_k = c.split_k;
    o.gemm_cluster = c.cluster;
    o.gemm_cp_async = c.cp_async;
    o.gemm_flipped = c.flipped;
    return true;
}

// The kernel a launch of `p` over `args` runs (and `kiln plan` describes): compiled
// under `o`, or, for a GEMM launched at another tile than the program's
// (gemm_schedule.h: launch_tile: small M, idle multiprocessors, narrow tiles on a
// large problem), its variant at that tile (emit.h: gemm_bm, gemm_bn), with
// split-K's code where the schedule splits there (gemm_split_k), in clusters of 2
// where asked for and possible (gemm_cluster), `o` updated to match.
// The choice is made before anything is compiled: from the kernel this process or
// the program index already has, else from the emitter's description alone
// (probe_kernel), so that a cold launch compiles only the kernel it runs; the
// variant is then also recorded as the kernel of the launch's options
// (alias_kernel), which a later launch finds without emitting.
std::shared_ptr<const cu::CompiledKernel> kernel_for_launch(const ir::Program& p, const std::vector<Arg>& args, cu::EmitOptions& o,
                                                            const cu::Device* d, bool need_text, Loc loc = {}) {
    auto k = cu::probe_kernel(p, o, d, need_text, loc);
    const cu::EmitOptions asked = o;
    if (gemm_variant_for_launch(p, args, k->kernel.gemm, o, d)) {
        auto variant = cu::compiled_kernel(p, o, d, need_text, loc);
        if (!k->compiled) cu::alias_kernel(p, asked, d, variant);
        return variant;
    }
    return k->compiled ? k : cu::compiled_kernel(p, o, d, need_text, loc);
}

// Says, once per program and reason, that a launch its Hopper kernel (`which`)
// refused runs on the generic kernel instead.
void warn_fallback(const ir::Program& p, Loc loc, const char* which, const std::string& refused) {
    const std::string where = loc.known() ? loc.str() + ": " : "";
    support::warn_once("cuda fallback " + p.name + ": " + refused,
                       where + "kernel '" + p.name + "': the " + which + " kernel refused this launch (" + refused +
                           "); the generic kernel runs it, much slower");
}

// After cuLaunchKernel: on a stream the launch is recorded (a failure surfaces at
// the next synchronisation, naming it); without one the launch is waited for.
void finish(const cu::Device& d, const ir::Program& p, Loc loc, cu::CUresult launched, StreamState* stream) {
    if (stream) {
        if (launched != cu::CUDA_SUCCESS) stream->check(launched, "launching kernel '" + p.name + "'", loc);
        stream->record(p.name, loc);
        return;
    }
    if (launched != cu::CUDA_SUCCESS) fail(loc, "cuda", "launching kernel '" + p.name + "': " + cu::error_text(d, launched));
    if (cu::CUresult r = d.api.cuCtxSynchronize(); r != cu::CUDA_SUCCESS)
        fail(loc, "cuda", "kernel '" + p.name + "' failed: " + cu::error_text(d, r));
}

// The ordinary kernel's launch, its context current.
void enqueue(const cu::Device& d, const ir::Program& p, const cu::CompiledKernel& k, unsigned grid, StreamState* stream,
             const std::vector<Arg>& args, Loc loc) {
    cu::InlineParams params;
    params.pack(p, args);
    finish(d, p, loc,
           d.api.cuLaunchKernel(k.function, grid, 1, 1, static_cast<unsigned>(k.kernel.threads), 1, 1,
                                static_cast<unsigned>(k.kernel.shared_bytes), stream ? stream->handle : nullptr, params.pointers(), nullptr),
           stream);
}

class PreparedCudaLaunch final : public PreparedLaunch {
public:
    PreparedCudaLaunch(std::shared_ptr<const ir::Program> p, std::shared_ptr<const cu::CompiledKernel> k, const cu::Device& d, unsigned grid,
                       std::shared_ptr<StreamState> stream)
        : program_(std::move(p)), kernel_(std::move(k)), device_(d), grid_(grid), stream_(std::move(stream)) {}
    void launch(const std::vector<Arg>& args, Loc loc) override {
        cu::make_current(device_);
        cu::NvtxRange range(program_->name.c_str());
        enqueue(device_, *program_, *kernel_, grid_, stream_.get(), args, loc);
    }

private:
    std::shared_ptr<const ir::Program> program_;
    std::shared_ptr<const cu::CompiledKernel> kernel_;
    const cu::Device& device_;  // devices live as long as the process
    unsigned grid_;
    std::shared_ptr<StreamState> stream_;
};

class CudaTarget final : public TargetImpl {
public:
    CudaTarget(int ordinal, std::shared_ptr<StreamState> stream) : ordinal_(ordinal), stream_(std::move(stream)) {}
    const std::string& name() const override { return name_; }
    Device device() const override { return Device::cuda; }
    Placement placement() const override { return Placement{Device::cuda, ordinal_, stream_}; }

    // A device is all a launch needs: a kernel the cache holds runs without NVRTC
    // (a cache shipped from a machine that has it); one it lacks says, at its
    // launch, that it cannot be compiled here.
    std::string unavailable_reason() const override {
        std::string why;
        if (!cu::device_at(ordinal_, &why)) return why;
        return {};
    }

    void run(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, Loc loc) override {
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (!args[i].is_view) continue;
            if (args[i].device != Device::cuda)
                fail(loc, "launch", "kernel '" + p.name + "' argument " + std::to_string(i) +
                                        " is in host memory; the cuda target runs on device memory (copy it with .to(cuda()))");
            if (args[i].ordinal != ordinal_)
                fail(loc, "launch", "kernel '" + p.name + "' argument " + std::to_string(i) + " is on CUDA device " +
                                        std::to_string(args[i].ordinal) + ", the target on device " + std::to_string(ordinal_));
        }
        const cu::Device* dp = cu::device_at(ordinal_);
        if (!dp) cu::require_device(ordinal_, "kernel '" + p.name + "'");  // throws, saying why
        const cu::Device& d = *dp;
        auto o = cu::emit_options(args, opts);
        auto k = kernel_for_launch(p, args, o, &d, /*need_text=*/false, loc);
        std::int64_t instances = passes::grid_instances(p, args);
        if (instances == 0) return;
        cu::make_current(d);
        cu::NvtxRange range(p.name.c_str());
        // Why a specialised kernel refused this launch, for an error compiling the fallback.
        std::string refused;
        // The Hopper GEMM kernel when the program has one and these views suit TMA (emit_gemm.h).
        if (k->gemm_function) {
            cu::CUstream stream = stream_ ? stream_->handle : nullptr;
            cu::GemmStaging staging(d, stream, cu::CopyKernels::shared_modules);
            if (auto g = cu::gemm_launch(p, args, k->kernel.gemm, d, staging, &refused)) {
                const cu::GemmKernel& gk = k->kernel.gemm;
                finish(d, p, loc,
                       d.api.cuLaunchKernel(k->gemm_function, g->ctas, 1, 1, static_cast<unsigned>(gk.threads), 1, 1,
                                            static_cast<unsigned>(gk.shared_bytes), stream, g->pointers.data(), nullptr),
                       stream_.get());
                return;
            }
        }
        // The FlashAttention kernel likewise (emit_attention.h).
        if (k->attention_function) {
            if (auto a = cu::attention_launch(p, args, k->kernel.attention, d, stream_ ? stream_->handle : nullptr, &refused)) {
                const cu::AttentionKernel& ak = k->kernel.attention;
                finish(d, p, loc,
                       d.api.cuLaunchKernel(k->attention_function, a->ctas, 1, 1, static_cast<unsigned>(ak.threads), 1, 1,
                                            static_cast<unsigned>(ak.shared_bytes), stream_ ? stream_->handle : nullptr, a->pointers.data(), nullptr),
                       stream_.get());
                return;
            }
        }
        // Refused by the specialised kernel (or none): the generic kernel, compiled
        // into the module now if the first compile left it out (EmitOptions::generic_kernel).
        // A refusal costs 10-50x, so it is said (once per program and reason): `kiln plan`
        // sees the program and the views' shapes, not what the driver refuses at launch
        // (a tensor map it will not encode, a staging buffer it cannot allocate).
        if (!refused.empty()) warn_fallback(p, loc, k->attention_function ? "FlashAttention" : "GEMM", refused);
        if (!k->function) {
            o.generic_kernel = true;
            try {
                k = kernel_for_launch(p, args, o, &d, /*need_text=*/false, loc);
            } catch (const Error& e) {
                // Say why the fallback was needed at all (a program the specialised kernel
                // takes may stage more than the generic kernel can: a 256-key block).
                const char* which = k->attention_function ? "FlashAttention" : "GEMM";
                throw Error(e.loc(), "", e.detail() + " (the generic kernel, needed because the " + which + " kernel refused this launch: " + refused + ")");
            }
        }
        enqueue(d, p, *k, cu::grid_ctas(instances, *k, d), stream_.get(), args, loc);
    }

    // The launch without the lookups, for arguments of these shapes. A kernel with
    // a Hopper GEMM or attention kernel keeps none: whether TMA can read the operands depends on their
    // addresses, so each launch decides.
    std::shared_ptr<PreparedLaunch> prepare_launch(std::shared_ptr<const ir::Program> p, const std::vector<Arg>& args,
                                                   const CompileOptions& opts) override {
        const cu::Device* d = cu::device_at(ordinal_);
        if (!d) return nullptr;
        auto k = cu::compiled_kernel(*p, cu::emit_options(args, opts), d);
        const std::int64_t instances = passes::grid_instances(*p, args);
        if (k->gemm_function || k->attention_function || !k->function || instances == 0) return nullptr;
        const unsigned grid = cu::grid_ctas(instances, *k, *d);
        return std::make_shared<PreparedCudaLaunch>(std::move(p), std::move(k), *d, grid, stream_);
    }

    // With no device, compiles offline for sm_90a (the disk cache keeps it for a Hopper machine sharing the cache).
    void prepare(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, Loc loc) override {
        cu::compiled_kernel(p, cu::emit_options(args, opts), cu::device_at(ordinal_), /*need_text=*/false, loc);
    }

    std::string source(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, bool assembly) override {
        // The kernel a launch over these arguments runs (a GEMM may run a variant of the program's).
        const cu::Device* d = cu::device_at(ordinal_);
        auto o = cu::emit_options(args, opts);
        if (!assembly) {
            cu::EmittedKernel e = cu::emit_kernel(p, o);
            return gemm_variant_for_launch(p, args, e.gemm, o, d) ? cu::emit_kernel(p, o).source : e.source;
        }
        auto k = kernel_for_launch(p, args, o, d, /*need_text=*/true);
        std::string ptx = cu::kernel_ptx(*k);
        if (ptx.empty()) throw Error("cuda: the PTX of kernel '" + p.name + "' is no longer in the cache (" + k->key.substr(0, 16) + "); run again");
        return ptx;
    }

    std::string plan(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts) override {
        const cu::Device* d = cu::device_at(ordinal_);
        auto o = cu::emit_options(args, opts);
        auto k = kernel_for_launch(p, args, o, d, /*need_text=*/true);
        std::ostringstream s;
        s << "target cuda: kernel " << p.name << " for " << k->arch << (d ? " (" + d->name + ")" : " (compiled offline: no device)")
          << ", " << precision_name(opts.precision) << " precision, " << (o.index64 ? 64 : 32)
          << "-bit offsets\n";
        if (stream_) s << "  launches: enqueued on stream " << static_cast<const void*>(stream_->handle) << " of device " << ordinal_
                       << " without waiting (a failure is reported at the stream's next synchronisation)\n";
        else s << "  launches: on device " << ordinal_ << ", each waited for (a failure is reported at its launch)\n";
        const std::int64_t instances = passes::grid_instances(p, args), per_cta = std::max(1, k->kernel.instances_per_cta);
        std::string nest;
        if (p.grid) {
            nest = " of [";
            for (int a = 0; a < ir::loop_rank(*p.grid); ++a)
                nest += (a ? ", " : "") + ir::axis_name(static_cast<int>(ir::loop_axes(*p.grid)[static_cast<std::size_t>(a)]));
            nest += "]";
        }
        // The generic kernel (the lines up to its registers): with a specialised kernel
        // it is only the fallback, and may not be compiled yet (EmitOptions::generic_kernel).
        if (!k->kernel.generic)
            s << "  generic kernel (the fallback of launches the " << (k->kernel.gemm.entry.empty() ? "attention" : "GEMM")
              << " kernel refuses: views TMA cannot read): not in this module until a launch needs it\n";
        if (k->kernel.cluster > 1)
            s << "  grid: " << instances * k->kernel.cluster << " CTAs (a cluster of " << k->kernel.cluster << " per program instance" << nest
              << ": a row too wide for one CTA), " << k->kernel.threads << " threads each";
        else if (per_cta == 1)
            s << "  grid: " << instances << " CTAs (one per program instance" << nest << "), " << k->kernel.threads << " threads each";
        else
            s << "  grid: " << (instances + per_cta - 1) / per_cta << " CTAs (" << per_cta << " program instances" << nest << " each, "
              << k->kernel.threads / per_cta << " threads per instance), " << k->kernel.threads << " threads each";
        s << ", serial and pipeline nests as loops inside\n";
        if (cu::max_ctas() > 0) s << "  grid capped at " << cu::max_ctas() << " CTAs by KILN_CUDA_MAX_CTAS: each CTA runs its instances in turn\n";
        if (k->kernel.persistent) {
            // The launch keeps the grid to the CTAs that fit at once (occupancy.h).
            s << "  persistent: ";
            if (d && k->kernel.cluster > 1)
                s << "launched as " << cu::grid_ctas(instances, *k, *d) << " CTAs (clusters of " << k->kernel.cluster << ", "
                  << (k->active_clusters > 0 ? "as many as fit at once: " + std::to_string(k->active_clusters) : std::string("the driver does not say how many fit"))
                  << "), ";
            else if (d) s << "launched as " << cu::grid_ctas(instances, *k, *d) << " CTAs (at most " << cu::resident_ctas(*k, *d) << " per SM x " << d->multiprocessors << " SMs), ";
            else s << "launched as at most the " << (k->kernel.cluster > 1 ? "clusters" : "CTAs") << " that fit on the device at once, ";
            s << "each running its instances in turn with loads issued before their instance (grid_prefetch)\n";
        }
        if (!k->kernel.packing_why.empty()) s << "  one instance per CTA: " << k->kernel.packing_why << "\n";
        if (!k->kernel.aligned_slots.empty()) s << "  " << k->kernel.aligned_slots << "\n";
        // Why rows move in narrower pieces than 16-byte vectors (the values' lines say how), and what would let them.
        for (const std::string& note : cu::misaligned_row_notes(args, p.params))
            s << "  rows off 16-byte boundaries: " << note << "\n";
        s << "  shared memory: " << k->kernel.shared_bytes << " bytes dynamic"
          << (k->kernel.shared_site.empty() ? "" : " (most for " + k->kernel.shared_site + ")") << "\n";
        // (Not compiled yet, the generic kernel has no resources: said above.)
        if (k->kernel.generic && k->resources.known)
            s << "  registers: " << k->resources.registers << " per thread; stack " << k->resources.stack_bytes << " bytes; spills "
              << k->resources.spill_store_bytes << " bytes stored, " << k->resources.spill_load_bytes << " bytes loaded"
              << (k->kernel.min_ctas > 1 ? "; capped for " + std::to_string(k->kernel.min_ctas) + " resident CTAs per SM" : "") << "\n";
        else if (k->kernel.generic) {
            // Not expected (NVRTC runs with --ptxas-options=-v): said with what would explain
            // it, for the flaky plans of bench/results/gpu-20261203-s14 (a second process compiling).
            std::string head = k->log.substr(0, 80);
            std::replace(head.begin(), head.end(), '\n', ' ');
            s << "  no ptxas report: the kernel's NVRTC log of " << k->log.size() << " bytes" << (head.empty() ? "" : " begins \"" + head + "\"")
              << "; cubin of " << k->cubin.size() << " bytes; " << (k->compiled ? "compiled" : "not compiled") << ", "
              << (k->from_disk ? "from the disk cache" : "not from the disk cache") << "; " << cu::nvrtc_compiles()
              << " NVRTC compiles in this process\n";
        }
        // What the compile gave up because ptxas spilled (kernel_cache.cpp's spill feedback).
        if (!k->spill_feedback.empty()) {
            s << "  fitted to the registers by recompiling:\n";
            for (const auto& step : k->spill_feedback) s << "    " << step << "\n";
        }
        // The one reason a kernel whose values all have register layouts still leaves
        // the fast path: they do not fit (a row wider than a cluster of 8 CTAs' registers
        // hold, or one that cannot span a cluster: cuda_layout.h says when).
        if (k->resources.known && k->resources.spill_store_bytes + k->resources.spill_load_bytes > 0 && !k->kept_spills())
            s << "  not register-resident: the values a thread holds exceed the registers of a " << k->kernel.threads << "-thread CTA"
              << (k->kernel.cluster > 1 ? " in a cluster of " + std::to_string(k->kernel.cluster) : "")
              << ", and ptxas spills them to local memory (a row spans a cluster of CTAs only in standard precision, with every op in "
                 "registers and every reduction along the rows; at most 8 CTAs)\n";
        if (!k->kernel.gemm.entry.empty()) {
            const auto& r = k->gemm_resources;
            s << "  lowering: " << k->kernel.gemm.describe() << "\n";
            // The work division these shapes get (gemm_schedule.h), as the launch computes
            // it; or why these arguments take the ordinary kernel instead (a mask hiding
            // elements inside its view, a 1-D grid that is not whole rows of tiles).
            std::string refused;
            if (auto pr = cu::gemm_problem(p, args, k->kernel.gemm, &refused)) {
                const auto& g = k->kernel.gemm;
                s << "  GEMM schedule: "
                  << cu::schedule_gemm(pr->rows, pr->cols, pr->depth, g.bm, g.bn, g.bk, d ? d->multiprocessors : kOfflineMultiprocessors, g.split_k,
                                       g.cluster)
                         .describe()
                  << (g.batched ? " per batch, " + std::to_string(pr->batches) + " batch(es) (units of a batch and a tile)" : "")
                  << (d ? "" : " (for an H200's " + std::to_string(kOfflineMultiprocessors) + " multiprocessors: no device)");
                // Why a launch runs on lone CTAs rather than pairs sharing B (gemm_schedule.h: launch_cluster).
                std::string lone;
                if (g.cluster == 1 &&
                    cu::launch_cluster(pr->rows, pr->cols, pr->depth, g.bm, g.bn, g.bk, d ? d->multiprocessors : kOfflineMultiprocessors, &lone) == 1)
                    s << "; lone CTAs, not clusters of 2: " << lone;
                s << "\n";
                // How each operand reaches TMA, as the launch decides it (with the shared packing kernel).
                const auto operands = cu::gemm_operands(*pr, args, g, /*can_pack=*/true);
                s << "  GEMM operands: A " << operands[0].route.why << "; B " << operands[1].route.why << "\n";
            } else {
                s << "  GEMM kernel not taken by these arguments: " << refused << "; the ordinary kernel runs them\n";
            }
            if (r.known)
                s << "  registers (GEMM kernel): " << r.registers << " per thread; stack " << r.stack_bytes << " bytes; spills "
                  << r.spill_store_bytes << " bytes stored, " << r.spill_load_bytes << " bytes loaded\n";
        }
        if (!k->kernel.attention.entry.empty()) {
            const auto& r = k->attention_resources;
            s << "  lowering: " << k->kernel.attention.describe() << "\n";
            if (r.known)
                s << "  registers (attention kernel): " << r.registers << " per thread; stack " << r.stack_bytes << " bytes; spills "
                  << r.spill_store_bytes << " bytes stored, " << r.spill_load_bytes << " bytes loaded\n";
        }
        if (!k->kernel.contractions.empty()) {
            s << "  contractions:\n";
            for (const auto& line : k->kernel.contractions) s << "    " << line << "\n";
        }
        s << "  tensor-core instructions: " << cu::tensor_core_instructions(*k) << " (mma ops on tensor cores: " << k->kernel.tensor_core_mmas
          << ")\n";
        s << "  cache: " << (k->from_disk ? "hit" : "compiled") << " " << k->key.substr(0, 16) << "\n";
        if (!k->source_override.empty()) s << "  source: " << k->source_override << ", in place of the generated one (KILN_CUDA_SOURCE_DIR)\n";
        s << "  values:\n";
        for (const auto& v : k->kernel.values) s << "    " << v << "\n";
        return s.str();
    }

    // The device's time, from events on the target's stream around the launch;
    // the L2 is flushed by writing a buffer larger than it on the same stream.
    double time_launch(const std::function<void()>& launch, bool flush_l2) override {
        const cu::Device& d = cu::require_device(ordinal_, "bench");
        cu::make_current(d);
        cu::CUstream s = stream_ ? stream_->handle : nullptr;
        if (flush_l2) {
            static std::mutex mutex;
            static std::map<int, cu::CUdeviceptr> scratch;  // per device, kept for the process
            constexpr std::size_t kBytes = std::size_t{256} << 20;
            std::lock_guard<std::mutex> g(mutex);
            cu::CUdeviceptr& p = scratch[ordinal_];
            if (!p) cu::check(d, d.api.cuMemAlloc(&p, kBytes), "bench: the L2 flush buffer");
            cu::check(d, d.api.cuMemsetD8Async(p, 0, kBytes, s), "bench: flushing L2");
        }
        cu::CUevent start = nullptr, end = nullptr;
        cu::check(d, d.api.cuEventCreate(&start, cu::CU_EVENT_DEFAULT), "bench: cuEventCreate");
        cu::check(d, d.api.cuEventCreate(&end, cu::CU_EVENT_DEFAULT), "bench: cuEventCreate");
        struct Destroy {
            const cu::Device& d;
            cu::CUevent a, b;
            ~Destroy() {
                d.api.cuEventDestroy(a);
                d.api.cuEventDestroy(b);
            }
        } destroy{d, start, end};
        cu::check(d, d.api.cuEventRecord(start, s), "bench: cuEventRecord");
        launch();
        cu::check(d, d.api.cuEventRecord(end, s), "bench: cuEventRecord");
        if (stream_) stream_->check(d.api.cuEventSynchronize(end), "a kernel failed", {});
        else cu::check(d, d.api.cuEventSynchronize(end), "bench: cuEventSynchronize");
        float ms = 0;
        cu::check(d, d.api.cuEventElapsedTime(&ms, start, end), "bench: cuEventElapsedTime");
        return ms * 1e-3;
    }

private:
    // After cuLaunchKernel: on a stream, the launch is recorded and not waited for
    // (a failure surfaces at the stream's next synchronisation, StreamState names
    // it); without one, it is waited for, so a fault is reported at its own launch.
    std::string name_ = "cuda";
    int ordinal_ = 0;
    std::shared_ptr<StreamState> stream_;  // null: synchronous launches on the legacy default stream
};

}  // namespace

std::shared_ptr<TargetImpl> make_cuda_target(int ordinal, std::shared_ptr<StreamState> stream) {
    return std::make_shared<CudaTarget>(ordinal, std::move(stream));
}

}  // namespace kiln::detail
