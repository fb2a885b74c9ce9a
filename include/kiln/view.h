// Views: tensors in memory as a kernel sees them (View<T, rank>, with access mode
// from constness), and host tensors and views as the caller passes them.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include <kiln/detail/ir_enums.h>
#include <kiln/tile.h>

namespace kiln {

// A[coord, shape] in C++20: the comma, overloaded only for DSL coordinates, forms one selection.
struct Selection {
    Coord origin;
    Shape extent;
    bounds::Policy policy = bounds::zero;
};
inline Selection operator,(const Coord& c, const Shape& s) { return Selection{c, s, bounds::zero}; }
inline Selection operator,(Selection sel, bounds::Policy p) { sel.policy = p; return sel; }

namespace detail {
// An access's arguments with the line the access is written on (errors name it,
// not the line of its coord()): operator[] cannot take a defaulted
// std::source_location, but the conversion of its argument to these can, and it
// happens at the access.
struct SelectionAt {
    Selection selection;
    Loc loc;
    SelectionAt(const Selection& s, std::source_location l = std::source_location::current()) : selection(s), loc{l.file_name(), l.line()} {}
};
struct ShapeAt {  // a C++23 subscript's last argument: x[coord, shape]
    Shape shape;
    Loc loc;
    ShapeAt(const Shape& s, std::source_location l = std::source_location::current()) : shape(s), loc{l.file_name(), l.line()} {}
};
struct PolicyAt {  // x[coord, shape, policy]
    bounds::Policy policy;
    Loc loc;
    PolicyAt(bounds::Policy p, std::source_location l = std::source_location::current()) : policy(p), loc{l.file_name(), l.line()} {}
};
Value load_view(int param, const Coord& origin, const Shape& shape, bounds::Policy policy, const Value* fallback, Loc loc);
void store_view(int param, const Coord& origin, const Shape& shape, bounds::Policy policy, const Value& value, Loc loc);
Extent view_extent(int param, int dim, bool stride, Loc loc);
}  // namespace detail

// A reference to a region of a view: no read until load().
template <class T, int R> class MemoryRef {
public:
    using E = std::remove_const_t<T>;
    MemoryRef(int param, Coord c, Shape s, bounds::Policy p) : param_(param), origin_(std::move(c)), shape_(std::move(s)), policy_(p) {}
    Tile<E> load(Loc loc = Loc::here()) const { return Tile<E>(detail::load_view(param_, origin_, shape_, policy_, nullptr, loc)); }
    template <class V> Tile<E> load(const V& fallback, Loc loc = Loc::here()) const {
        auto f = detail::lift<E>(fallback);
        return Tile<E>(detail::load_view(param_, origin_, shape_, policy_, &f, loc));
    }
    template <class V> void store(const V& v, Loc loc = Loc::here()) const {
        static_assert(detail::is_value_v<std::remove_cvref_t<V>>, "kiln: store takes a Tile or Scalar");
        static_assert(std::is_same_v<detail::value_kind_t<V>, E>,
                      "kiln: stored tile's element kind differs from the view's; convert with cast<T>()");
        detail::store_view(param_, origin_, shape_, policy_, v.value(), loc);
    }

private:
    int param_;
    Coord origin_;
    Shape shape_;
    bounds::Policy policy_;
};

// A kernel parameter: a view of rank R over elements T; const T = read access,
// T = write/readwrite. Extents are launch values unless used statically.
template <class T, int R> class View {
public:
    using element_type = std::remove_const_t<T>;
    static constexpr int rank = R;
    static constexpr bool writable = !std::is_const_v<T>;
    static_assert(Element<element_type>, "kiln: unsupported view element type");
    static_assert(R >= 1 && R <= 8, "kiln: views have rank 1 to 8");

    explicit View(int param) : param_(param) {}
    Extent extent(int d, Loc loc = Loc::here()) const { return detail::view_extent(param_, d, false, loc); }
    template <int D> Extent extent(Loc loc = Loc::here()) const {
        static_assert(D >= 0 && D < R, "kiln: extent<D>() outside the view's rank");
        return detail::view_extent(param_, D, false, loc);
    }
    Extent stride(int d, Loc loc = Loc::here()) const { return detail::view_extent(param_, d, true, loc); }
    // Specialisation under control (Triton's tl.constexpr role): static_extent bakes
    // the launch's value into the program (a launch with another value traces a new
    // one); dynamic_extent promises the program never depends on the value, and a
    // static use of it is an error rather than a silent specialisation.
    Extent static_extent(int d, Loc loc = Loc::here()) const { return Extent(detail::view_extent(param_, d, false, loc).get()); }
    Extent dynamic_extent(int d, Loc loc = Loc::here()) const { return detail::view_extent(param_, d, false, loc).declare_dynamic(loc); }

    Tile<element_type> operator[](const detail::SelectionAt& s) const {
        return Tile<element_type>(detail::load_view(param_, s.selection.origin, s.selection.extent, s.selection.policy, nullptr, s.loc));
    }
#if defined(__cpp_multidimensional_subscript)
    Tile<element_type> operator[](const Coord& c, const detail::ShapeAt& s) const {
        return Tile<element_type>(detail::load_view(param_, c, s.shape, bounds::zero, nullptr, s.loc));
    }
    Tile<element_type> operator[](const Coord& c, const Shape& s, const detail::PolicyAt& p) const {
        return Tile<element_type>(detail::load_view(param_, c, s, p.policy, nullptr, p.loc));
    }
#endif
    MemoryRef<T, R> operator()(const Coord& c, const Shape& s, bounds::Policy p = bounds::zero) const { return {param_, c, s, p}; }
    MemoryRef<T, R> tile(const Coord& c, const Shape& s, bounds::Policy p = bounds::zero) const { return {param_, c, s, p}; }
    int param() const { return param_; }

private:
    int param_;
};
template <class T, int R> using TensorView = View<T, R>;  // seed 004's name

// ---- host side

// Where a tensor lives.
enum class Device : std::uint8_t { host, cuda };

// A view over memory the caller owns: extents and strides in elements. A view of a
// device tensor points into device memory and says so.
template <class T> struct HostView {
    T* data = nullptr;
    std::vector<std::int64_t> extents;
    std::vector<std::int64_t> strides;
    Device device = Device::host;
    int ordinal = 0;  // which CUDA device, for device memory
};
namespace detail {
// What is wrong with a view's extents and strides ("" when nothing): no
// dimension or more than 8, counts that differ, negative extents or strides, a
// span beyond 64-bit byte offsets.
std::string view_shape_problem(const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides);
// The same, and a data pointer that is null, or not aligned to its elements of
// `element_bytes`, while the view has elements.
// The data pointer of a view whose shape is valid: null or misaligned where the
// view has elements.
std::string view_data_problem(const void* data, int element_bytes, const std::vector<std::int64_t>& extents);
// The common case of view_data_problem, decided inline on every launch: a pointer
// aligned to its elements is fine whatever the extents.
inline bool data_pointer_fine(const void* data, int element_bytes) {
    return data && reinterpret_cast<std::uintptr_t>(data) % static_cast<std::uintptr_t>(element_bytes) == 0;
}
std::string view_problem(const void* data, int element_bytes, const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides);
// view_shape_problem as an error naming `loc`.
void check_host_view(const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides, Loc loc);
std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t>& extents);
}  // namespace detail
template <class T>
HostView<T> view(T* data, std::vector<std::int64_t> extents, std::vector<std::int64_t> strides = {}, Loc loc = Loc::here()) {
    static_assert(Element<std::remove_const_t<T>>, "kiln: unsupported element type for a view");
    if (strides.empty()) strides = detail::row_major_strides(extents);
    if (auto why = detail::view_problem(data, static_cast<int>(sizeof(T)), extents, strides); !why.empty()) fail(loc, "view", why);
    return HostView<T>{data, std::move(extents), std::move(strides), Device::host, 0};
}

