// expect: take bool tiles and scalars; compare first
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto x = zeros<f32>(shape(2)); auto r = x && x; (void)r; }
