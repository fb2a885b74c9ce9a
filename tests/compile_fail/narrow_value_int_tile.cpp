// expect: literal cannot stand beside a tile
#include <kiln/kiln.h>
using namespace kiln;
auto k = kernel("k", [](View<const i32, 1> x) { auto t = x(coord(0), shape(2)).load(bf16(0.0f)); (void)t; });
