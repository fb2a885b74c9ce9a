// Targets by name, the default target, and running a kernel on one.
#include <cstdlib>

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
}  // namespace detail

const std::string& Target::name() const { return impl_->name(); }
bool Target::available() const { return impl_->unavailable_reason().empty(); }
std::string Target::unavailable_reason() const { return impl_->unavailable_reason(); }
Target::operator Placement() const { return Placement{impl_->device()}; }

Target interp(InterpOptions options) { return Target(detail::make_interp_target(options)); }
Target cpu() {
    static auto t = detail::make_cpu_target();
    return Target(t);
}
Target cuda() {
    static auto t = detail::make_cuda_target();
    return Target(t);
}
Target metal() {
    static auto t = detail::make_metal_target();
    return Target(t);
}

Target target_named(const std::string& name, Loc loc) {
    if (name == "interp") return interp();
    if (name == "cpu") return cpu();
    if (name == "cuda") return cuda();
    if (name == "metal") return metal();
    if (name == "auto") return cuda().available() ? cuda() : cpu().available() ? cpu() : interp();
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
    std::string why = t.unavailable_reason();
    if (!why.empty()) fail(loc, "launch", "target '" + t.name() + "' is not available: " + why);
    auto program = detail::specialize(*k.shared_impl(), args, loc);
    t.impl().run(*program, args, opts, loc);
}

}  // namespace kiln