namespace detail {
struct StreamState;  // stream.h
}
// Where a tensor goes: the host, or a CUDA device (and the stream its copies are
// ordered on; none: synchronous copies).
struct Placement {
    Device device = Device::host;
    int ordinal = 0;
    std::shared_ptr<detail::StreamState> stream;
};
inline Placement host() { return Placement{}; }

namespace detail {
// Device memory belongs to the CUDA target; these hooks move bytes there and back,
// on the placement's stream when it has one (a download waits for it).
struct DeviceBuffer;
std::shared_ptr<DeviceBuffer> device_alloc(std::size_t bytes);  // device 0, synchronous copies
// Fails naming `loc` (the .to() call) when no device can hold the buffer.
std::shared_ptr<DeviceBuffer> device_alloc(const Placement& where, std::size_t bytes, Loc loc = {});
void device_upload(DeviceBuffer& b, const void* src, std::size_t bytes);
void device_download(const DeviceBuffer& b, void* dst, std::size_t bytes);
void device_copy(DeviceBuffer& to, const DeviceBuffer& from, std::size_t bytes);
void* device_pointer(const DeviceBuffer& b);
int device_ordinal(const DeviceBuffer& b);
}  // namespace detail

// An owning, row-major tensor, on the host or resident on a device.
template <Element T> class Tensor {
    static_assert(!std::is_same_v<T, bool>, "kiln: Tensor<bool> is not supported; store masks as Tensor<i8>");

public:
    Tensor() = default;
    explicit Tensor(std::vector<std::int64_t> extents, Loc loc = Loc::here()) : extents_(std::move(extents)) {
        detail::check_host_view(extents_, detail::row_major_strides(extents_), loc);
        host_.assign(static_cast<std::size_t>(size()), T{});
    }
    Tensor(std::vector<std::int64_t> extents, std::vector<T> values, Loc loc = Loc::here()) : Tensor(std::move(extents), loc) {
        if (static_cast<std::int64_t>(values.size()) != size())
            fail(loc, "Tensor", "got " + std::to_string(values.size()) + " values for " + std::to_string(size()) + " elements");
        host_ = std::move(values);
    }
    const std::vector<std::int64_t>& extents() const { return extents_; }
    std::int64_t extent(int d) const { return extents_.at(static_cast<std::size_t>(d)); }
    std::int64_t size() const {
        std::int64_t n = 1;
        for (auto e : extents_) n *= e;
        return n;
    }
    Device device() const { return dev_ ? Device::cuda : Device::host; }
    T* data() { return dev_ ? static_cast<T*>(detail::device_pointer(*dev_)) : host_.data(); }
    const T* data() const { return dev_ ? static_cast<const T*>(detail::device_pointer(*dev_)) : host_.data(); }
    T& operator[](std::int64_t i) { return host_.at(static_cast<std::size_t>(i)); }
    const T& operator[](std::int64_t i) const { return host_.at(static_cast<std::size_t>(i)); }
    std::vector<T>& values() { return host_; }
    const std::vector<T>& values() const { return host_; }
    int ordinal() const { return dev_ ? detail::device_ordinal(*dev_) : 0; }
    HostView<T> view() { return HostView<T>{data(), extents_, detail::row_major_strides(extents_), device(), ordinal()}; }
    HostView<const T> view() const { return HostView<const T>{data(), extents_, detail::row_major_strides(extents_), device(), ordinal()}; }

    // A copy resident where a target runs; t.to(host()) copies back. With a
    // stream-bound target (x.to(cuda(stream))) the copy is ordered on that stream,
    // and so are the tensor's later copies; copying back waits for that stream only.
    Tensor to(const Placement& p, Loc loc = Loc::here()) const {
        Tensor r;
        r.extents_ = extents_;
        std::size_t bytes = static_cast<std::size_t>(size()) * sizeof(T);
        if (p.device == Device::cuda) {
            r.dev_ = detail::device_alloc(p, bytes, loc);
            if (dev_) detail::device_copy(*r.dev_, *dev_, bytes);
            else detail::device_upload(*r.dev_, host_.data(), bytes);
        } else {
            r.host_.resize(static_cast<std::size_t>(size()));
            if (dev_) detail::device_download(*dev_, r.host_.data(), bytes);
            else r.host_ = host_;
        }
        return r;
    }

private:
    std::vector<std::int64_t> extents_;
    std::vector<T> host_;
    std::shared_ptr<detail::DeviceBuffer> dev_;
};

}  // namespace kiln
