// The Metal target: each program is emitted as Metal Shading Language
// (emit_msl.h) in the lowering the contraction pass chose, and run by the best
// engine here. On Linux there is no Metal device: the engine is kiln's shim,
// which compiles the MSL itself with the host compiler (shim_module.h) and runs
// its threadgroups on the launcher threads, bit-exact with the interpreter. On a
// Mac, `kiln metal-harness` writes a folder that runs a kernel on the GPU.
#include <algorithm>
#include <climits>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "cache/disk_cache.h"
#include "ir/attrs.h"
#include "ir/axis_names.h"
#include "passes/host_scalars.h"
#include "passes/index_width.h"
#include "support/environment.h"
#include "targets/common/dump.h"
#include "targets/common/shared_objects.h"
#include "targets/common/target_impl.h"
#include "targets/common/thread_pool.h"
#include "targets/metal/launch_block.h"
#include "targets/metal/metal_target.h"
#include "targets/metal/shim_batch.h"
#include "targets/metal/shim_module.h"

namespace kiln::mtl {

EmitOptions emit_options(const std::vector<detail::Arg>& args, const CompileOptions& opts) {
    EmitOptions o;
    o.index64 = opts.index_width == IndexWidth::wide || passes::needs_64bit_offsets(args);  // as cpu and cuda
    o.exact = opts.precision == Precision::exact;
    o.thread_only = support::env_choice("KILN_METAL_LOWERING", {"auto", "thread"}).value_or("auto") == "thread";
    return o;
}

std::string engine_description() {
#if defined(__APPLE__)
    return "kiln's C++ shim (kiln dispatches to no Metal device yet; `kiln metal-harness` runs a kernel on this Mac's GPU)";
#else
    return "kiln's C++ shim: the MSL compiled as C++ by the host compiler (no Metal device: this machine is not a Mac)";
#endif
}

}  // namespace kiln::mtl

namespace kiln::detail {

namespace {

using mtl::Emitted;
using mtl::EmitOptions;

struct Compiled {
    EmitOptions options;
    Emitted kernel;
    mtl::ShimModule module;
};

bool same(const EmitOptions& a, const EmitOptions& b) { return a.index64 == b.index64 && a.exact == b.exact && a.thread_only == b.thread_only; }

class MetalTarget final : public TargetImpl {
public:
    const std::string& name() const override { return name_; }

    std::string unavailable_reason() const override {
        std::string why;
        if (!native::host_compiler(&why))
            return "the metal target runs kernels through kiln's C++ shim (there is no Metal device here), which needs a host C++ compiler: " + why;
        return {};
    }

    void run(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, Loc) override {
        for (const Arg& a : args)
            if (a.is_view && a.device != Device::host)
                fail(p.loc, "metal", "kernel '" + p.name + "': the metal target runs on host memory (unified memory on a Mac); copy device tensors back with .to(host())");
        const std::int64_t instances = passes::grid_instances(p, args);
        auto c = compiled(p, mtl::emit_options(args, opts));
        if (instances == 0) return;
        const std::vector<std::int64_t> block = mtl::launch_block(p, args, instances);
        std::vector<void*> buffers(args.size(), nullptr);
        for (std::size_t k = 0; k < args.size(); ++k)
            if (args[k].is_view) buffers[k] = args[k].data;
        const std::int64_t groups = mtl::dispatch_groups(c->kernel.simdgroup, c->kernel.threads_per_group, instances);
        // Threadgroups in chunks over the launcher threads; each thread's stack (per-thread
        // lowering) or each fiber's (simdgroup) holds a thread's private tiles.
        const long stack = static_cast<long>(mtl::shim_stack_bytes(c->kernel));
        const int threads = native::launch_threads();
        const std::int64_t chunks = std::max<std::int64_t>(1, std::min<std::int64_t>(groups, std::int64_t{threads} * 4));
        const std::int64_t per = (groups + chunks - 1) / chunks;
        std::vector<std::string> errors(static_cast<std::size_t>(chunks));
        auto task = [&](std::int64_t t) {
            const std::int64_t begin = t * per, end = std::min(groups, begin + per);
            if (begin >= end) return;
            char error[512] = {0};
            if (c->module.run(buffers.data(), reinterpret_cast<const long*>(block.data()), static_cast<long>(begin), static_cast<long>(end),
                              static_cast<long>(groups), stack, error, sizeof error) != 0)
                errors[static_cast<std::size_t>(t)] = error;
        };
        const std::size_t worker_stack = static_cast<std::size_t>(std::max<std::int64_t>(8 << 20, 4 * c->kernel.private_bytes + (4 << 20)));
        native::run_tasks(chunks, threads, worker_stack, c->kernel.private_bytes <= (1 << 20), task);
        for (const auto& e : errors)
            if (!e.empty()) internal_fail("metal shim: kernel '" + p.name + "': " + e);
    }

