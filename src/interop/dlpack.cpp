// DLPack import and export (kiln/dlpack.h).
#include <kiln/dlpack.h>

#include <cstdint>

namespace kiln::detail {

namespace {

std::string dtype_text(DLDataType t) {
    const char* code = t.code == kDLInt ? "int" : t.code == kDLUInt ? "uint" : t.code == kDLFloat ? "float" : t.code == kDLBfloat ? "bfloat"
                       : t.code == kDLBool ? "bool" : t.code == kDLComplex ? "complex" : "type code ";
    std::string s = code;
    if (std::string_view(code) == "type code ") s += std::to_string(t.code);
    s += std::to_string(t.bits);
    if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
    return s;
}

Kind kind_of_dtype(DLDataType t, Loc loc) {
    if (t.lanes == 1) {
        if (t.code == kDLFloat && t.bits == 16) return Kind::F16;
        if (t.code == kDLFloat && t.bits == 32) return Kind::F32;
        if (t.code == kDLFloat && t.bits == 64) return Kind::F64;
        if (t.code == kDLBfloat && t.bits == 16) return Kind::BF16;
        if (t.code == kDLInt && t.bits == 8) return Kind::I8;
        if (t.code == kDLInt && t.bits == 32) return Kind::I32;
        if (t.code == kDLInt && t.bits == 64) return Kind::I64;
        if (t.code == kDLBool && t.bits == 8) return Kind::Bool;
    }
    fail(loc, "from_dlpack", "element type " + dtype_text(t) + " has no kiln kind (kiln has bool, i8, i32, i64, f16, bf16, f32, f64)");
}

}  // namespace

DLDataType dlpack_dtype(Kind k) {
    switch (k) {
        case Kind::Bool: return {kDLBool, 8, 1};
        case Kind::I8: return {kDLInt, 8, 1};
        case Kind::I32: return {kDLInt, 32, 1};
        case Kind::I64: return {kDLInt, 64, 1};
        case Kind::F16: return {kDLFloat, 16, 1};
        case Kind::BF16: return {kDLBfloat, 16, 1};
        case Kind::F32: return {kDLFloat, 32, 1};
        case Kind::F64: return {kDLFloat, 64, 1};
    }
    internal_fail("dlpack_dtype: unknown kind");
}

Arg dlpack_arg(const DLTensor& t, bool read_only, Loc loc) {
    Arg a;
    a.is_view = true;
    a.kind = kind_of_dtype(t.dtype, loc);
    a.read_only = read_only;
    switch (t.device.device_type) {
        case kDLCPU: case kDLCUDAHost: a.device = Device::host; break;
        case kDLCUDA: case kDLCUDAManaged: a.device = Device::cuda; a.ordinal = t.device.device_id; break;
        default:
            fail(loc, "from_dlpack", "memory of DLPack device type " + std::to_string(t.device.device_type) +
                                         " is not supported (kiln runs on host and CUDA memory)");
    }
    if (t.ndim < 1 || t.ndim > 8)
        fail(loc, "from_dlpack", "a tensor of rank " + std::to_string(t.ndim) + "; kiln views have rank 1 to 8 (reshape a scalar to [1])");
    a.extents.assign(t.shape, t.shape + t.ndim);
    if (t.strides) a.strides.assign(t.strides, t.strides + t.ndim);
    else a.strides = row_major_strides(a.extents);
    check_host_view(a.extents, a.strides, loc);
    auto address = reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
    if (address % static_cast<std::uintptr_t>(kind_bytes(a.kind)) != 0)
        fail(loc, "from_dlpack", "the data of a " + std::string(kind_name(a.kind)) + " tensor is not aligned to " +
                                     std::to_string(kind_bytes(a.kind)) + " bytes");
    a.data = reinterpret_cast<void*>(address);
    return a;
}

// The producer's tensor (either form), released once.
struct ForeignState {
    DLManagedTensorVersioned* versioned = nullptr;
    DLManagedTensor* legacy = nullptr;
    Arg arg;
    ForeignState() = default;
    ForeignState(const ForeignState&) = delete;
    ForeignState& operator=(const ForeignState&) = delete;
    ~ForeignState() {
        if (versioned && versioned->deleter) versioned->deleter(versioned);
        if (legacy && legacy->deleter) legacy->deleter(legacy);
    }
};

namespace {

// The exported tensor's shape and strides live beside it, with the owner.
template <class Managed> struct Export {
    Managed managed{};
    std::shared_ptr<void> owner;
    std::vector<std::int64_t> shape, strides;
};

template <class Managed> Managed* export_any(std::shared_ptr<void> owner, void* data, Kind kind, Device device, int ordinal,
                                             const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides) {
    auto* e = new Export<Managed>;
    e->owner = std::move(owner);
    e->shape = extents;
    e->strides = strides.empty() ? row_major_strides(extents) : strides;
    DLTensor& t = e->managed.dl_tensor;
    t.data = data;
    t.device = device == Device::cuda ? DLDevice{kDLCUDA, ordinal} : DLDevice{kDLCPU, 0};
    t.ndim = static_cast<std::int32_t>(extents.size());
    t.dtype = dlpack_dtype(kind);
    t.shape = e->shape.data();
    t.strides = e->strides.data();
    t.byte_offset = 0;
    e->managed.manager_ctx = e;
    e->managed.deleter = [](Managed* m) { delete static_cast<Export<Managed>*>(m->manager_ctx); };
    return &e->managed;
}

}  // namespace

DLManagedTensorVersioned* export_dlpack(std::shared_ptr<void> owner, void* data, Kind kind, Device device, int ordinal,
                                        const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides,
                                        bool read_only) {
    DLManagedTensorVersioned* m = export_any<DLManagedTensorVersioned>(std::move(owner), data, kind, device, ordinal, extents, strides);
    m->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    m->flags = read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
    return m;
}

DLManagedTensor* export_dlpack_unversioned(std::shared_ptr<void> owner, void* data, Kind kind, Device device, int ordinal,
                                           const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides) {
    return export_any<DLManagedTensor>(std::move(owner), data, kind, device, ordinal, extents, strides);
}

}  // namespace kiln::detail

