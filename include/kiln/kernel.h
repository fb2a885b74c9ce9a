// Kernels: kernel(name, lambda) traces the lambda into the Tile IR when it is first
// launched with arguments of a given signature. Nests (parallel / serial /
// pipeline) structure the program; explicit memory<T> resources are optional.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <kiln/ops.h>
#include <kiln/view.h>

namespace kiln {

namespace exec {
enum class Scope : std::uint8_t { AUTOMATIC, GROUP, WORKER };  // seed 004; a hint, kiln's mapper chooses
}

struct PipelineOptions {
    std::uint32_t window = 2;    // stages in flight (software prefetch depth)
    std::uint32_t interval = 1;
};

class Nest;
namespace detail {
struct NestState;
// Opens a loop region over `domain` (closed by NestRange when the body ends).
std::shared_ptr<NestState> open_nest(LoopKind kind, const Shape& domain, const Nest* parent, PipelineOptions opts, Loc loc);
void close_nest(NestState& s);
Value nest_index(const NestState& s, const Axis* a, Loc loc);
void nest_stage(const NestState& s, const std::string& name, Loc loc);
std::shared_ptr<NestState> element_nest(const std::vector<Dim>& dims);
}  // namespace detail

// One level of loop nest. index(axis) resolves within this nest and its ancestors.
class Nest {
public:
    explicit Nest(std::shared_ptr<detail::NestState> s) : s_(std::move(s)) {}
    Scalar<i64> index(const Axis& a, Loc loc = Loc::here()) const { return Scalar<i64>(detail::nest_index(*s_, &a, loc)); }
    Scalar<i64> index(Loc loc = Loc::here()) const { return Scalar<i64>(detail::nest_index(*s_, nullptr, loc)); }
    class Range serial(const Shape& domain, Loc loc = Loc::here()) const;
    class Range pipeline(const Shape& domain, PipelineOptions opts = {}, Loc loc = Loc::here()) const;
    void stage(const std::string& name, Loc loc = Loc::here()) const { detail::nest_stage(*s_, name, loc); }
    const detail::NestState& state() const { return *s_; }

private:
    std::shared_ptr<detail::NestState> s_;
};

// `for (auto& nest : parallel(shape(...)))`: the body runs once, while tracing.
class Range {
public:
    Range(detail::LoopKind kind, Shape domain, const Nest* parent, PipelineOptions opts, Loc loc)
        : kind_(kind), domain_(std::move(domain)), parent_(parent), opts_(opts), loc_(loc) {}
    Range(const Range&) = delete;
    Range& operator=(const Range&) = delete;
    ~Range() noexcept(false) {
        // A `break` out of the body still closes the region (but never mid-exception).
        if (nest_ && !closed_ && std::uncaught_exceptions() == 0) detail::close_nest(const_cast<detail::NestState&>(nest_->state()));
    }
    struct iterator {
        Range* r;
        Nest& operator*() const { return *r->nest_; }
        iterator& operator++() {
            detail::close_nest(const_cast<detail::NestState&>(r->nest_->state()));
            r->closed_ = true;
            return *this;
        }
        bool operator!=(const iterator&) const { return !r->closed_; }
    };
    iterator begin() {
        nest_.emplace(detail::open_nest(kind_, domain_, parent_, opts_, loc_));
        return iterator{this};
    }
    iterator end() { return iterator{this}; }

private:
    detail::LoopKind kind_;
    Shape domain_;
    const Nest* parent_;
    PipelineOptions opts_;
    Loc loc_;
    std::optional<Nest> nest_;
    bool closed_ = false;
};

inline Range Nest::serial(const Shape& domain, Loc loc) const { return Range(detail::LoopKind::serial, domain, this, {}, loc); }
inline Range Nest::pipeline(const Shape& domain, PipelineOptions opts, Loc loc) const {
    return Range(detail::LoopKind::pipeline, domain, this, opts, loc);
}
// The grid: one program instance per point of the domain, in row-major pid order.
inline Range parallel(const Shape& domain, Loc loc = Loc::here()) { return Range(detail::LoopKind::parallel, domain, nullptr, {}, loc); }
inline Range parallel(const Shape& domain, exec::Scope, Loc loc = Loc::here()) { return parallel(domain, loc); }

// reindex(x, shape, f): out[p] = x[f(p)], f maps each result element (a Nest over
// the result's axes) to a coordinate of x; out-of-range coordinates give 0.
template <Element T, class F> Tile<T> reindex(const Tile<T>& x, const Shape& s, F&& f, Loc loc = Loc::here()) {
    auto dims = s.dims(loc);
    Nest element(detail::element_nest(dims));
    Coord c = f(static_cast<const Nest&>(element));
    return Tile<T>(detail::reindex(x.value(), dims, c.values, loc));
}

// ---- explicit memory (seed 004 section 2.1)
struct Layout {
    Shape shape;
    std::vector<std::int64_t> strides;
};
inline Layout layout(const Shape& s, const Stride& st) { return Layout{s, st.values}; }
namespace detail {
// Proves the layout total, in bounds and injective (or fails naming the reason).
void prove_layout(const Layout& l, Loc loc);
Value mem_store(const Value& v, const Layout& l, mem::Resource r, Loc loc);
Value mem_load(const Value& v, Loc loc);
}  // namespace detail
template <Element T> class Memory {
public:
    Memory(Layout l, mem::Resource r, Loc loc) : layout_(std::move(l)), resource_(r) {
        detail::prove_layout(layout_, loc);
        contents_.emplace(zeros<T>(layout_.shape, loc));
    }
    void store(const Tile<T>& v, Loc loc = Loc::here()) { *contents_ = Tile<T>(detail::mem_store(v.value(), layout_, resource_, loc)); }
    Tile<T> load(Loc loc = Loc::here()) const { return Tile<T>(detail::mem_load(contents_->value(), loc)); }
    const Layout& layout() const { return layout_; }

private:
    Layout layout_;
    mem::Resource resource_;
    std::optional<Tile<T>> contents_;  // the resource's state: a variable, so loops carry it
};
template <Element T> Memory<T> memory(Layout l, mem::Resource r = mem::auto_, Loc loc = Loc::here()) {
    return Memory<T>(std::move(l), r, loc);
}

// ---- kernels
enum class Precision : std::uint8_t {
    exact,     // bit-exact with the interpreter on every target: pinned orders, no FMA, kiln math
    standard,  // the default: reductions and mma may reassociate (tensor cores, trees)
    fast,      // standard, and f32 exp may be the hardware's approximation (like -use_fast_math;
               // docs/semantics.md gives its error bound); targets without one compute standard
};
// The spelling of a precision on the command line, in plans and in cache keys.
constexpr std::string_view precision_name(Precision p) {
    switch (p) {
        case Precision::exact: return "exact";
        case Precision::standard: return "standard";
        case Precision::fast: return "fast";
    }
    return "standard";
}
// The precision spelled `name`, or nullopt.
constexpr std::optional<Precision> precision_named(std::string_view name) {
    for (Precision p : {Precision::exact, Precision::standard, Precision::fast})
        if (precision_name(p) == name) return p;
    return std::nullopt;
}
// Element offsets: automatic is the contract's rule (32-bit when every view's
// reachable span fits, else 64-bit); wide asks for 64-bit offsets always, which
// gives the same results (a way to test the wide paths without 2^31-element views).
enum class IndexWidth : std::uint8_t { automatic, wide };
struct CompileOptions {
    Precision precision = Precision::standard;
    IndexWidth index_width = IndexWidth::automatic;
};

namespace detail {
// What a kernel parameter is, from the lambda's parameter type.
template <class P> struct ParamTraits {
    static_assert(always_false<P>::value, "kiln: a kernel's parameters are View<T, R> (tensors) and Scalar<T> (numbers)");
};
template <class T, int R> struct ParamTraits<View<T, R>> {
    static ParamSig sig() {
        using E = std::remove_const_t<T>;
        return {true, kind_of<E>, R, View<T, R>::writable,
                std::string("View<") + (View<T, R>::writable ? "" : "const ") + std::string(kind_name(kind_of<E>)) + ", " + std::to_string(R) + ">"};
    }
    static View<T, R> make(int i) { return View<T, R>(i); }
};
Value param_value(int index, Kind kind);
template <class T> struct ParamTraits<Scalar<T>> {
    static ParamSig sig() { return {false, kind_of<T>, 0, false, "Scalar<" + std::string(kind_name(kind_of<T>)) + ">"}; }
    static Scalar<T> make(int i) { return Scalar<T>(param_value(i, kind_of<T>)); }
};
template <class F> struct LambdaArgs : LambdaArgs<decltype(&F::operator())> {};
template <class C, class R, class... A> struct LambdaArgs<R (C::*)(A...) const> { using type = std::tuple<std::remove_cvref_t<A>...>; };
template <class C, class R, class... A> struct LambdaArgs<R (C::*)(A...)> { using type = std::tuple<std::remove_cvref_t<A>...>; };

struct KernelImpl;
struct LaunchHead;  // target.h: the target or first argument of a launch, and where it was written
// Using an empty Kernel (default-constructed or moved from) is an error, not a crash.
[[noreturn]] void empty_kernel(std::string_view what, Loc loc);
}  // namespace detail
class Target;
class Executable;  // executable.h: a kernel compiled for a target
class Capture;     // executable.h: a kernel traced for argument shapes

// A kernel: a name, the traced lambda, and the programs traced from it so far
// (one per signature of statically used extents).
class Kernel {
public:
    Kernel() = default;  // an empty handle; assign a kernel(...) to it
    Kernel(std::shared_ptr<detail::KernelImpl> impl) : impl_(std::move(impl)) {}
    explicit operator bool() const { return impl_ != nullptr; }  // false: empty
    const std::string& name(Loc loc = Loc::here()) const;
    const std::vector<detail::ParamSig>& params(Loc loc = Loc::here()) const;
    // Programs traced so far: one per specialisation the launches have met (a new
    // value of an extent used statically traces again; KILN_WARN_RETRACE=1 says so).
    int traces(Loc loc = Loc::here()) const;
    const detail::KernelImpl& impl(Loc loc = Loc::here()) const {
        if (!impl_) detail::empty_kernel("kernel", loc);
        return *impl_;
    }
    std::shared_ptr<detail::KernelImpl> shared_impl() const { return impl_; }  // null when empty

