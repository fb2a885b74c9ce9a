// expect: Tile<double>.*Tile<float>
#include <kiln/kiln.h>
using namespace kiln;
void f() { Tile<f32> t = zeros<f64>(shape(2)); (void)t; }
