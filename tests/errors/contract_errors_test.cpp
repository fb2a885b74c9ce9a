// Must-fail programs: the launch contract (instances read the buffers as at launch
// entry, write disjoint elements, and never see each other's writes), which the
// interpreter's checked mode verifies, naming both instances and the element;
// eager reads of a tile's elements; and the environment's choice of target.
#include <cstdlib>

#include "must_fail.h"

using namespace kiln;

namespace {

Tensor<f32> buffer(std::int64_t n) { return Tensor<f32>({n}); }

}  // namespace

TEST(ContractErrors, InstancesTouchTheSameElements) {
    auto g = axis("g", 3);
    Tensor<f32> y = buffer(4), x = buffer(4);
    // Every instance writes element 0.
    const int kAllToOne = __LINE__ + 1;
    const auto all_to_one = kernel("all_to_one", [&](View<f32, 1> v) { for (auto& n : parallel(shape(g))) v(coord(0), shape(1)).store(cast<f32>(full<i64>(shape(1), n.index()))); });
    // Instance p reads element p and writes p + 1: instance 1 reads what instance 0 writes.
    const int kShiftUp = __LINE__ + 1;
    const auto shift_up = kernel("shift_up", [&](View<f32, 1> v) { for (auto& n : parallel(shape(g))) v(coord(n.index() + 1), shape(1)).store(v[coord(n.index()), shape(1)]); });
    // Instance p reads element p + 1 and writes p: instance 1 writes what instance 0 read.
    const int kShiftDown = __LINE__ + 1;
    const auto shift_down = kernel("shift_down", [&](View<f32, 1> v) { for (auto& n : parallel(shape(g))) v(coord(n.index()), shape(1)).store(v[coord(n.index() + 1), shape(1)]); });
    // One instance reads back what it wrote, expecting to see its own write.
    const int kReadBack = __LINE__ + 1;
    const auto read_back = kernel("read_back", [&](View<f32, 1> v) { for (auto& n : parallel(shape(g))) { v(coord(n.index()), shape(1)).store(full<f32>(shape(1), 1.0f)); v(coord(3), shape(1)).store(v[coord(n.index()), shape(1)]); } });
    // An input and an output that are the same memory: x[p + 1] read while y[p] = x[p + 1] + 1 is written over it.
    const int kCopyNext = __LINE__ + 1;
    const auto copy_next = kernel("copy_next", [&](View<const f32, 1> in, View<f32, 1> out) { for (auto& n : parallel(shape(g))) out(coord(n.index()), shape(1)).store(in[coord(n.index() + 1), shape(1)] + 1.0f); });
    must_fail::expect({
        {kAllToOne, [&] { all_to_one.launch(interp(), y.view()); }, "store: instance 0 and instance 1 both write element (0) of argument 0 (View<f32, 1>)"},
        {kShiftUp, [&] { shift_up.launch(interp(), y.view()); },
         "load: instance 1 reads element (1) of argument 0 (View<f32, 1>) that instance 0 writes in the same launch (instances read buffers as at launch entry)"},
        {kShiftDown, [&] { shift_down.launch(interp(), y.view()); },
         "store: instance 1 writes element (1) of argument 0 (View<f32, 1>) that instance 0 read in the same launch (instances read buffers as at launch entry)"},
        {kReadBack, [&] { read_back.launch(interp(), y.view()); },
         "load: instance 0 reads element (0) of argument 0 (View<f32, 1>) after writing it; reads see the buffer as at launch entry"},
        {kCopyNext, [&] { copy_next.launch(interp(), std::as_const(x).view(), x.view()); },
         "store: instance 1 writes element (1) of argument 1 (View<f32, 1>) that instance 0 read in the same launch (instances read buffers as at launch entry)"},
    });
}

TEST(ContractErrors, EagerElementReads) {
    const auto t = zeros<f32>(2, 3);
    must_fail::expect({
        {__LINE__, [&] { (void)t.at({2, 0}); },    "at: index 2 outside extent 2 (dimension 0)"},
        {__LINE__, [&] { (void)t.at({0, -1}); },   "at: index -1 outside extent 3 (dimension 1)"},
        {__LINE__, [&] { (void)t.at({1}); },       "at: an index of rank 1 for a tile of shape 2x3"},
    });
}

// The default target comes from KILN_TARGET; a name kiln does not know is refused
// (no line: the mistake is in the environment, not the program).
TEST(ContractErrors, UnknownTargetInTheEnvironment) {
    const char* saved = std::getenv("KILN_TARGET");
    const std::string before = saved ? saved : "";
    ::setenv("KILN_TARGET", "tpu", 1);
    Tensor<f32> y = buffer(4);
    const auto fill = kernel("fill", [](View<f32, 1> v) { for (auto& n : parallel(shape(axis("g", 4)))) v(coord(n.index()), shape(1)).store(full<f32>(shape(1), 1.0f)); });
    must_fail::expect({
        {0, [&] { fill.launch(y.view()); }, "KILN_TARGET='tpu' is not a known target (known: interp, cpu, cuda, metal, auto)"},
    });
    if (saved) ::setenv("KILN_TARGET", before.c_str(), 1);
    else ::unsetenv("KILN_TARGET");
}
