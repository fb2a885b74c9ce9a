// Must-fail programs caught when tiles are evaluated or a kernel is captured: each
// checks the wording, and that the error names this file and the user's line.
#include <gtest/gtest.h>

#include <cstdlib>

#include <kiln/kiln.h>

using namespace kiln;

namespace {
// Runs f, expects a kiln::Error whose detail contains `what` and whose location is
// in this file (when `located`).
template <class F> void expect_error(F&& f, const std::string& what, bool located = true) {
    try {
        f();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << "message: " << e.what() << "\nexpected: " << what;
        if (located) EXPECT_NE(std::string(e.what()).find("capture_errors_test.cpp:"), std::string::npos) << e.what();
        return;
    }
    ADD_FAILURE() << "no error; expected: " << what;
}
Tensor<f32> t2(std::int64_t r, std::int64_t c) { return Tensor<f32>({r, c}); }
}  // namespace

// ---- eager tiles

TEST(EagerErrors, AddShapeMismatch) { expect_error([] { (void)(zeros(2, 3) + zeros(3, 2)); }, "add: shape mismatch: 2x3 vs 3x2"); }
TEST(EagerErrors, DotInnerDimensions) { expect_error([] { (void)dot(zeros(2, 3), zeros(2, 3)); }, "dot: inner dimensions differ: 2x3 vs 2x3"); }
TEST(EagerErrors, ReshapeCount) { expect_error([] { (void)reshape(zeros(2, 3), shape(4, 2)); }, "reshape: element count differs"); }
TEST(EagerErrors, NonPositiveShape) { expect_error([] { (void)zeros(0, 3); }, "full: non-positive shape: 0x3"); }
TEST(EagerErrors, AxisNonPositiveExtent) { expect_error([] { (void)axis("m", 0); }, "axis: non-positive extent 0 for axis 'm'"); }
TEST(EagerErrors, AxisWithoutName) { expect_error([] { (void)axis("", 4); }, "axis: an axis needs a name"); }
TEST(EagerErrors, ReduceOverMissingAxis) {
    auto m = axis("m", 2), n = axis("n", 3), k = axis("k", 4);
    expect_error([&] { (void)reduce(zeros<f32>(shape(m, n)), k, add); }, "axis 'k' is not a dimension of a tile of shape 2x3 (m, n)");
}
TEST(EagerErrors, AnonymousDimsMatchByPosition) {
    auto m = axis("m", 2), n = axis("n", 3);
    expect_error([&] { (void)(zeros<f32>(shape(m, n)) + zeros<f32>(shape(3, 2))); }, "add: shape mismatch: 2x3 (m, n) vs 3x2");
}
TEST(EagerErrors, MmaContractionExtents) {
    auto m = axis("m", 2), n = axis("n", 2), k = axis("k", 3), k2 = axis("k2", 4);
    expect_error([&] { (void)mma(zeros<f32>(shape(m, k)), zeros<f32>(shape(k2, n)), zeros<f32>(shape(m, n))); },
                 "mma: axis 'k' of the first operand is neither contracted nor in the accumulator");
}
TEST(EagerErrors, MmaAccumulatorAxisInNeither) {
    auto m = axis("m", 2), n = axis("n", 2), k = axis("k", 3), x = axis("x", 2);
    expect_error([&] { (void)mma(zeros<f32>(shape(m, k)), zeros<f32>(shape(k, n)), zeros<f32>(shape(m, x))); },
                 "mma: accumulator axis 'x' is in neither operand");
}
TEST(EagerErrors, PermuteNotAPermutation) { expect_error([] { (void)permute(zeros(2, 3), {0, 0}); }, "permute: order is not a permutation"); }
TEST(EagerErrors, TransposeNeedsRankTwo) {
    auto m = axis("m", 3);
    expect_error([&] { (void)transpose(zeros<f32>(shape(m))); }, "transpose: needs a tile of rank 2 or more, got rank 1");
}
TEST(EagerErrors, ScanOfBool) {
    auto m = axis("m", 3);
    expect_error([&] { (void)scan(zeros<bool>(shape(m)), m, add); }, "scan: cannot scan a bool tile");
}
TEST(EagerErrors, NegateBool) {
    auto m = axis("m", 3);
    expect_error([&] { (void)(-zeros<bool>(shape(m))); }, "neg: cannot negate a bool tile");
}
TEST(EagerErrors, ArithmeticOnBool) {
    auto m = axis("m", 3);
    expect_error([&] { (void)(zeros<bool>(shape(m)) + zeros<bool>(shape(m))); }, "add: arithmetic on bool tiles");
}
TEST(EagerErrors, TopkOutOfRange) {
    auto m = axis("m", 3);
    expect_error([&] { (void)topk(zeros<f32>(shape(m)), m, 4); }, "topk: k = 4 outside 1..3");
}
TEST(EagerErrors, BroadcastRowsShape) {
    expect_error([] { (void)sub_rows(zeros<f32>(2, 3), zeros<f32>(3, 1)); }, "broadcast_rows: shape mismatch: 2x3 vs 3x1");
}
TEST(EagerErrors, ZipShape) {
    expect_error([] { (void)zip(zeros(2, 3), zeros(3, 2), [](Scalar<f64> a, Scalar<f64> b) { return a + b; }); },
                 "zip: shape mismatch: 2x3 vs 3x2");
}
TEST(EagerErrors, FromVecCount) { expect_error([] { (void)from_vec(std::vector<double>{1, 2, 3}, 2, 2); }, "from_vec: got 3 values for a 2x2 tile"); }
TEST(EagerErrors, LoadWindowOutOfRange) {
    std::vector<i64> v(10, 1);
    expect_error([&] { (void)load(v, 8, 1, 4); }, "load: window of 4 elements at offset 8");
}
TEST(EagerErrors, StoreWindowOutOfRange) {
    std::vector<i64> v(3, 1);
    expect_error([&] { store(v, 1, filled(1, 4, 7)); }, "store: window of 4 elements at offset 1");
}
TEST(EagerErrors, MemoryLayoutNotInjective) {
    auto m = axis("m", 2), k = axis("k", 2);
    expect_error([&] { (void)memory<f32>(layout(shape(m, k), stride(1, 1))); }, "memory: layout is not injective: elements (0, 1) and (1, 0) share offset 1");
}
TEST(EagerErrors, MemoryLayoutStrideCount) {
    auto m = axis("m", 2), k = axis("k", 2);
    expect_error([&] { (void)memory<f32>(layout(shape(m, k), stride(1))); }, "memory: layout has 1 strides for a rank-2 shape");
}

