// expect: ite.s condition must be a bool
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto c = zeros<f32>(shape(2)); auto r = ite(c, 1.0f, 0.0f); (void)r; }