    // k.launch(target, args...) runs on that target; k.launch(args...) goes through
    // the launch handler stack to the default target. The first argument carries
    // the line of the call (detail::LaunchHead), which launch errors name. Defined
    // in target.h.
    template <class... Args> void launch(detail::LaunchHead head, Args&&... args) const;
    // The Tile IR traced for these arguments, as text.
    template <class... Args> std::string ir(Args&&... args) const;

    // A compiled handle on a target with fixed options (executable.h). With shapes
    // (tensor_shape(m, n) for views, values for scalars) the program is traced and
    // compiled now, ahead of any launch; without, on each new shape's first launch.
    Executable compile(const Target& t, CompileOptions o = {}, Loc loc = Loc::here()) const;
    template <class S0, class... S> requires(!std::is_same_v<S0, Loc>)
    Executable compile(const Target& t, CompileOptions o, const S0& s0, const S&... shapes) const;
    // The program for argument shapes, traced and verified (seed 004's capture).
    template <class... S> Capture capture(const S&... shapes) const;

private:
    std::shared_ptr<detail::KernelImpl> impl_;
};

namespace detail {
std::shared_ptr<KernelImpl> new_kernel(std::string name, std::vector<ParamSig> params, std::function<void()> trace, Loc loc);
template <class F, class... P, std::size_t... I> void call_traced(F& f, std::tuple<P...>*, std::index_sequence<I...>) {
    f(ParamTraits<P>::make(static_cast<int>(I))...);
}
}  // namespace detail

template <class F> Kernel kernel(std::string name, F f, Loc loc = Loc::here()) {
    // The parameter types are the launch signature, so they must be written out.
    static_assert(requires { &F::operator(); },
                  "kiln: kernel(name, f) takes a lambda whose parameters are typed (View<T, R>, Scalar<T>); a generic lambda "
                  "(auto parameters) or a non-callable has no signature to launch with");
    using Args = typename detail::LambdaArgs<F>::type;
    std::vector<detail::ParamSig> sigs;
    std::apply([&](auto*... p) { (sigs.push_back(detail::ParamTraits<std::remove_pointer_t<decltype(p)>>::sig()), ...); },
               [] <class... P>(std::tuple<P...>*) { return std::tuple<P*...>{}; }(static_cast<Args*>(nullptr)));
    auto trace = [f]() mutable {
        detail::call_traced(f, static_cast<Args*>(nullptr), std::make_index_sequence<std::tuple_size_v<Args>>{});
    };
    return Kernel(detail::new_kernel(std::move(name), std::move(sigs), std::move(trace), loc));
}
template <class F> Kernel tile_kernel(std::string name, F f, Loc loc = Loc::here()) { return kernel(std::move(name), std::move(f), loc); }

}  // namespace kiln