// ---- host views and tensors

TEST(ViewErrors, NegativeExtent) {
    float d[4];
    expect_error([&] { (void)view(d, {2, -2}); }, "view: negative extent -2 in dimension 1");
}
TEST(ViewErrors, NegativeStride) {
    float d[4];
    expect_error([&] { (void)view(d, {2, 2}, {-2, 1}); }, "view: negative stride -2 in dimension 0");
}
TEST(ViewErrors, OverflowingStrides) {
    float d[4];
    expect_error([&] { (void)view(d, {std::int64_t{1} << 40, 2}, {std::int64_t{1} << 40, 1}); }, "view: extents and strides overflow 64-bit offsets");
}
TEST(ViewErrors, StrideCount) {
    float d[4];
    expect_error([&] { (void)view(d, {2, 2}, {1}); }, "view: 2 extents but 1 strides");
}
TEST(ViewErrors, TensorValueCount) { expect_error([] { (void)Tensor<f32>({2, 2}, std::vector<float>{1, 2, 3}); }, "Tensor: got 3 values for 4 elements"); }

// ---- capture: kernels

TEST(CaptureErrors, ParallelOutsideKernel) {
    expect_error([] { for (auto& n : parallel(shape(axis("m", 4)))) (void)n; }, "parallel: only inside a kernel");
}
TEST(CaptureErrors, StoreToReadView) {
    auto k = kernel("k", [](View<const f32, 2> x) {
        auto m = axis("m", 2);
        for (auto& n : parallel(shape(m))) x(coord(n.index(), 0), shape(1, 2)).store(zeros<f32>(shape(1, 2)));
    });
    auto x = t2(2, 2);
    expect_error([&] { k.launch(interp(), std::as_const(x).view()); },
                 "store: argument 0 (View<const f32, 2>) is read-only; declare it View<f32, 2> to write to it");
}
TEST(CaptureErrors, LoadRankMismatch) {
    auto k = kernel("k", [](View<const f32, 2> x, View<f32, 2> y) {
        for (auto& n : parallel(shape(axis("m", 2)))) y(coord(n.index(), 0), shape(1, 2)).store(reshape(x[coord(0, 0), shape(2)], shape(1, 2)));
    });
    auto x = t2(2, 2), y = t2(2, 2);
    expect_error([&] { k.launch(interp(), std::as_const(x).view(), y.view()); }, "load: shape has rank 1 for argument 0 (View<const f32, 2>)");
}
TEST(CaptureErrors, NestedParallel) {
    auto k = kernel("k", [](View<f32, 1> y) {
        for (auto& a : parallel(shape(axis("a", 2))))
            for (auto& b : parallel(shape(axis("b", 2)))) (void)a, (void)b, (void)y;
    });
    Tensor<f32> y({2});
    expect_error([&] { k.launch(interp(), y.view()); }, "parallel: the grid must be the outermost nest");
}
TEST(CaptureErrors, TwoParallelNests) {
    auto k = kernel("k", [](View<f32, 1> y) {
        for (auto& a : parallel(shape(axis("a", 2)))) (void)a;
        for (auto& b : parallel(shape(axis("b", 2)))) (void)b;
        (void)y;
    });
    Tensor<f32> y({2});
    expect_error([&] { k.launch(interp(), y.view()); }, "parallel: a kernel has one parallel nest");
}
TEST(CaptureErrors, IndexOfUnknownAxis) {
    auto k = kernel("k", [](View<f32, 1> y) {
        auto a = axis("a", 2), other = axis("other", 3);
        for (auto& n : parallel(shape(a))) (void)n.index(other), (void)y;
    });
    Tensor<f32> y({2});
    expect_error([&] { k.launch(interp(), y.view()); }, "index: axis 'other' is not a dimension of this nest or its ancestors");
}
TEST(CaptureErrors, IndexOfMultiDimNestNeedsAxis) {
    auto k = kernel("k", [](View<f32, 1> y) {
        for (auto& n : parallel(shape(axis("a", 2), axis("b", 2)))) (void)n.index(), (void)y;
    });
    Tensor<f32> y({2});
    expect_error([&] { k.launch(interp(), y.view()); }, "index: this nest has 2 dimensions; name the axis");
}
TEST(CaptureErrors, StageOutsidePipeline) {
    auto k = kernel("k", [](View<f32, 1> y) {
        for (auto& n : parallel(shape(axis("a", 2))))
            for (auto& s : n.serial(shape(axis("s", 2)))) s.stage("load"), (void)y;
    });
    Tensor<f32> y({2});
    expect_error([&] { k.launch(interp(), y.view()); }, "stage: stages belong to pipeline nests");
}
TEST(CaptureErrors, CarriedValueChangesShape) {
    auto k = kernel("k", [](View<f32, 1> y) {
        auto m = axis("m", 2), m2 = axis("m2", 3);
        for (auto& n : parallel(shape(axis("a", 2)))) {
            auto acc = zeros<f32>(shape(m));
            for (auto& s : n.serial(shape(axis("s", 2)))) (void)s, acc = zeros<f32>(shape(m2));
            (void)y;
        }
    });
    Tensor<f32> y({2});
    expect_error([&] { k.launch(interp(), y.view()); }, "loop: loop-carried value changes shape or kind: 2 (m) before the loop, 3 (m2) after one iteration");
}
TEST(CaptureErrors, StoreOutsideTheGrid) {
    auto k = kernel("k", [](View<f32, 1> y) {
        y(coord(0), shape(2)).store(zeros<f32>(shape(2)));
        for (auto& n : parallel(shape(axis("a", 2)))) (void)n;
    });
    Tensor<f32> y({2});
    expect_error([&] { k.launch(interp(), y.view()); }, "store: a store outside the parallel nest would be performed by every instance");
}
TEST(CaptureErrors, StoreShapeMismatch) {
    auto k = kernel("k", [](View<f32, 2> y) {
        for (auto& n : parallel(shape(axis("a", 1)))) y(coord(n.index(), 0), shape(3, 4)).store(zeros<f32>(shape(4, 3)));
    });
    Tensor<f32> y({3, 4});
    expect_error([&] { k.launch(interp(), y.view()); }, "store: shape mismatch: value 4x3 vs destination 3x4");
}
TEST(CaptureErrors, ExtentOutsideRank) {
    auto k = kernel("k", [](View<f32, 2> y) { (void)y.extent(5); });
    Tensor<f32> y({3, 4});
    expect_error([&] { k.launch(interp(), y.view()); }, "extent: dimension 5 is outside argument 0 (View<f32, 2>)");
}
TEST(CaptureErrors, AssignToCapturedTile) {
    auto outer = zeros<f32>(shape(2));
    auto k = kernel("k", [&outer](View<f32, 1> y) {
        for (auto& n : parallel(shape(axis("a", 1)))) outer = outer + 1.0f, (void)n, (void)y;
    });
    Tensor<f32> y({2});
    expect_error([&] { k.launch(interp(), y.view()); }, "a tile captured from outside the kernel cannot be assigned inside it", false);
}

