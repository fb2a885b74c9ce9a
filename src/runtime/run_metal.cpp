// Seed 000's Metal handler: run_metal(n, f) traces the canonical closure into one
// kernel (trace/closure_trace.h) and runs it on the metal target. Everything
// outside the contract is an error naming the problem, never a host fallback.
#include "targets/common/target_impl.h"
#include "trace/closure_trace.h"

namespace kiln {

void run_metal(std::int64_t n, const Closure& f, Loc loc) {
    if (n < 0) fail(loc, "run_metal", "negative instance count " + std::to_string(n));
    if (!f) fail(loc, "run_metal", "no kernel function");
    if (!f.traced())
        fail(loc, "run_metal",
             "the closure is not the canonical launch idiom fn(pid) -> kernel(pid, buffers...) with a traceable instance id: take the id as "
             "`auto` ([&](auto pid) { kernel(pid, v); }, the kernel a template over it) so that kiln can compile the kernel; a closure "
             "over std::int64_t runs only on the host (run_grid)");
    Target t = metal();
    if (std::string why = t.unavailable_reason(); !why.empty()) fail(loc, "run_metal", "no engine for Metal kernels here: " + why);
    if (n == 0) return;
    const detail::TracedClosure traced = detail::trace_closure(n, f.traced(), loc);
    t.impl().run(*traced.program, traced.args, CompileOptions{}, loc);
}

}  // namespace kiln
