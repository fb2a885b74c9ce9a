// Foreign memory: views over caller-owned host memory with extents and strides,
// and DLPack import and export (ownership, checks, launches on imported tensors).
#include <gtest/gtest.h>

#include <kiln/dlpack.h>

#include "interop_util.h"

using namespace kiln;
using namespace kiln::interop_test;

namespace {
std::string here(int line) { return "dlpack_test.cpp:" + std::to_string(line) + ": "; }

// A producer's tensor over `data`, counting its deleter's calls.
struct Produced {
    DLManagedTensorVersioned managed{};
    std::vector<std::int64_t> shape, strides;
    int* deleted = nullptr;
};
DLManagedTensorVersioned* produce(void* data, DLDataType dtype, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides,
                                  int* deleted, std::uint64_t flags = 0) {
    auto* p = new Produced;
    p->shape = std::move(shape);
    p->strides = std::move(strides);
    p->deleted = deleted;
    p->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    p->managed.flags = flags;
    p->managed.manager_ctx = p;
    p->managed.deleter = [](DLManagedTensorVersioned* m) {
        auto* q = static_cast<Produced*>(m->manager_ctx);
        ++*q->deleted;
        delete q;
    };
    DLTensor& t = p->managed.dl_tensor;
    t.data = data;
    t.device = {kDLCPU, 0};
    t.ndim = static_cast<int>(p->shape.size());
    t.dtype = dtype;
    t.shape = p->shape.data();
    t.strides = p->strides.empty() ? nullptr : p->strides.data();
    return &p->managed;
}
constexpr DLDataType kF32{kDLFloat, 32, 1};
}  // namespace

TEST(ForeignViews, StridedHostViewsRunInPlace) {
    // A caller-owned column-major buffer, read through a strided view.
    std::vector<float> column_major = {1, 4, 2, 5, 3, 6};  // [[1 2 3] [4 5 6]]
    Tensor<f32> y({2, 3});
    softmax_kernel().launch(cpu(), view<const f32>(column_major.data(), {2, 3}, {1, 2}), y.view());
    double e1 = std::exp(1 - 3.0), e2 = std::exp(2 - 3.0), total = e1 + e2 + 1;
    EXPECT_NEAR(y[0], e1 / total, 1e-7);
    EXPECT_NEAR(y[1], e2 / total, 1e-7);
    EXPECT_NEAR(y[3], e1 / total, 1e-7) << "row 1 is row 0 + 3";
}

TEST(ForeignViews, BadExtentsAndStridesNameTheLine) {
    float buffer[4] = {};
    int line = __LINE__ + 1;
    std::string e = error_of([&] { (void)view(buffer, {2, 2}, {-1, 1}); });
    EXPECT_EQ(e, here(line) + "view: negative stride -1 in dimension 0");
    line = __LINE__ + 1;
    e = error_of([&] { (void)view(buffer, {2, 2}, {1}); });
    EXPECT_EQ(e, here(line) + "view: 2 extents but 1 strides");
    line = __LINE__ + 1;
    e = error_of([&] { (void)view(buffer, {INT64_MAX / 2, 4}, {INT64_MAX / 4, 1}); });
    EXPECT_EQ(e, here(line) + "view: extents and strides overflow 64-bit offsets (dimension 0)");
}

TEST(DLPack, ExportThenImportIsTheSameMemory) {
    Tensor<f32> t({3, 4});
    for (int i = 0; i < 12; ++i) t[i] = static_cast<float>(i);
    const float* before = t.data();
    DLManagedTensorVersioned* m = to_dlpack(std::move(t));
    EXPECT_EQ(m->version.major, DLPACK_MAJOR_VERSION);
    EXPECT_EQ(m->dl_tensor.data, before) << "moved, not copied";
    EXPECT_EQ(m->dl_tensor.ndim, 2);
    EXPECT_EQ(m->dl_tensor.shape[1], 4);
    EXPECT_EQ(m->dl_tensor.strides[0], 4);
    EXPECT_EQ(m->dl_tensor.dtype.code, kDLFloat);
    EXPECT_EQ(m->dl_tensor.device.device_type, kDLCPU);
    ForeignTensor f = from_dlpack(m);
    EXPECT_EQ(f.data(), before);
    EXPECT_EQ(f.kind(), Kind::F32);
    EXPECT_EQ(f.extents(), (std::vector<std::int64_t>{3, 4}));
    HostView<const f32> v = f.view<const f32>();
    EXPECT_EQ(v.data[7], 7.0f);
}

