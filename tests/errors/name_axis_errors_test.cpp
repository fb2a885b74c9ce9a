// Must-fail programs: names and axes. Names of kernels, axes and pipeline stages
// are 1 to 256 printable ASCII characters (they reach generated source, file
// names and messages); an axis needs a positive extent, and a nest's index names
// one of its own axes.
#include "must_fail.h"

using namespace kiln;
using must_fail::trace;

namespace {
auto noop = [](View<f32, 1>) {};
}

TEST(NameErrors, Kernels) {
    must_fail::expect({
        {__LINE__, [] { (void)kernel("", noop); },                               "kernel: a kernel needs a name"},
        {__LINE__, [] { (void)kernel("soft\nmax", noop); },                      "kernel: invalid kernel name 'soft\\nmax': character 4 is a newline (0x0a); names are printable ASCII"},
        {__LINE__, [] { (void)kernel("caf\xc3\xa9", noop); },                    "kernel: invalid kernel name 'caf\xc3\xa9': character 3 is not ASCII (0xc3); names are printable ASCII"},
        {__LINE__, [] { (void)kernel(std::string(300, 'k'), noop); },           "kernel: invalid kernel name '" + std::string(300, 'k') + "': a name has at most 256 characters, this one 300"},
        {__LINE__, [] { (void)kernel(std::string("a\0b", 3), noop); },          "kernel: invalid kernel name 'a\\x00b': character 1 is a NUL (0x00); names are printable ASCII"},
    });
}

TEST(NameErrors, AxesAndStages) {
    must_fail::expect({
        {__LINE__, [] { (void)axis("", 4); },                                    "axis: an axis needs a name (it appears in diagnostics)"},
        {__LINE__, [] { (void)axis("row\ts", 4); },                              "axis: invalid axis name 'row\\ts': character 3 is a tab (0x09); names are printable ASCII"},
        {__LINE__, [] { (void)axis(std::string(257, 'a'), 4); },                 "axis: invalid axis name '" + std::string(257, 'a') + "': a name has at most 256 characters, this one 257"},
        {__LINE__, [] { trace(kernel("k", [](View<f32, 1>) { for (auto& g : parallel(shape(axis("g", 2)))) for (auto& s : g.pipeline(shape(axis("s", 2)))) s.stage("load\x7f"); })); },
         "stage: invalid stage name 'load\\x7f': character 4 is a control character (0x7f); names are printable ASCII"},
        {__LINE__, [] { trace(kernel("k", [](View<f32, 1>) { for (auto& g : parallel(shape(axis("g", 2)))) for (auto& s : g.pipeline(shape(axis("s", 2)))) s.stage(""); })); },
         "stage: invalid stage name '': a name cannot be empty"},
    });
}

TEST(AxisErrors, Extents) {
    must_fail::expect({
        {__LINE__, [] { (void)axis("m", 0); },                                   "axis: non-positive extent 0 for axis 'm'"},
        {__LINE__, [] { (void)axis("m", -3); },                                  "axis: non-positive extent -3 for axis 'm'"},
        {__LINE__, [] { (void)axis("m", Extent(8) - Extent(8)); },               "axis: non-positive extent 0 for axis 'm'"},
        // An extent computed inside the kernel can bound a loop, never size a tile.
        {__LINE__, [] { trace(kernel("k", [](View<f32, 1> y) { for (auto& g : parallel(shape(axis("g", 2)))) y(coord(0), shape(axis("d", g.index() + 1))).store(zeros<f32>(shape(1))); })); },
         "shape: axis 'd' has an extent computed inside the kernel; such an extent can bound a loop (nest.serial / nest.pipeline) but not size a tile: mask with ite instead"},
    });
}

TEST(AxisErrors, NestIndices) {
    auto a = axis("a", 2), b = axis("b", 2), other = axis("other", 3);
    must_fail::expect({
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(a))) (void)n.index(other); })); },
         "index: axis 'other' is not a dimension of this nest or its ancestors"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(a, b))) (void)n.index(); })); },
         "index: this nest has 2 dimensions; name the axis: nest.index(axis)"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(a))) for (auto& s : n.serial(shape(b))) (void)n.index(b), (void)s; })); },
         "index: axis 'b' is not a dimension of this nest or its ancestors"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(3))) (void)n.index(Axis::anonymous_dim(3)); })); },
         "index: an anonymous dimension has no name to look up; give the nest's axes names (axis(\"name\", extent))"},
    });
}
