// expect: extents and coordinates are whole numbers
#include <kiln/kiln.h>
using namespace kiln;
auto k = kernel("k", [](View<f32, 1> y) { y(coord(1.5), shape(1)).store(zeros<f32>(shape(1))); });