namespace kiln {

ForeignTensor from_dlpack(DLManagedTensorVersioned* t, Loc loc) {
    if (!t) fail(loc, "from_dlpack", "a null DLManagedTensorVersioned");
    auto s = std::make_shared<detail::ForeignState>();
    s->versioned = t;  // owned from here on: released even if the checks below fail
    if (t->version.major != DLPACK_MAJOR_VERSION)
        fail(loc, "from_dlpack", "DLPack version " + std::to_string(t->version.major) + "." + std::to_string(t->version.minor) +
                                     " (kiln reads major version " + std::to_string(DLPACK_MAJOR_VERSION) + ")");
    s->arg = detail::dlpack_arg(t->dl_tensor, (t->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0, loc);
    return ForeignTensor(std::move(s));
}

ForeignTensor from_dlpack(DLManagedTensor* t, Loc loc) {
    if (!t) fail(loc, "from_dlpack", "a null DLManagedTensor");
    auto s = std::make_shared<detail::ForeignState>();
    s->legacy = t;
    s->arg = detail::dlpack_arg(t->dl_tensor, false, loc);
    return ForeignTensor(std::move(s));
}

Kind ForeignTensor::kind() const { return s_->arg.kind; }
Device ForeignTensor::device() const { return s_->arg.device; }
int ForeignTensor::ordinal() const { return s_->arg.ordinal; }
void* ForeignTensor::data() const { return s_->arg.data; }
const std::vector<std::int64_t>& ForeignTensor::extents() const { return s_->arg.extents; }
const std::vector<std::int64_t>& ForeignTensor::strides() const { return s_->arg.strides; }
bool ForeignTensor::read_only() const { return s_->arg.read_only; }
detail::Arg ForeignTensor::launch_arg() const { return s_->arg; }
const DLTensor& ForeignTensor::dl_tensor() const { return s_->versioned ? s_->versioned->dl_tensor : s_->legacy->dl_tensor; }

void ForeignTensor::check_view(Kind k, bool as_const, Loc loc) const {
    if (k != kind())
        fail(loc, "view", "the tensor holds " + std::string(kind_name(kind())) + ", not " + std::string(kind_name(k)));
    if (!as_const && read_only()) fail(loc, "view", "the tensor is read-only (so marked by its producer); view it as const");
}

}  // namespace kiln