    std::string plan(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts) override {
        const EmitOptions o = mtl::emit_options(args, opts);
        const Emitted e = mtl::emit_msl(p, o);
        std::ostringstream s;
        s << "target metal: kernel " << p.name << " (generated Metal Shading Language, " << e.entry << ")\n";
        s << "  " << e.lowering << "\n";
        s << "  precision: " << (o.exact ? "exact" : "standard")
          << (e.simdgroup ? " (on a device the simdgroup matrices fuse and reorder each 8x8 block's sums; kiln's shim keeps the contract's order)\n"
                          : " (bit-exact with interp on the device and in the shim: ordered loops, no FMA contraction, kiln math on kf64)\n");
        std::int64_t instances = passes::grid_instances(p, args);
        s << "  grid: " << instances << " instance(s)";
        if (p.grid) {
            s << " of [";
            for (int a = 0; a < ir::loop_rank(*p.grid); ++a)
                s << (a ? ", " : "") << ir::axis_name(static_cast<int>(ir::loop_axes(*p.grid)[static_cast<std::size_t>(a)]));
            s << "]";
        }
        s << ", threadgroups of " << e.threads_per_group << " threads ("
          << (e.simdgroup ? "one simdgroup per instance" : "one instance per thread") << ")\n";
        s << "  memory: " << e.private_bytes << " bytes of private tiles per thread, " << e.threadgroup_bytes << " bytes of threadgroup memory"
          << (e.barriers ? ", barriers between ops" : "") << "\n";
        s << "  index width: " << (o.index64 ? 64 : 32) << "-bit element offsets\n";
        if (!e.contractions.empty()) {
            s << "  contractions:\n";
            for (const auto& line : e.contractions) s << "    " << line << "\n";
        }
        s << "  engine: " << mtl::engine_description() << "\n";
        return s.str();
    }

    void prepare(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, Loc) override {
        compiled(p, mtl::emit_options(args, opts));
    }
    // The programs' kernels that are in no cache yet, built by one host-compiler run
    // (shim_batch.h); each then loads by its own key when it runs.
    void prepare_batch(const std::vector<Pending>& pending) override {
        std::string why;
        const native::HostCompiler* cc = native::host_compiler(&why);
        if (!cc) return;  // the launches will say why
        const std::optional<cache::DiskCache> cache = cache::DiskCache::open_or_warn();
        const cache::DiskCache* disk = cache ? &*cache : nullptr;
        std::vector<mtl::BatchKernel> batch;
        for (const Pending& q : pending) {
            const Emitted e = mtl::emit_msl(*q.program, mtl::emit_options(*q.args, q.options));
            std::string glue_body = mtl::shim_glue_body(*q.program, e);
            std::string key = mtl::shim_key(e, mtl::shim_glue(*q.program, e), *cc);
            if (native::find_shared_object(disk, key)) continue;
            batch.push_back({std::move(key), e.source, std::move(glue_body)});
        }
        mtl::build_shim_batch(batch, *cc);
    }

    std::string source(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, bool assembly) override {
        if (assembly) fail(p.loc, "source", "the metal target shows its generated MSL; it has no assembly view here (no Metal compiler on this machine)");
        return mtl::emit_msl(p, mtl::emit_options(args, opts)).source;
    }

private:
    // One compiled kernel per program and options, kept while the program lives.
    std::shared_ptr<const Compiled> compiled(const ir::Program& p, const EmitOptions& o) {
        std::weak_ptr<const ir::Program> owner = p.weak_from_this();
        {
            std::lock_guard<std::mutex> g(mutex_);
            auto it = programs_.find(&p);
            if (it != programs_.end() && it->second.first.lock().get() == &p)
                for (auto& c : it->second.second)
                    if (same(c->options, o)) return c;
        }
        std::string why;
        const native::HostCompiler* cc = native::host_compiler(&why);
        if (!cc) fail(p.loc, "launch", "kernel '" + p.name + "': target 'metal' is not available: " + unavailable_reason());
        auto c = std::make_shared<Compiled>();
        c->options = o;
        c->kernel = mtl::emit_msl(p, o);
        c->module = mtl::shim_module(p, c->kernel, *cc);
        targets::dump_source(p.name, c->module.key, c->kernel.source, "metal");
        if (!owner.expired()) {
            std::lock_guard<std::mutex> g(mutex_);
            auto& entry = programs_[&p];
            if (entry.first.lock().get() != &p) {
                std::erase_if(programs_, [&](const auto& e) { return e.first != &p && e.second.first.expired(); });
                entry = {owner, {}};
            }
            entry.second.push_back(c);
        }
        return c;
    }

    std::string name_ = "metal";
    std::mutex mutex_;
    std::unordered_map<const ir::Program*, std::pair<std::weak_ptr<const ir::Program>, std::vector<std::shared_ptr<const Compiled>>>> programs_;
};

}  // namespace

std::shared_ptr<TargetImpl> make_metal_target() { return std::make_shared<MetalTarget>(); }

}  // namespace kiln::detail
