// The native CPU target: each program is emitted as C++ (emit_cpp), compiled by
// the host compiler into a shared object, cached on disk and in this process,
// and its grid run on the launcher threads. Bit-exact with the interpreter.
#include <algorithm>
#include <atomic>
#include <climits>
#include <mutex>
#include <unordered_map>

#include "targets/cpu/launch_plan.h"
#include "targets/cpu/module_cache.h"
#include "targets/cpu/thread_pool.h"
#include "targets/target_impl.h"

namespace kiln::detail {

namespace {

using native::LaunchSpec;

// One program compiled for one launch specialisation.
struct Compiled {
    native::Emitted emitted;
    std::string key;
    const native::Module* module = nullptr;
};

// Compiled variants per program. Programs are shared-owned by their kernel; an
// entry whose program has died is dropped, so a new program at a recycled
// address never meets a stale variant.
struct ProgramVariants {
    std::weak_ptr<const ir::Program> program;
    std::vector<std::pair<LaunchSpec, std::shared_ptr<const Compiled>>> variants;
};

// The caller's thread runs instances itself only when their tiles fit easily in
// any thread's stack; worker stacks are sized from the kernel's frame.
constexpr std::int64_t kCallerFrameLimit = std::int64_t{1} << 20;
std::size_t worker_stack_bytes(std::int64_t frame) { return static_cast<std::size_t>(std::max<std::int64_t>(8 << 20, 4 * frame + (4 << 20))); }

// interp/run_kernel.cpp out_of_range: the same wording, so either target's
// message reads the same (a test compares them).
[[noreturn]] void out_of_range(const ir::Node& n, const kiln_cpu::Status& st, const std::vector<Arg>& args) {
    const Arg& a = args[static_cast<std::size_t>(n.i)];
    std::string at = "(", ext;
    for (std::size_t k = 0; k < a.extents.size(); ++k) {
        at += (k ? ", " : "") + std::to_string(st.coord[k]);
        ext += (k ? "x" : "") + std::to_string(a.extents[k]);
    }
    at += ")";
    std::string what = "index " + at + " is out of range for argument " + std::to_string(n.i) + " of extent " + ext;
    if (n.j == static_cast<std::int64_t>(bounds::assume)) what += " (bounds::assume was violated)";
    if (st.pid >= 0) what += " in instance " + std::to_string(st.pid);
    fail(n.loc, n.op == OpCode::load ? "load" : "store", what);
}

// The order in which the interpreter would meet an error: before the grid, then
// by instance, then after it.
std::int64_t error_order(const kiln_cpu::Status& st) {
    return st.phase == kiln_cpu::before_grid ? -1 : st.phase == kiln_cpu::in_grid ? st.pid : INT64_MAX;
}

class CpuTarget final : public TargetImpl {
public:
    const std::string& name() const override { return name_; }

    std::string unavailable_reason() const override {
        std::string why;
        native::host_compiler(&why);
        return why;
    }

    void run(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, Loc) override {
        for (const Arg& a : args)
            if (a.is_view && a.device != Device::host)
                fail(p.loc, "cpu", "kernel '" + p.name + "': the cpu target runs on host memory; copy device tensors back with .to(host())");
        auto c = compiled(p, args, opts);
        launch(*c, p, args);
    }

    std::string plan(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts) override {
        LaunchSpec spec = native::launch_spec(p, args, opts);
        native::Emitted e = native::emit_cpp(p, spec.emit);
        std::string why;
        const native::HostCompiler* cc = native::host_compiler(&why);
        return native::plan_text(p, args, spec, e, cc ? native::cache_key(e, spec, *cc) : "", cc, why);
    }

