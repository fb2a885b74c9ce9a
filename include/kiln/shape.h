// Axes, shapes, coordinates and extents: the vocabulary of tile shapes.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <kiln/detail/frontend.h>

namespace kiln {

// An integer known when the kernel is captured, possibly read from a view's extent
// (then it is also a launch value). Using it where a static number is needed (a tile
// shape, a host float) specialises the kernel on that extent; using it as a loop
// trip count or in index arithmetic keeps it dynamic.
class Extent {
public:
    Extent(std::int64_t constant) : value_(constant) {}  // NOLINT: integers are extents
    template <class I> requires(std::is_integral_v<I> && !std::is_same_v<I, std::int64_t>)
    Extent(I constant) : value_(static_cast<std::int64_t>(constant)) {}  // NOLINT
    // Without this a floating-point number would convert to the integer
    // constructor above and be truncated silently (axis("m", 2.5) of extent 2).
    template <class F> requires std::is_floating_point_v<F>
    Extent(F) {  // NOLINT
        static_assert(always_false<F>::value, "kiln: extents and coordinates are whole numbers; convert a floating-point number explicitly");
    }

    // The static value; records the specialisation when it depends on a view.
    std::int64_t get() const;
    explicit operator std::int64_t() const { return get(); }
    explicit operator int() const { return static_cast<int>(get()); }
    explicit operator float() const { return static_cast<float>(get()); }
    explicit operator double() const { return static_cast<double>(get()); }
    bool is_constant() const { return deps_.empty() && !runtime_; }
    // Computed inside the kernel (from a program index, say): it can bound a loop,
    // never size a tile.
    bool is_runtime() const { return runtime_; }
    static Extent runtime(detail::Value v);
    // The value as an i64 scalar for traced index arithmetic (no specialisation).
    detail::Value symbolic() const;

    friend Extent operator+(const Extent& a, const Extent& b) { return combine(a, b, detail::OpCode::add); }
    friend Extent operator-(const Extent& a, const Extent& b) { return combine(a, b, detail::OpCode::sub); }
    friend Extent operator*(const Extent& a, const Extent& b) { return combine(a, b, detail::OpCode::mul); }
    friend Extent operator/(const Extent& a, const Extent& b) { return combine(a, b, detail::OpCode::div); }
    friend Extent operator%(const Extent& a, const Extent& b) { return combine(a, b, detail::OpCode::mod); }

    // Internal: an extent read from view `param`, dimension `dim` (or its stride).
    static Extent from_view(int param, int dim, std::int64_t value, bool stride);
    // Declares the extent dynamic (View::dynamic_extent): a static use is then an
    // error naming `loc`, rather than a specialisation on the launch's value.
    Extent& declare_dynamic(Loc loc) {
        dynamic_at_ = loc;
        return *this;
    }
    const std::vector<std::pair<int, int>>& deps() const { return deps_; }
    std::int64_t peek() const { return value_; }  // the value without specialising (kiln internal)

private:
    static Extent combine(const Extent& a, const Extent& b, detail::OpCode op);
    std::int64_t value_ = 0;
    detail::Value sym_;                          // traced i64 scalar; empty when constant
    std::vector<std::pair<int, int>> deps_;      // (view param, dim) it depends on (dim < 0: stride)
    bool runtime_ = false;
    Loc dynamic_at_;                             // where it was declared dynamic (unknown: it was not)
};

inline Extent ceil_div(const Extent& a, const Extent& b) { return (a + b - Extent(1)) / b; }

// A named logical dimension. Two tiles that share an axis broadcast and contract
// along it; names are for messages only.
class Axis {
public:
    Axis(std::string name, Extent extent, Loc loc);
    int id() const { return id_; }
    const std::string& name() const { return name_; }
    const Extent& extent() const { return extent_; }
    std::int64_t size() const { return extent_.get(); }  // static use: specialises
    Loc loc() const { return loc_; }
    bool anonymous() const { return id_ == 0; }
    static Axis anonymous_dim(Extent extent);

private:
    Axis() = default;
    int id_ = 0;
    std::string name_;
    Extent extent_{1};
    Loc loc_;
};

inline Axis axis(std::string name, Extent extent, Loc loc = Loc::here()) {
    return Axis(std::move(name), std::move(extent), loc);
}

// shape(a, b, ...): axes or plain extents (anonymous dimensions).
class Shape {
public:
    Shape() = default;
    explicit Shape(std::vector<Axis> axes) : axes_(std::move(axes)) {}
    const std::vector<Axis>& axes() const { return axes_; }
    int rank() const { return static_cast<int>(axes_.size()); }
    // Static dims for a tile of this shape (specialises dynamic extents). An error
    // names the axis's line, or `use` (where the tile is made) for a plain extent.
    std::vector<detail::Dim> dims(Loc use = {}) const;

private:
    std::vector<Axis> axes_;
};
using IndexSpace = Shape;  // shape of rank 0 (seed 004: full<T>(IndexSpace{}, v))

namespace detail {
inline Axis to_axis(const Axis& a) { return a; }
inline Axis to_axis(const Extent& e) { return Axis::anonymous_dim(e); }
template <class I> requires std::is_integral_v<I> Axis to_axis(I n) { return Axis::anonymous_dim(Extent(n)); }
}  // namespace detail

template <class... A> Shape shape(const A&... a) { return Shape(std::vector<Axis>{detail::to_axis(a)...}); }

// stride(...) for memory layouts.
struct Stride { std::vector<std::int64_t> values; };
template <class... A> Stride stride(const A&... a) { return Stride{{static_cast<std::int64_t>(Extent(a).get())...}}; }

}  // namespace kiln
