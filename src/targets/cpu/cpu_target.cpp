// The native CPU target: each program is emitted as C++ (emit_cpp), compiled by
// the host compiler into a shared object, cached on disk (and found again through
// the program index without regenerating the source: program_index.h) and in
// this process, and its grid run on the launcher threads. Bit-exact with the
// interpreter.
#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "cache/disk_cache.h"
#include "targets/common/dump.h"
#include "targets/cpu/launch_plan.h"
#include "targets/cpu/module_cache.h"
#include "targets/cpu/program_index.h"
#include "targets/common/thread_pool.h"
#include "targets/common/target_impl.h"
#include "targets/cpu/undo_log.h"

namespace kiln::detail {

namespace {

// A kernel's streaming stores (cpu_prelude.h: stream_store) are weakly ordered: a
// thread fences them before it reports its chunk done, so that whoever reads the
// output next (the caller, an undo log restoring it) sees them.
inline void fence_streaming_stores() {
#if defined(__x86_64__)
    __asm__ __volatile__("sfence" ::: "memory");
#endif
}

using native::LaunchSpec;

// One program compiled for one launch specialisation. A kernel found through the
// program index has not been through the generator; its accesses (for wording an
// out-of-range error) are generated when first needed.
struct Compiled {
    LaunchSpec spec;
    std::string key;
    const native::Module* module = nullptr;
    std::int64_t frame_bytes = 0;
    // The views a failed launch puts back as they were (undo_log.h); empty when
    // no access can fail.
    std::vector<int> restore_on_failure;

