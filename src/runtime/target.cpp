// Targets by name, the default target, and running a kernel on one.
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"

namespace kiln {

namespace detail {
std::string TargetImpl::plan(const ir::Program& p, const std::vector<Arg>&, const CompileOptions&) {
    return "target " + name() + ": kernel " + p.name + " runs as traced (no schedule plan)\n";
}
std::string TargetImpl::source(const ir::Program& p, const std::vector<Arg>&, const CompileOptions&, bool) {
    fail(p.loc, "source", "target '" + name() + "' generates no source");
}
double TargetImpl::time_launch(const std::function<void()>& launch, bool flush_l2) {
    if (flush_l2) {
        // Larger than any host's last-level cache; written, so no line of the inputs survives.
        static std::vector<unsigned char> evict(std::size_t{256} << 20);
        static unsigned char round = 0;
        std::memset(evict.data(), ++round, evict.size());
    }
    auto start = std::chrono::steady_clock::now();
    launch();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
void TargetImpl::prepare_batch(const std::vector<Pending>& pending) {
    for (const Pending& q : pending) {
        try {
            prepare(*q.program, *q.args, q.options, q.program->loc);
        } catch (const std::exception&) {  // its launch compiles it again, and reports what went wrong
        }
    }
}
}  // namespace detail

const std::string& Target::name() const { return impl_->name(); }
bool Target::available() const { return impl_->unavailable_reason().empty(); }
std::string Target::unavailable_reason() const { return impl_->unavailable_reason(); }
Target::operator Placement() const { return impl_->placement(); }

Target interp(InterpOptions options) { return Target(detail::make_interp_target(options)); }
Target cpu() {
    static auto t = detail::make_cpu_target();
    return Target(t);
}
Target cuda() {
    static auto t = detail::make_cuda_target(0, nullptr);
    return Target(t);
}
Target cuda(int device) { return device == 0 ? cuda() : Target(detail::make_cuda_target(device, nullptr)); }
Target cuda(const Stream& stream) { return Target(detail::make_cuda_target(stream.device(), stream.state())); }
Target metal() {
    static auto t = detail::make_metal_target();
    return Target(t);
}

Target target_named(const std::string& name, Loc loc) {
    if (name == "interp") return interp();
    if (name == "cpu") return cpu();
    if (name == "cuda") return cuda();
    if (name == "metal") return metal();
    if (name == "auto") return cuda().available() ? cuda() : cpu().impl().compiles_here() ? cpu() : interp();
    fail(loc, "target", "unknown target '" + name + "' (known: interp, cpu, cuda, metal, auto)");
}

Target default_target() {
    const char* env = std::getenv("KILN_TARGET");
    if (!env || !*env) return interp();
    std::string name(env);
    if (name != "interp" && name != "cpu" && name != "cuda" && name != "metal" && name != "auto")
        throw Error("KILN_TARGET='" + name + "' is not a known target (known: interp, cpu, cuda, metal, auto)");
    return target_named(name);
}

void run_kernel(const Kernel& k, const Target& t, const std::vector<detail::Arg>& args, const CompileOptions& opts, Loc loc) {
    if (!k) detail::empty_kernel("launch", loc);
    detail::check_args(*k.shared_impl(), args, loc, /*with_data=*/true);
    // Where each view's memory lives is an argument check like the others: found
    // before anything runs, at the launch's line, whether or not the target can
    // run on this machine.
    const Device where = t.impl().device();
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (!args[i].is_view || args[i].device == where) continue;
        const std::string arg = "kernel '" + k.name() + "' argument " + std::to_string(i);
        if (where == Device::cuda)
            fail(loc, "launch", arg + " is in host memory; the cuda target runs on device memory (copy it with .to(cuda()))");
        fail(loc, "launch", arg + " is in device memory; the " + t.name() + " target runs on host memory (copy it back with .to(host()))");
    }
    std::string why = t.unavailable_reason();
    if (!why.empty()) fail(loc, "launch", "target '" + t.name() + "' is not available: " + why);
    auto program = detail::specialize(*k.shared_impl(), args, loc);
    t.impl().run(*program, args, opts, loc);
}

}  // namespace kiln
