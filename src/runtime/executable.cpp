// Compiled handles (kiln/executable.h): a kernel bound to a target and options,
// and the program it describes: the captured shapes', else the last launch's.
#include <kiln/bench.h>
#include <kiln/executable.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <numeric>
#include <mutex>

#include "runtime/executable_launch.h"
#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"

namespace kiln::detail {

namespace {
// Everything of two launches' arguments but the data pointers: what decides the
// program, the kernel and the grid.
bool same_launch_shapes(const std::vector<Arg>& a, const std::vector<Arg>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const Arg &x = a[i], &y = b[i];
        if (x.is_view != y.is_view || x.kind != y.kind || x.read_only != y.read_only || x.device != y.device || x.ordinal != y.ordinal ||
            x.extents != y.extents || x.strides != y.strides || x.i != y.i ||
            std::bit_cast<std::uint64_t>(x.f) != std::bit_cast<std::uint64_t>(y.f))
            return false;
    }
    return true;
}
}  // namespace

struct CaptureImpl {
    Kernel kernel;
    std::vector<Arg> shapes;  // views without memory, scalars with their values
    std::shared_ptr<const ir::Program> program;
};

struct ExecutableImpl {
    Kernel kernel;
    Target target;
    CompileOptions options;
    // What plan(), source() and ir() describe: a program and the shapes it was
    // specialised for (memory dropped, so nothing here dangles). The pointer is
    // read without the lock so that a launch of the same program costs a compare.
    mutable std::atomic<const ir::Program*> current{nullptr};
    mutable std::atomic<bool> available{false};  // the target was found usable once: not asked again
    mutable std::mutex mutex;
    mutable std::shared_ptr<const ir::Program> program;
    mutable std::vector<Arg> shapes;
    // The last launch's shapes (its arguments without data) and what the target
    // prepared for them (null where it keeps none): a launch with the same shapes,
    // kinds, devices and scalar values skips checking shapes, specialising and the
    // target's lookups; with a null one it skips asking the target again.
    mutable std::shared_ptr<PreparedLaunch> prepared;
    mutable std::vector<Arg> prepared_for;
    mutable bool prepared_known = false;

    ExecutableImpl(Kernel k, Target t, CompileOptions o) : kernel(std::move(k)), target(std::move(t)), options(o) {}

    // `new_shapes`: the launch's shapes differ from the last launch's (strides, say,
    // which decide the offsets' width and the cuda target's handling of misaligned
    // rows for the same program), so the program alone does not say they are known.
    void remember(std::shared_ptr<const ir::Program> p, const std::vector<Arg>& args, bool new_shapes) const {
        if (!new_shapes && current.load(std::memory_order_acquire) == p.get()) return;
        std::lock_guard<std::mutex> g(mutex);
        program = std::move(p);
        shapes = args;  // assigned in place: alternating shapes allocate nothing
        for (Arg& a : shapes) a.data = nullptr;
        current.store(program.get(), std::memory_order_release);
    }
    std::pair<std::shared_ptr<const ir::Program>, std::vector<Arg>> described(std::string_view what, Loc loc) const {
        std::lock_guard<std::mutex> g(mutex);
        if (!program)
            fail(loc, what, "kernel '" + kernel.name() + "' has no program yet: compile it with shapes " +
                                "(k.compile(target, options, tensor_shape(...), ...)) or launch it first");
        return {program, shapes};
    }
    // Whether the last launch had these shapes, and what was prepared for them.
    std::pair<bool, std::shared_ptr<PreparedLaunch>> prepared_launch(const std::vector<Arg>& args) const {
        std::lock_guard<std::mutex> g(mutex);
        if (!prepared_known || !same_launch_shapes(args, prepared_for)) return {false, nullptr};
        return {true, prepared};
    }
    void keep_prepared(std::shared_ptr<PreparedLaunch> p, const std::vector<Arg>& args) const {
        std::lock_guard<std::mutex> g(mutex);
        prepared = std::move(p);
        prepared_for = args;  // assigned in place: the vectors keep their storage, so alternating shapes allocate nothing
        for (Arg& a : prepared_for) a.data = nullptr;
        prepared_known = true;
    }
};

namespace {
std::vector<Arg> shapes_on(const std::vector<Arg>& shapes, Device device) {
    std::vector<Arg> s = shapes;
    for (Arg& a : s)
        if (a.is_view) a.device = device;
    return s;
}
}  // namespace

std::shared_ptr<CaptureImpl> capture(const Kernel& k, std::vector<Arg> shapes, std::vector<Loc> locs, Loc loc) {
    const auto& params = k.params();
    for (std::size_t i = 0; i < shapes.size() && i < params.size(); ++i) {
        Arg& a = shapes[i];
        Loc at = locs[i].known() ? locs[i] : loc;
        const ParamSig& p = params[i];
        if (a.is_view && !p.is_view)
            fail(at, "capture", "kernel '" + k.name() + "' argument " + std::to_string(i) + " is " + p.spelling +
                                    "; capture it with a value, not a tensor_shape");
        if (!a.is_view) continue;
        a.kind = p.kind;
        a.read_only = !p.writable;
        if (a.strides.empty()) a.strides = row_major_strides(a.extents);
        check_host_view(a.extents, a.strides, at);
    }
    auto c = std::make_shared<CaptureImpl>();
    c->kernel = k;
    c->program = specialize(*k.shared_impl(), shapes, loc);
    c->shapes = std::move(shapes);
    return c;
}