    // The load or store numbered `number` (kiln_cpu::Status::access).
    const ir::Node& access(const ir::Program& p, int number) const {
        std::call_once(accesses_once_, [&] {
            if (!accesses_) accesses_ = native::emit_cpp(p, spec.emit).accesses;
        });
        return *accesses_->at(static_cast<std::size_t>(number));
    }
    void set_accesses(std::vector<const ir::Node*> a) { accesses_ = std::move(a); }

private:
    mutable std::once_flag accesses_once_;
    mutable std::optional<std::vector<const ir::Node*>> accesses_;
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
[[noreturn]] void out_of_range(const Compiled& c, const ir::Program& p, const kiln_cpu::Status& st, const std::vector<Arg>& args) {
    const ir::Node& n = c.access(p, st.access);
    const Arg& a = args[static_cast<std::size_t>(ir::param_index(n))];
    std::string at = "(", ext;
    for (std::size_t k = 0; k < a.extents.size(); ++k) {
        at += (k ? ", " : "") + std::to_string(st.coord[k]);
        ext += (k ? "x" : "") + std::to_string(a.extents[k]);
    }
    at += ")";
    std::string what = "index " + at + " is out of range for argument " + std::to_string(ir::param_index(n)) + " of extent " + ext;
    if (ir::bounds_policy(n) == bounds::assume) what += " (bounds::assume was violated)";
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

    // Always usable: kernels the cache holds run without a compiler (a cache filled
    // on a machine with one); a launch of one it lacks says that it cannot be built.
    std::string unavailable_reason() const override { return {}; }
    bool compiles_here() const override { return native::host_compiler(nullptr) != nullptr; }

    void run(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, Loc loc) override {
        for (const Arg& a : args)
            if (a.is_view && a.device != Device::host)
                fail(p.loc, "cpu", "kernel '" + p.name + "': the cpu target runs on host memory; copy device tensors back with .to(host())");
        auto c = compiled(p, args, opts, loc);
        launch(*c, p, args);
    }

    std::string plan(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts) override {
        LaunchSpec spec = native::launch_spec(p, args, opts);
        native::Emitted e = native::emit_cpp(p, spec.emit);
        std::string why;
        const native::HostCompiler* cc = native::host_compiler(&why);
        return native::plan_text(p, args, spec, e, cc ? native::cache_key(e, spec, *cc) : "", cc, why);
    }

    void prepare(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, Loc loc) override {
        compiled(p, args, opts, loc);
    }
    // The programs' kernels that are in no cache yet, built by one host-compiler run.
    void prepare_batch(const std::vector<Pending>& pending) override {
        std::string why;
        const native::HostCompiler* cc = native::host_compiler(&why);
        if (!cc) return;  // the launches will say why
        const std::optional<cache::DiskCache> cache = cache::DiskCache::open_or_warn();
        const cache::DiskCache* disk = cache ? &*cache : nullptr;
        std::vector<native::BatchSource> batch;
        for (const Pending& q : pending) {
            LaunchSpec spec = native::launch_spec(*q.program, *q.args, q.options);
            native::Emitted e = native::emit_cpp(*q.program, spec.emit);
            std::string key = native::cache_key(e, spec, *cc);
            if (native::find_module(disk, key)) continue;
            batch.push_back({std::move(key), std::move(e.source), q.program->name});
        }
        if (batch.size() > 1) native::load_module_batch(batch, *cc);
    }

    std::string source(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, bool assembly) override {
        if (assembly) fail(p.loc, "source", "the cpu target shows its generated C++; it has no assembly view");
        return native::emit_cpp(p, native::launch_spec(p, args, opts).emit).source;
    }

private:
    // `loc`: the launch (or compile) that needs the kernel, named when it cannot be built.
    std::shared_ptr<const Compiled> compiled(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, Loc loc) {
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
        auto c = std::make_shared<Compiled>();
        c->spec = spec;
        c->restore_on_failure = native::views_to_restore_on_failure(p);
        const std::optional<cache::DiskCache> cache = cache::DiskCache::open_or_warn();
        const cache::DiskCache* disk = cache ? &*cache : nullptr;
        // With KILN_DUMP_DIR set the source is wanted, so it is generated even when
        // the index could do without it.
        const bool dumping = targets::dump_dir_set();
        // Without a compiler, the record any compiler wrote is the one to find.
        const std::string index_key = native::index_key(p, spec, cc);
        if (auto record = dumping ? std::nullopt : native::find_in_index(disk, index_key))
            if (const native::Module* m = native::find_module(disk, record->kernel_key)) {
                c->key = record->kernel_key;
                c->module = m;
                c->frame_bytes = record->frame_bytes;
            }
        if (!c->module) {
            if (!cc)
                fail(loc, "cpu", "cannot compile kernel '" + p.name + "': " + why +
                                     "; a cache filled on a machine with a host compiler (KILN_CACHE_DIR) runs only the kernels "
                                     "compiled there, for these shapes and options");
            native::Emitted e = native::emit_cpp(p, spec.emit);
            c->key = native::cache_key(e, spec, *cc);
            c->frame_bytes = e.frame_bytes;
            targets::dump_source(p.name, c->key, e.source, "cpp");
            c->module = &native::load_module(disk, c->key, e.source, p.name, *cc);
            // Filed under this compiler and any: a cache filled here serves a
            // machine with this processor and no compiler.
            native::add_to_index(disk, index_key, {c->key, c->frame_bytes});
            native::add_to_index(disk, native::index_key(p, spec, nullptr), {c->key, c->frame_bytes});
            c->set_accesses(std::move(e.accesses));
        }
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
        // The arguments as the kernel takes them: on the stack for the usual few
        // (a small launch's cost is mostly allocations otherwise).
        constexpr std::size_t kInlineArgs = 8;
        std::array<kiln_cpu::Arg, kInlineArgs> inline_abi{};
        std::vector<kiln_cpu::Arg> heap_abi(args.size() > kInlineArgs ? args.size() : 0);
        kiln_cpu::Arg* abi = heap_abi.empty() ? inline_abi.data() : heap_abi.data();
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
        // Writes land only if every instance succeeds: a kernel that can fail
        // keeps copies of what it may write, and a failure puts them back.
        native::UndoLog undo;
        for (int k : c.restore_on_failure) undo.save(args[static_cast<std::size_t>(k)]);
        auto fail_launch = [&](const kiln_cpu::Status& st) {
            undo.restore();
            out_of_range(c, p, st, args);
        };
        long long ext[kiln_cpu::max_rank];
        kiln_cpu::Status grid_status;
        const int rank = c.module->grid(abi, ext, &grid_status);
        if (rank < 0) fail_launch(grid_status);
        std::int64_t total = 1;
        for (int k = 0; k < rank; ++k) {
            if (ext[k] < 0) fail(p.grid->loc, "parallel", "negative grid extent " + std::to_string(ext[k]));
            if (__builtin_mul_overflow(total, ext[k], &total)) fail(p.grid->loc, "parallel", "the grid has more than 2^63 instances");
        }
        const int threads = native::launch_threads();
        const native::Chunking chunks = native::chunking(total, threads);
        const bool caller_helps = c.frame_bytes <= kCallerFrameLimit;
        if (chunks.chunks == 1 && caller_helps) {  // one call, on this thread
            kiln_cpu::Status st;
            const int rc = c.module->run(abi, 0, total, total, &st);
            fence_streaming_stores();
            if (rc != 0) fail_launch(st);
            return;
        }
        std::vector<kiln_cpu::Status> status(static_cast<std::size_t>(chunks.chunks));
        std::vector<char> failed(static_cast<std::size_t>(chunks.chunks), 0);
        std::atomic<std::int64_t> first_error{INT64_MAX};
        auto task = [&](std::int64_t t) {
            const std::int64_t begin = t * chunks.per_chunk, end = std::min(total, begin + chunks.per_chunk);
            if (begin > first_error.load(std::memory_order_relaxed)) return;
            auto& st = status[static_cast<std::size_t>(t)];
            const int rc = c.module->run(abi, begin, end, total, &st);
            fence_streaming_stores();
            if (rc == 0) return;
            failed[static_cast<std::size_t>(t)] = 1;
            std::int64_t order = error_order(st), seen = first_error.load();
            while (order < seen && !first_error.compare_exchange_weak(seen, order)) {}
        };
        native::run_tasks(chunks.chunks, threads, worker_stack_bytes(c.frame_bytes), caller_helps, task);
        const kiln_cpu::Status* first = nullptr;
        for (std::size_t t = 0; t < status.size(); ++t)
            if (failed[t] && (!first || error_order(status[t]) < error_order(*first))) first = &status[t];
        if (first) fail_launch(*first);
    }

    std::string name_ = "cpu";
    std::mutex mutex_;
    std::unordered_map<const ir::Program*, ProgramVariants> programs_;
};

}  // namespace

std::shared_ptr<TargetImpl> make_cpu_target() { return std::make_shared<CpuTarget>(); }

}  // namespace kiln::detail
