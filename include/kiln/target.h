// Targets (where a launch runs) and the launch effect: a scoped stack of handlers
// that can observe a launch, replace it, or pass it on; the bottom handler runs
// the default target ($KILN_TARGET, else the interpreter).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include <kiln/kernel.h>

namespace kiln {

namespace detail {
// One launch argument, type-erased: a view (pointer, extents, strides) or a scalar.
struct Arg {
    bool is_view = true;
    Kind kind = Kind::F32;
    void* data = nullptr;
    bool read_only = false;
    Device device = Device::host;
    std::vector<std::int64_t> extents;
    std::vector<std::int64_t> strides;
    double f = 0;          // scalar value (floats)
    std::int64_t i = 0;    // scalar value (ints, bools)
};
template <class T> Arg to_arg(const HostView<T>& v) {
    using E = std::remove_const_t<T>;
    return Arg{true, kind_of<E>, const_cast<E*>(v.data), std::is_const_v<T>, v.device, v.extents, v.strides, 0, 0};
}
template <class T> Arg to_arg(Tensor<T>& t) {
    Arg a{true, kind_of<T>, t.data(), false, t.device(), t.extents(), row_major_strides(t.extents()), 0, 0};
    return a;
}
template <class T> Arg to_arg(const Tensor<T>& t) {
    Arg a{true, kind_of<T>, const_cast<T*>(t.data()), true, t.device(), t.extents(), row_major_strides(t.extents()), 0, 0};
    return a;
}
template <class T> requires std::is_arithmetic_v<T> Arg to_arg(T x) {
    Arg a;
    a.is_view = false;
    a.kind = kind_of<literal_kind_t<T>>;
    if constexpr (std::is_floating_point_v<T>) a.f = static_cast<double>(x);
    else a.i = static_cast<std::int64_t>(x);
    return a;
}
template <class T> Arg to_arg(const Scalar<T>& s) {
    Arg a;
    a.is_view = false;
    a.kind = kind_of<T>;
    if constexpr (FloatElement<T>) a.f = static_cast<double>(s.get());
    else a.i = static_cast<std::int64_t>(s.get());
    return a;
}
struct TargetImpl;
}  // namespace detail

// Where a launch runs. interp(): the reference; cpu(): generated C++; cuda(): the GPU;
// metal(): generated Metal Shading Language (on Linux, run by kiln's C++ shim).
class Target {
public:
    explicit Target(std::shared_ptr<detail::TargetImpl> impl) : impl_(std::move(impl)) {}
    const std::string& name() const;
    bool available() const;
    std::string unavailable_reason() const;  // empty when available
    detail::TargetImpl& impl() const { return *impl_; }
    operator Placement() const;  // NOLINT: x.to(cuda())

private:
    std::shared_ptr<detail::TargetImpl> impl_;
};

struct InterpOptions {
    bool checked = true;  // report out-of-range accesses (check/assume) and cross-instance conflicts
};
namespace detail {
// Kernel::launch's first argument, a target or the kernel's first argument, with
// the line launch was called from: a defaulted std::source_location cannot
// follow launch's parameter pack, so it rides on this conversion, which happens
// at the call.
struct LaunchHead {
    std::optional<Target> target;
    Arg arg;
    Loc loc;
    LaunchHead(const Target& t, std::source_location s = std::source_location::current()) : target(t), loc{s.file_name(), s.line()} {}
    template <class A> requires(!std::is_same_v<std::remove_cvref_t<A>, Target>)
    LaunchHead(A&& a, std::source_location s = std::source_location::current()) : arg(to_arg(a)), loc{s.file_name(), s.line()} {}
};
}  // namespace detail

Target interp(InterpOptions options = {});
Target cpu();
Target cuda();
Target metal();
// "interp", "cpu", "cuda", "metal" or "auto" (cuda when a device is present, else cpu).
Target target_named(const std::string& name, Loc loc = Loc::here());
Target default_target();  // $KILN_TARGET, else interp

// ---- the launch effect

// A launch's closure, seed 000's canonical idiom fn(pid) -> kernel(pid, buffers...):
// called with each instance id on the host. A closure that takes its id as `auto`
// ([&](auto pid) { kernel(pid, buffers...); }, its kernel a template over the id)
// can also be traced: called once with a traced id, it records the kernel as a
// Tile IR program over the host vectors it captures, which is how run_metal
// compiles it for a device.
class Closure : public std::function<void(std::int64_t)> {
public:
    Closure() = default;
    template <class F> requires(!std::is_same_v<std::remove_cvref_t<F>, Closure> && std::is_invocable_v<F&, std::int64_t>)
    Closure(F f) : std::function<void(std::int64_t)>(f) {  // NOLINT: closures are launched as written
        if constexpr (std::is_invocable_v<F&, const Scalar<i64>&>) traced_ = [f](const Scalar<i64>& pid) mutable { f(pid); };
    }
    // The call with a traced instance id; empty when the closure takes a plain integer.
    const std::function<void(const Scalar<i64>&)>& traced() const { return traced_; }

private:
    std::function<void(const Scalar<i64>&)> traced_;
};

// A launch: either a grid of C++ closures (seed 000's Gpu.launch(n, f)) or a kernel
// with its arguments.
struct LaunchRequest {
    std::int64_t instances = 0;
    Closure closure;
    const Kernel* kernel = nullptr;
    std::vector<detail::Arg> args;
    std::optional<Target> target;  // the caller's choice; empty: the default target
    CompileOptions options;
    Loc loc;
    bool is_kernel() const { return kernel != nullptr; }
};
using Next = std::function<void(LaunchRequest&)>;
using LaunchHandler = std::function<void(LaunchRequest&, const Next& next)>;

// Installs a handler for the current scope (innermost first).
class HandlerScope {
public:
    explicit HandlerScope(LaunchHandler h);
    ~HandlerScope();
    HandlerScope(const HandlerScope&) = delete;
    HandlerScope& operator=(const HandlerScope&) = delete;

private:
    std::size_t depth_;
};
[[nodiscard]] inline HandlerScope handle_launch(LaunchHandler h) { return HandlerScope(std::move(h)); }

void dispatch(LaunchRequest& req);                                  // through the handler stack
void run_default(LaunchRequest& req);                               // what the bottom handler does
void run_grid(std::int64_t n, const std::function<void(std::int64_t)>& f);  // sequential, pid order
void launch(std::int64_t n, Closure f, Loc loc = Loc::here());
// Seed 000's Metal handler: runs launch (n, f) on the metal target. f must be the
// canonical idiom with an `auto` instance id (Closure), which is traced into one
// kernel over the host vectors it captures; the loads and stores must be the
// masked forms (load_or, load_rows with a fallback, store_clipped; store_rows is
// a store the caller promises in range), since device code cannot raise.
// Anything else is an error naming the problem, never a fallback to the host.
void run_metal(std::int64_t n, const Closure& f, Loc loc = Loc::here());

// Runs a kernel on a target now (no handlers): used by targets' callers and tools.
void run_kernel(const Kernel& k, const Target& t, const std::vector<detail::Arg>& args, const CompileOptions& opts, Loc loc);

template <class... Args> void Kernel::launch(detail::LaunchHead first, Args&&... args) const {
    if (!impl_) detail::empty_kernel("launch", first.loc);
    LaunchRequest req;
    req.kernel = this;
    req.loc = first.loc;
    req.args.reserve(sizeof...(Args) + 1);
    if (first.target) req.target = std::move(first.target);
    else req.args.push_back(std::move(first.arg));
    (req.args.push_back(detail::to_arg(args)), ...);
    dispatch(req);
}

namespace detail {
std::string kernel_ir(const Kernel& k, const std::vector<Arg>& args);
}
template <class... Args> std::string Kernel::ir(Args&&... args) const {
    std::vector<detail::Arg> a;
    (a.push_back(detail::to_arg(args)), ...);
    return detail::kernel_ir(*this, a);
}

}  // namespace kiln
