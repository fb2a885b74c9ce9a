#include "py_tensor.h"

#include "dlpack_capsules.h"

namespace nb = nanobind;

namespace kiln::py {

namespace {
struct DtypeName {
    Kind kind;
    const char* numpy;
};
constexpr DtypeName kDtypes[] = {{Kind::Bool, "bool"},       {Kind::I8, "int8"},         {Kind::I32, "int32"},   {Kind::I64, "int64"},
                                 {Kind::F16, "float16"},     {Kind::BF16, "bfloat16"},   {Kind::F32, "float32"}, {Kind::F64, "float64"}};

}  // namespace

Kind kind_named(const std::string& dtype) {
    for (const auto& d : kDtypes)
        if (dtype == d.numpy || dtype == kind_name(d.kind)) return d.kind;
    throw nb::value_error(("kiln: dtype '" + dtype + "' (known: int8, int32, int64, float16, bfloat16, float32, float64)").c_str());
}

std::string PyTensor::dtype() const {
    for (const auto& d : kDtypes)
        if (d.kind == kind_) return d.numpy;
    return std::string(kind_name(kind_));
}

PyTensor PyTensor::empty(const std::vector<std::int64_t>& shape, const std::string& dtype) {
    PyTensor p;
    p.kind_ = kind_named(dtype);
    auto hold = [&](auto tag) {
        using T = decltype(tag);
        auto t = std::make_shared<Tensor<T>>(shape, Loc{});
        p.data_ = t->data();
        p.owner_ = t;
    };
    switch (p.kind_) {
        case Kind::I8: hold(i8{}); break;
        case Kind::I32: hold(i32{}); break;
        case Kind::I64: hold(i64{}); break;
        case Kind::F16: hold(f16{}); break;
        case Kind::BF16: hold(bf16{}); break;
        case Kind::F32: hold(f32{}); break;
        case Kind::F64: hold(f64{}); break;
        case Kind::Bool: throw nb::value_error("kiln: kiln tensors do not hold bool (use int8)");
    }
    p.extents_ = shape;
    p.strides_ = detail::row_major_strides(shape);
    return p;
}

PyTensor PyTensor::from_capsule(nb::handle capsule) {
    ForeignTensor f = take_capsule(capsule);
    PyTensor p;
    p.owner_ = std::make_shared<ForeignTensor>(f);
    p.data_ = f.data();
    p.kind_ = f.kind();
    p.device_ = f.device();
    p.ordinal_ = f.ordinal();
    p.read_only_ = f.read_only();
    p.extents_ = f.extents();
    p.strides_ = f.strides();
    return p;
}

nb::object PyTensor::dlpack(nb::object stream, std::optional<std::pair<int, int>> max_version) const {
    // kiln's own tensors are host memory, and a borrowed one was ordered by its
    // producer when it was imported: there is nothing to order on `stream`.
    (void)stream;
    if (max_version && max_version->first >= 1)
        return capsule_of(detail::export_dlpack(owner_, data_, kind_, device_, ordinal_, extents_, strides_, read_only_));
    return capsule_of(detail::export_dlpack_unversioned(owner_, data_, kind_, device_, ordinal_, extents_, strides_));
}

std::pair<int, int> PyTensor::dlpack_device() const {
    return device_ == Device::cuda ? std::pair<int, int>{kDLCUDA, ordinal_} : std::pair<int, int>{kDLCPU, 0};
}

}  // namespace kiln::py
