// Compiled handles: a kernel bound to a target and compile options, optionally
// captured for argument shapes ahead of time (seed 004's `capture(tensor_shape(...))`),
// whose plan, generated source and Tile IR can be read before or after it runs.
//
//     auto exe = k.compile(cpu(), {.precision = Precision::exact}, tensor_shape(4096, 128), tensor_shape(4096, 128));
//     std::cout << exe.plan();             // the schedule for those shapes, compiled into the cache already
//     exe.launch(x.view(), y.view());     // runs; other shapes specialise (and compile) on first use
#pragma once

#include <memory>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include <kiln/target.h>

namespace kiln {

// The shape of a view argument without its memory: extents, and strides in
// elements (row-major when empty). The kind and access come from the kernel's
// parameter.
struct ShapeSpec {
    std::vector<std::int64_t> extents;
    std::vector<std::int64_t> strides;
    Loc loc;
};
// tensor_shape(m, n): a row-major shape (seed 004's spelling), recording its line.
template <class... E> requires(std::is_integral_v<E> && ...) struct tensor_shape : ShapeSpec {
    tensor_shape(E... extents, std::source_location s = std::source_location::current())
        : ShapeSpec{{static_cast<std::int64_t>(extents)...}, {}, Loc{s.file_name(), s.line()}} {}
};
template <class... E> tensor_shape(E...) -> tensor_shape<E...>;
inline ShapeSpec strided_shape(std::vector<std::int64_t> extents, std::vector<std::int64_t> strides, Loc loc = Loc::here()) {
    return ShapeSpec{std::move(extents), std::move(strides), loc};
}

namespace detail {
struct ExecutableImpl;
struct CaptureImpl;
// A capture argument: a view's shape (no memory), or a scalar's value.
inline Arg capture_arg(const ShapeSpec& s) {
    Arg a;
    a.extents = s.extents;
    a.strides = s.strides;
    return a;
}
template <class T> requires(!std::is_base_of_v<ShapeSpec, T>) Arg capture_arg(const T& scalar) { return to_arg(scalar); }
template <class S> Loc capture_loc(const S& s) {
    if constexpr (std::is_base_of_v<ShapeSpec, S>) return s.loc;
    else return Loc{};
}
// What capture and compile share: the shapes checked against the kernel's
// parameters (kinds and access from the signature), traced and verified.
std::shared_ptr<CaptureImpl> capture(const Kernel& k, std::vector<Arg> shapes, std::vector<Loc> locs, Loc loc);
std::shared_ptr<ExecutableImpl> compile(const Kernel& k, const Target& t, const CompileOptions& o, std::shared_ptr<CaptureImpl> c, Loc loc);
void launch_executable(const ExecutableImpl& e, LaunchRequest& req);
const Kernel& executable_kernel(const ExecutableImpl& e);

// A launch through an executable fills a request kept per thread (and nesting
// depth, for a launch made inside a handler), whose argument vectors keep their
// capacity: a warm launch of views allocates nothing.
class ReusedRequest {
public:
    ReusedRequest();
    ~ReusedRequest();
    ReusedRequest(const ReusedRequest&) = delete;
    ReusedRequest& operator=(const ReusedRequest&) = delete;
    LaunchRequest& operator*() const { return *req_; }
    LaunchRequest* operator->() const { return req_; }

private:
    LaunchRequest* req_;
};
}  // namespace detail

// A compiled handle: launches run on its target with its options; plan(), source()
// and ir() describe the program of the captured shapes, else of the last launch.
class Executable {
public:
    Executable() = default;
    explicit Executable(std::shared_ptr<detail::ExecutableImpl> impl) : impl_(std::move(impl)) {}

    template <class... Args> void launch(detail::LaunchHead head, Args&&... args) const;
    std::string plan(Loc loc = Loc::here()) const;
    std::string source(Loc loc = Loc::here()) const;    // the generated source (CUDA C++, C++)
    std::string assembly(Loc loc = Loc::here()) const;  // the cuda target's PTX
    std::string ir(Loc loc = Loc::here()) const;        // the Tile IR
    const Kernel& kernel() const;
    const Target& target() const;
    const CompileOptions& options() const;

private:
    std::shared_ptr<detail::ExecutableImpl> impl_;
};

// A kernel traced for argument shapes: its program exists (and has been verified)
// before any memory does. compile() makes an executable of it.
class Capture {
public:
    explicit Capture(std::shared_ptr<detail::CaptureImpl> impl) : impl_(std::move(impl)) {}
    std::string ir() const;
    const Kernel& kernel() const;
    // Compiles the captured program for the target now (into the on-disk cache).
    Executable compile(const Target& t, CompileOptions o = {}, Loc loc = Loc::here()) const;

private:
    std::shared_ptr<detail::CaptureImpl> impl_;
};

template <class... S> Capture Kernel::capture(const S&... shapes) const {
    std::vector<detail::Arg> args;
    std::vector<Loc> locs;
    (args.push_back(detail::capture_arg(shapes)), ...);
    (locs.push_back(detail::capture_loc(shapes)), ...);
    Loc loc;
    for (const Loc& l : locs)
        if (l.known() && !loc.known()) loc = l;
    return Capture(detail::capture(*this, std::move(args), std::move(locs), loc));
}

template <class S0, class... S> requires(!std::is_same_v<S0, Loc>)
Executable Kernel::compile(const Target& t, CompileOptions o, const S0& s0, const S&... shapes) const {
    return capture(s0, shapes...).compile(t, o, detail::capture_loc(s0));
}

template <class... Args> void Executable::launch(detail::LaunchHead head, Args&&... args) const {
    if (!impl_) fail(head.loc, "launch", "an empty executable; assign k.compile(target) to it");
    if (head.target)
        fail(head.loc, "launch", "an executable runs on the target it was compiled for (" + target().name() +
                                     "); launch it with the kernel's arguments only");
    detail::ReusedRequest req;
    req->kernel = &detail::executable_kernel(*impl_);
    req->loc = head.loc;
    req->args.resize(sizeof...(Args) + 1);
    head.write_first(req->args[0]);
    std::size_t k = 1;
    (detail::assign_arg(req->args[k++], args), ...);
    detail::launch_executable(*impl_, *req);
}

}  // namespace kiln