// ---- launch

TEST(LaunchErrors, ArgumentCount) {
    auto k = kernel("two", [](View<const f32, 1>, View<f32, 1>) {});
    Tensor<f32> y({2});
    expect_error([&] { k.launch(interp(), y.view()); }, "launch: kernel 'two' takes 2 arguments, got 1");
}
TEST(LaunchErrors, ArgumentKind) {
    auto k = kernel("k", [](View<const f32, 1>) {});
    Tensor<f64> y({2});
    expect_error([&] { k.launch(interp(), y.view()); }, "launch: kernel 'k' argument 0 expects View<const f32, 1>, got a view of f64 with rank 1");
}
TEST(LaunchErrors, ReadOnlyIntoWritable) {
    auto k = kernel("k", [](View<f32, 1>) {});
    const Tensor<f32> y({2});
    expect_error([&] { k.launch(interp(), y.view()); }, "is written, but a read-only view was passed");
}
TEST(LaunchErrors, UnknownTargetName) { expect_error([] { (void)target_named("tpu"); }, "target: unknown target 'tpu' (known: interp, cpu, cuda, metal, auto)"); }
TEST(LaunchErrors, UnknownKilnTargetVariable) {
    ::setenv("KILN_TARGET", "metalx", 1);
    expect_error([] { (void)default_target(); }, "KILN_TARGET='metalx' is not a known target", false);
    ::unsetenv("KILN_TARGET");
}
TEST(LaunchErrors, NegativeInstanceCount) { expect_error([] { launch(-1, [](std::int64_t) {}); }, "launch: negative instance count -1"); }

TEST(CaptureErrors, TileShapeFromADynamicExtent) {
    auto k = kernel("k", [](View<f32, 1> y) {
        for (auto& n : parallel(shape(axis("a", 2)))) {
            auto dynamic = axis("dynamic", n.index() + 1);
            y(coord(0), shape(dynamic)).store(zeros<f32>(shape(dynamic)));
        }
    });
    Tensor<f32> y({2});
    expect_error([&] { k.launch(interp(), y.view()); }, "a tile shape depends on a dynamic extent computed inside the kernel", false);
}