TEST(DLPack, TheProducersDeleterRunsOnceWhenTheLastHandleGoes) {
    float data[6] = {};
    int deleted = 0;
    {
        ForeignTensor a = from_dlpack(produce(data, kF32, {2, 3}, {}, &deleted));
        ForeignTensor b = a;
        EXPECT_EQ(deleted, 0);
        (void)b;
    }
    EXPECT_EQ(deleted, 1);
    // Refused tensors are released too.
    std::string e = error_of([&] { (void)from_dlpack(produce(data, DLDataType{kDLUInt, 16, 1}, {6}, {}, &deleted)); });
    EXPECT_TRUE(contains(e, "from_dlpack: element type uint16 has no kiln kind")) << e;
    EXPECT_EQ(deleted, 2);
}

TEST(DLPack, LaunchOnImportedTensors) {
    Tensor<f32> x = inputs(4, 10, 2);
    std::vector<float> out(40, -1.0f);
    int deleted = 0;
    ForeignTensor fx = from_dlpack(to_dlpack(x));  // a copy of x moves into the export
    ForeignTensor fy = from_dlpack(produce(out.data(), kF32, {4, 10}, {10, 1}, &deleted));
    softmax_kernel().launch(cpu(), fx, fy);
    auto ref = softmax_reference(x);
    for (std::size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(out[i], ref[i], 2e-7 + 1e-6 * ref[i]);
}

TEST(DLPack, ChecksNameTheCaller) {
    float data[8] = {};
    int deleted = 0;
    int line = __LINE__ + 1;
    std::string e = error_of([&] { (void)from_dlpack(produce(data, kF32, {2, 2}, {2, -1}, &deleted)); });
    EXPECT_EQ(e, here(line) + "view: negative stride -1 in dimension 1");
    line = __LINE__ + 1;
    e = error_of([&] { (void)from_dlpack(produce(reinterpret_cast<char*>(data) + 2, kF32, {2}, {}, &deleted)); });
    EXPECT_EQ(e, here(line) + "from_dlpack: the data of a f32 tensor is not aligned to 4 bytes");
    line = __LINE__ + 1;
    e = error_of([&] { (void)from_dlpack(produce(data, kF32, {}, {}, &deleted)); });
    EXPECT_EQ(e, here(line) + "from_dlpack: a tensor of rank 0; kiln views have rank 1 to 8 (reshape a scalar to [1])");
    line = __LINE__ + 1;
    e = error_of([&] { (void)from_dlpack(produce(data, DLDataType{kDLFloat, 32, 4}, {2}, {}, &deleted)); });
    EXPECT_EQ(e, here(line) + "from_dlpack: element type float32x4 has no kiln kind (kiln has bool, i8, i32, i64, f16, bf16, f32, f64)");
    EXPECT_EQ(deleted, 4);
}

TEST(DLPack, ReadOnlyTensors) {
    float data[4] = {};
    int deleted = 0;
    ForeignTensor f = from_dlpack(produce(data, kF32, {4}, {}, &deleted, DLPACK_FLAG_BITMASK_READ_ONLY));
    EXPECT_TRUE(f.read_only());
    (void)f.view<const f32>();
    int line = __LINE__ + 1;
    std::string e = error_of([&] { (void)f.view<f32>(); });
    EXPECT_EQ(e, here(line) + "view: the tensor is read-only (so marked by its producer); view it as const");
    line = __LINE__ + 1;
    e = error_of([&] { (void)f.view<const f64>(); });
    EXPECT_EQ(e, here(line) + "view: the tensor holds f32, not f64");
    auto k = kernel("fill", [](View<f32, 1> y) { y(coord(0), shape(axis("n", 4))).store(zeros<f32>(shape(axis("n", 4)))); });
    e = error_of([&] { k.launch(cpu(), f); });
    EXPECT_TRUE(contains(e, "argument 0 (View<f32, 1>) is written, but a read-only view was passed")) << e;
}

TEST(DLPack, UnversionedForm) {
    Tensor<i64> t({5}, {1, 2, 3, 4, 5});
    DLManagedTensor* m = to_dlpack_unversioned(t);
    ForeignTensor f = from_dlpack(m);
    EXPECT_EQ(f.kind(), Kind::I64);
    EXPECT_EQ(f.view<const i64>().data[4], 5);
    EXPECT_NE(static_cast<const void*>(f.data()), static_cast<const void*>(t.data())) << "a copy was exported; t is still ours";
}