std::shared_ptr<ExecutableImpl> compile(const Kernel& k, const Target& t, const CompileOptions& o, std::shared_ptr<CaptureImpl> c,
                                        Loc loc) {
    if (!k.shared_impl()) fail(loc, "compile", "an empty kernel handle; assign kernel(name, lambda) to it");
    auto e = std::make_shared<ExecutableImpl>(k, t, o);
    if (c) {
        std::vector<Arg> shapes = shapes_on(c->shapes, t.impl().device());
        t.impl().prepare(*c->program, shapes, o, loc);
        e->remember(c->program, shapes, true);
    }
    return e;
}

namespace {
// Per thread, one request per nesting depth; never freed (a thread's few requests
// live as long as it does).
struct RequestPool {
    std::vector<std::unique_ptr<LaunchRequest>> requests;
    std::size_t depth = 0;
};
thread_local RequestPool t_requests;
}  // namespace

ReusedRequest::ReusedRequest() {
    RequestPool& pool = t_requests;
    if (pool.depth == pool.requests.size()) pool.requests.push_back(std::make_unique<LaunchRequest>());
    req_ = pool.requests[pool.depth++].get();
}

ReusedRequest::~ReusedRequest() {
    // What the next launch does not overwrite is reset; the argument vectors keep their storage.
    req_->target.reset();
    req_->executable = nullptr;
    req_->options = {};
    --t_requests.depth;
}

void launch_executable(const ExecutableImpl& e, LaunchRequest& req) {
    req.target = e.target;
    req.options = e.options;
    req.executable = &e;
    dispatch(req);
}

const Kernel& executable_kernel(const ExecutableImpl& e) { return e.kernel; }

// run_default's path for a launch through an executable that still goes to its
// target: the same as run_kernel, and the program is remembered for plan().
void run_executable(const ExecutableImpl& e, LaunchRequest& req) {
    const Target& t = *req.target;
    if (!e.available.load(std::memory_order_relaxed)) {
        std::string why = t.unavailable_reason();
        if (!why.empty()) fail(req.loc, "launch", "target '" + t.name() + "' is not available: " + why);
        e.available.store(true, std::memory_order_relaxed);
    }
    auto [known, prepared] = e.prepared_launch(req.args);
    if (prepared) {
        check_arg_data(*e.kernel.shared_impl(), req.args, req.loc);
        prepared->launch(req.args, req.loc);
        return;
    }
    check_args(*e.kernel.shared_impl(), req.args, req.loc, /*with_data=*/true);
    auto program = specialize(*e.kernel.shared_impl(), req.args, req.loc);
    e.remember(program, req.args, !known);
    t.impl().run(*program, req.args, req.options, req.loc);
    if (!known) e.keep_prepared(t.impl().prepare_launch(program, req.args, req.options), req.args);
}

bool runs_executable(const LaunchRequest& req) {
    return req.executable && req.target && &req.target->impl() == &req.executable->target.impl();
}

void set_launch_options(LaunchRequest& req, const CompileOptions& o) {
    if (!req.target || !req.args.empty())
        fail(req.loc, "launch", "compile options go right after the target: k.launch(target, Precision::exact, args...)");
    req.options = o;
}

BenchResult bench(const Executable& exe, const BenchOptions& o, const std::function<void()>& launch, Loc loc) {
    if (o.warmup < 0 || o.reps < 1) fail(loc, "bench", "needs warmup >= 0 and reps >= 1");
    for (int i = 0; i < o.warmup; ++i) launch();
    TargetImpl& t = exe.target().impl();
    BenchResult r;
    r.samples.reserve(static_cast<std::size_t>(o.reps));
    for (int i = 0; i < o.reps; ++i) r.samples.push_back(t.time_launch(launch, o.flush_l2));
    std::vector<double> sorted = r.samples;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    r.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    r.min = sorted.front();
    r.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
    return r;
}

}  // namespace kiln::detail

namespace kiln {

namespace {
std::pair<std::shared_ptr<const ir::Program>, std::vector<detail::Arg>> described(const detail::ExecutableImpl* e, std::string_view what,
                                                                                   Loc loc) {
    if (!e) fail(loc, what, "an empty executable; assign k.compile(target) to it");
    return e->described(what, loc);
}
}  // namespace

std::string Executable::plan(Loc loc) const {
    auto [p, shapes] = described(impl_.get(), "plan", loc);
    return impl_->target.impl().plan(*p, shapes, impl_->options);
}
std::string Executable::source(Loc loc) const {
    auto [p, shapes] = described(impl_.get(), "source", loc);
    return impl_->target.impl().source(*p, shapes, impl_->options, false);
}
std::string Executable::assembly(Loc loc) const {
    auto [p, shapes] = described(impl_.get(), "assembly", loc);
    return impl_->target.impl().source(*p, shapes, impl_->options, true);
}
std::string Executable::ir(Loc loc) const {
    auto [p, shapes] = described(impl_.get(), "ir", loc);
    return ir::print(*p);
}
const Kernel& Executable::kernel() const { return impl_->kernel; }
const Target& Executable::target() const { return impl_->target; }
const CompileOptions& Executable::options() const { return impl_->options; }

std::string Capture::ir() const { return ir::print(*impl_->program); }
const Kernel& Capture::kernel() const { return impl_->kernel; }
Executable Capture::compile(const Target& t, CompileOptions o, Loc loc) const {
    return Executable(detail::compile(impl_->kernel, t, o, impl_, loc));
}

Executable Kernel::compile(const Target& t, CompileOptions o, Loc loc) const {
    return Executable(detail::compile(*this, t, o, nullptr, loc));
}

}  // namespace kiln
