// Foreign memory: tensors other libraries own (PyTorch, NumPy, CuPy, JAX ...),
// exchanged without copying through DLPack (the official header, vendored in
// third_party/dlpack), and kiln tensors handed to them the same way.
//
//     ForeignTensor x = from_dlpack(managed);       // takes ownership of the producer's tensor
//     k.launch(cpu(), x, y);                        // a launch argument as it is, or
//     HostView<const f32> v = x.view<const f32>();  // a typed, checked view
//     DLManagedTensorVersioned* out = to_dlpack(std::move(tensor));  // the consumer calls out->deleter
#pragma once

#include <memory>
#include <vector>

#include <dlpack/dlpack.h>

#include <kiln/target.h>

namespace kiln {

namespace detail {
struct ForeignState;
// The launch argument for a DLPack tensor, checked: a kind kiln has (lanes 1),
// host or CUDA memory, strides that are not negative and offsets that fit, a data
// pointer aligned for its kind. Null strides mean row-major (compact).
Arg dlpack_arg(const DLTensor& t, bool read_only, Loc loc);
DLDataType dlpack_dtype(Kind k);
}  // namespace detail

// A tensor another library owns, viewed through DLPack. It holds the producer's
// managed tensor and calls its deleter when the last copy of this handle goes.
class ForeignTensor {
public:
    Kind kind() const;
    Device device() const;
    int ordinal() const;  // the CUDA device of device memory
    void* data() const;   // the first element (byte_offset applied)
    const std::vector<std::int64_t>& extents() const;
    const std::vector<std::int64_t>& strides() const;  // in elements
    bool read_only() const;  // the producer marked it so (DLPACK_FLAG_BITMASK_READ_ONLY)

    // A typed view: T must be the tensor's kind, and const unless it is writable.
    template <class T> HostView<T> view(Loc loc = Loc::here()) const {
        static_assert(Element<std::remove_const_t<T>>, "kiln: unsupported element type for a view");
        check_view(kind_of<std::remove_const_t<T>>, std::is_const_v<T>, loc);
        return HostView<T>{static_cast<T*>(data()), extents(), strides(), device(), ordinal()};
    }
    // As a launch argument: k.launch(cpu(), x, y).
    detail::Arg launch_arg() const;
    // The producer's description, as it gave it.
    const DLTensor& dl_tensor() const;

    explicit ForeignTensor(std::shared_ptr<detail::ForeignState> s) : s_(std::move(s)) {}

private:
    void check_view(Kind k, bool as_const, Loc loc) const;
    std::shared_ptr<detail::ForeignState> s_;
};

// Imports a producer's tensor. Ownership passes to kiln at once: the deleter is
// called when the last ForeignTensor copy goes, or before an error is thrown.
ForeignTensor from_dlpack(DLManagedTensorVersioned* t, Loc loc = Loc::here());
ForeignTensor from_dlpack(DLManagedTensor* t, Loc loc = Loc::here());  // the unversioned form (DLPack < 1.0)

namespace detail {
// A DLPack description of a tensor whose storage `owner` keeps alive (strides in
// elements; empty: row-major).
DLManagedTensorVersioned* export_dlpack(std::shared_ptr<void> owner, void* data, Kind kind, Device device, int ordinal,
                                        const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides = {},
                                        bool read_only = false);
DLManagedTensor* export_dlpack_unversioned(std::shared_ptr<void> owner, void* data, Kind kind, Device device, int ordinal,
                                           const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides = {});
}  // namespace detail

// Hands a tensor to another library without copying its elements: the tensor
// moves into the result (pass a copy to keep one), which the consumer releases
// with its deleter. Row-major; on the host or on its CUDA device.
template <Element T> DLManagedTensorVersioned* to_dlpack(Tensor<T> t) {
    auto owner = std::make_shared<Tensor<T>>(std::move(t));
    return detail::export_dlpack(owner, owner->data(), kind_of<T>, owner->device(), owner->ordinal(), owner->extents());
}
template <Element T> DLManagedTensor* to_dlpack_unversioned(Tensor<T> t) {
    auto owner = std::make_shared<Tensor<T>>(std::move(t));
    return detail::export_dlpack_unversioned(owner, owner->data(), kind_of<T>, owner->device(), owner->ordinal(), owner->extents());
}

}  // namespace kiln
