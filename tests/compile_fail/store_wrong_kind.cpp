// expect: stored tile.s element kind differs
#include <kiln/kiln.h>
using namespace kiln;
auto k = kernel("k", [](View<f32, 1> y) { y(coord(0), shape(4)).store(zeros<f64>(shape(4))); });
