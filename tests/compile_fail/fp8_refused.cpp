// expect: fp8 kinds .* are not implemented yet
#include <kiln/kiln.h>
using namespace kiln;
void f() { Tile<f8e4m3>* t = nullptr; (void)kind_of<f8e4m3>; (void)t; }
