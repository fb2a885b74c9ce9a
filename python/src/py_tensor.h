// kiln.Tensor: memory on the Python side that kiln either owns (kiln.empty) or
// borrows from another library (kiln.from_dlpack), exchangeable through DLPack
// both ways without copying.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>

#include <kiln/dlpack.h>

namespace kiln::py {

class PyTensor {
public:
    static PyTensor empty(const std::vector<std::int64_t>& shape, const std::string& dtype);
    static PyTensor from_capsule(nanobind::handle capsule);

    // The DLPack protocol (the Python array API's signature).
    nanobind::object dlpack(nanobind::object stream, std::optional<std::pair<int, int>> max_version) const;
    std::pair<int, int> dlpack_device() const;

    const std::vector<std::int64_t>& shape() const { return extents_; }
    const std::vector<std::int64_t>& strides() const { return strides_; }
    std::string dtype() const;
    std::uintptr_t data_ptr() const { return reinterpret_cast<std::uintptr_t>(data_); }

private:
    std::shared_ptr<void> owner_;
    void* data_ = nullptr;
    Kind kind_ = Kind::F32;
    Device device_ = Device::host;
    int ordinal_ = 0;
    bool read_only_ = false;
    std::vector<std::int64_t> extents_, strides_;
};

// "float32" / "f32" ... to a kind.
Kind kind_named(const std::string& dtype);

}  // namespace kiln::py