    std::string source(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, bool assembly) override {
        if (assembly) fail(p.loc, "source", "the cpu target shows its generated C++; it has no assembly view");
        return native::emit_cpp(p, native::launch_spec(p, args, opts).emit).source;
    }

private:
    std::shared_ptr<const Compiled> compiled(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts) {
        LaunchSpec spec = native::launch_spec(p, args, opts);
        std::weak_ptr<const ir::Program> owner = p.weak_from_this();
        if (!owner.expired()) {
            std::lock_guard<std::mutex> g(mutex_);
            auto it = programs_.find(&p);
            if (it != programs_.end() && it->second.program.lock().get() == &p)
                for (auto& [s, c] : it->second.variants)
                    if (s == spec) return c;
        }
        std::string why;
        const native::HostCompiler* cc = native::host_compiler(&why);
        if (!cc) fail(p.loc, "launch", "kernel '" + p.name + "': target 'cpu' is not available: " + why);
        auto c = std::make_shared<Compiled>();
        c->emitted = native::emit_cpp(p, spec.emit);
        c->key = native::cache_key(c->emitted, spec, *cc);
        native::dump_source(p.name, c->key, c->emitted.source);
        c->module = &native::load_module(c->key, c->emitted.source, p.name, *cc);
        if (!owner.expired()) {
            std::lock_guard<std::mutex> g(mutex_);
            auto it = programs_.find(&p);
            if (it == programs_.end() || it->second.program.lock().get() != &p) {
                std::erase_if(programs_, [](const auto& e) { return e.second.program.expired(); });
                it = programs_.insert_or_assign(&p, ProgramVariants{owner, {}}).first;
            }
            it->second.variants.emplace_back(spec, c);
        }
        return c;
    }

    // Instances run in chunks of consecutive pids; the reported error is the one
    // the interpreter (pid order) would raise first. A chunk starting past an
    // error already found cannot hold an earlier one and is skipped.
    void launch(const Compiled& c, const ir::Program& p, const std::vector<Arg>& args) {
        std::vector<kiln_cpu::Arg> abi(args.size());
        for (std::size_t k = 0; k < args.size(); ++k) {
            const Arg& a = args[k];
            abi[k].f = a.f;
            abi[k].i = a.i;
            abi[k].view.data = a.data;
            for (std::size_t d = 0; d < a.extents.size(); ++d) {
                abi[k].view.extent[d] = a.extents[d];
                abi[k].view.stride[d] = a.strides[d];
            }
        }
        long long ext[kiln_cpu::max_rank];
        kiln_cpu::Status grid_status;
        const int rank = c.module->grid(abi.data(), ext, &grid_status);
        if (rank < 0) out_of_range(*c.emitted.accesses.at(static_cast<std::size_t>(grid_status.access)), grid_status, args);
        std::int64_t total = 1;
        for (int k = 0; k < rank; ++k) {
            if (ext[k] < 0) fail(p.grid->loc, "parallel", "negative grid extent " + std::to_string(ext[k]));
            if (__builtin_mul_overflow(total, ext[k], &total)) fail(p.grid->loc, "parallel", "the grid has more than 2^63 instances");
        }
        const int threads = native::launch_threads();
        const native::Chunking chunks = native::chunking(total, threads);
        const bool caller_helps = c.emitted.frame_bytes <= kCallerFrameLimit;
        std::vector<kiln_cpu::Status> status(static_cast<std::size_t>(chunks.chunks));
        std::vector<char> failed(static_cast<std::size_t>(chunks.chunks), 0);
        std::atomic<std::int64_t> first_error{INT64_MAX};
        auto task = [&](std::int64_t t) {
            const std::int64_t begin = t * chunks.per_chunk, end = std::min(total, begin + chunks.per_chunk);
            if (begin > first_error.load(std::memory_order_relaxed)) return;
            auto& st = status[static_cast<std::size_t>(t)];
            if (c.module->run(abi.data(), begin, end, total, &st) == 0) return;
            failed[static_cast<std::size_t>(t)] = 1;
            std::int64_t order = error_order(st), seen = first_error.load();
            while (order < seen && !first_error.compare_exchange_weak(seen, order)) {}
        };
        native::run_tasks(chunks.chunks, threads, worker_stack_bytes(c.emitted.frame_bytes), caller_helps, task);
        const kiln_cpu::Status* first = nullptr;
        for (std::size_t t = 0; t < status.size(); ++t)
            if (failed[t] && (!first || error_order(status[t]) < error_order(*first))) first = &status[t];
        if (first) out_of_range(*c.emitted.accesses.at(static_cast<std::size_t>(first->access)), *first, args);
    }

    std::string name_ = "cpu";
    std::mutex mutex_;
    std::unordered_map<const ir::Program*, ProgramVariants> programs_;
};

}  // namespace

std::shared_ptr<TargetImpl> make_cpu_target() { return std::make_shared<CpuTarget>(); }

}  // namespace kiln::detail
