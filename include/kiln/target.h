// Targets (where a launch runs) and the launch effect: a scoped stack of handlers
// that can observe a launch, replace it, or pass it on; the bottom handler runs
// the default target ($KILN_TARGET, else the interpreter).
#pragma once

#include <cstdint>
#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <kiln/kernel.h>
#include <kiln/stream.h>

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
    int ordinal = 0;       // the CUDA device of device memory
};
template <class T> Arg to_arg(const HostView<T>& v) {
    using E = std::remove_const_t<T>;
    return Arg{true, kind_of<E>, const_cast<E*>(v.data), std::is_const_v<T>, v.device, v.extents, v.strides, 0, 0, v.ordinal};
}
template <class T> Arg to_arg(Tensor<T>& t) {
    Arg a{true, kind_of<T>, t.data(), false, t.device(), t.extents(), row_major_strides(t.extents()), 0, 0, t.ordinal()};
    return a;
}
template <class T> Arg to_arg(const Tensor<T>& t) {
    Arg a{true, kind_of<T>, const_cast<T*>(t.data()), true, t.device(), t.extents(), row_major_strides(t.extents()), 0, 0, t.ordinal()};
    return a;
}
// Anything that knows its launch argument (a foreign tensor: dlpack.h).
template <class T> requires requires(const T& t) { { t.launch_arg() } -> std::same_as<Arg>; }
Arg to_arg(const T& t) { return t.launch_arg(); }
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
    if constexpr (FloatElement<T>) a.f = static_cast<double>(s.get(Loc{}));
    else a.i = static_cast<std::int64_t>(s.get(Loc{}));
    return a;
}
// What a launch takes: views, tensors, kiln scalars and numbers. Anything else
// stops here with kiln's message rather than at a failed overload of to_arg.
template <class A> concept LaunchArgument = requires(A&& a) { to_arg(std::forward<A>(a)); };
template <class A> Arg checked_arg(A&& a) {
    if constexpr (LaunchArgument<A>) return to_arg(std::forward<A>(a));
    else {
        static_assert(always_false<A>::value, "kiln: a launch argument is a view (x.view(), view(ptr, extents)), a Tensor, a Scalar<T> or a number");
        return Arg{};
    }
}
struct TargetImpl;
struct ExecutableImpl;
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
Target interp(InterpOptions options = {});
Target cpu();
// CUDA device 0 (or `device`): each launch waits for its kernel, so a failure is
// reported at its launch. Bound to a stream (stream.h), launches are enqueued
// without waiting and failures surface at the stream's next synchronisation.
Target cuda();
Target cuda(int device);
Target cuda(const Stream& stream);
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
    const detail::ExecutableImpl* executable = nullptr;  // set by Executable::launch (executable.h)
    bool is_kernel() const { return kernel != nullptr; }
};
using Next = std::function<void(LaunchRequest&)>;
using LaunchHandler = std::function<void(LaunchRequest&, const Next& next)>;

// Installs a handler for the current scope (innermost first).
class HandlerScope {
public:
    explicit HandlerScope(LaunchHandler h, Loc loc = Loc::here());
    ~HandlerScope();
    HandlerScope(const HandlerScope&) = delete;
    HandlerScope& operator=(const HandlerScope&) = delete;

private:
    std::size_t depth_;
};
[[nodiscard]] inline HandlerScope handle_launch(LaunchHandler h, Loc loc = Loc::here()) { return HandlerScope(std::move(h), loc); }

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

namespace detail {
// Writes a launch argument into `a` in place: a view's extents and strides reuse
// a's vectors (a warm launch through an executable allocates nothing).
template <class T> void assign_arg(Arg& a, const HostView<T>& v) {
    using E = std::remove_const_t<T>;
    a.is_view = true;
    a.kind = kind_of<E>;
    a.data = const_cast<E*>(v.data);
    a.read_only = std::is_const_v<T>;
    a.device = v.device;
    a.extents.assign(v.extents.begin(), v.extents.end());
    a.strides.assign(v.strides.begin(), v.strides.end());
    a.f = 0;
    a.i = 0;
    a.ordinal = v.ordinal;
}
template <class T> void assign_arg(Arg& a, HostView<T>& v) { assign_arg(a, std::as_const(v)); }
template <class A> void assign_arg(Arg& a, A& x) { a = to_arg(x); }
// Per-launch options, accepted right after the target: k.launch(cpu(), Precision::exact, x, y).
void set_launch_options(LaunchRequest& req, const CompileOptions& o);
template <class A> void add_launch_arg(LaunchRequest& req, A& a) {
    if constexpr (std::is_same_v<std::remove_cv_t<A>, Precision>) set_launch_options(req, CompileOptions{.precision = a});
    else if constexpr (std::is_same_v<std::remove_cv_t<A>, CompileOptions>) set_launch_options(req, a);
    else req.args.push_back(checked_arg(a));
}
// What a launch is given first: the target, or the first argument. A parameter
// pack cannot be followed by a defaulted location, so this records where the
// launch was written (its constructors take the caller's source location; the
// conversion happens at the call).
//
// Without a target, the first argument is referred to, not copied: it lives until
// the launch returns (the end of the call's full expression), and write_first
// writes it into the request's argument in place.
struct LaunchHead {
    std::optional<Target> target;
    Loc loc;
    LaunchHead(const Target& t, std::source_location s = std::source_location::current()) : target(t), loc{s.file_name(), s.line()} {}
    template <class A> requires(!std::is_same_v<std::remove_cvref_t<A>, Target> && LaunchArgument<A>)
    LaunchHead(A&& a, std::source_location s = std::source_location::current())
        : loc{s.file_name(), s.line()},
          first_(const_cast<void*>(static_cast<const void*>(&a))),
          write_([](Arg& out, void* p) { assign_arg(out, *static_cast<std::remove_reference_t<A>*>(p)); }) {}
    bool has_first() const { return write_ != nullptr; }
    void write_first(Arg& out) const { write_(out, first_); }

private:
    void* first_ = nullptr;
    void (*write_)(Arg&, void*) = nullptr;
};
}  // namespace detail

template <class... Args> void Kernel::launch(detail::LaunchHead head, Args&&... args) const {
    if (!impl_) detail::empty_kernel("launch", head.loc);
    LaunchRequest req;
    req.kernel = this;
    req.loc = head.loc;
    req.args.reserve(sizeof...(Args) + 1);
    if (head.target) req.target = std::move(head.target);
    else head.write_first(req.args.emplace_back());
    (detail::add_launch_arg(req, args), ...);
    dispatch(req);
}

namespace detail {
std::string kernel_ir(const Kernel& k, const std::vector<Arg>& args);
}
template <class... Args> std::string Kernel::ir(Args&&... args) const {
    std::vector<detail::Arg> a;
    (a.push_back(detail::checked_arg(args)), ...);
    return detail::kernel_ir(*this, a);
}

}  // namespace kiln
