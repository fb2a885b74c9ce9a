// expect: store takes a Tile or Scalar
#include <kiln/kiln.h>
using namespace kiln;
auto k = kernel("k", [](View<f32, 1> y) { y(coord(0), shape(1)).store(1.0f); });
