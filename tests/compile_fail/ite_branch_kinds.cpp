// expect: ite.s branches have different element kinds
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto c = zeros<bool>(shape(2)); auto r = ite(c, zeros<f32>(shape(2)), zeros<f64>(shape(2))); (void)r; }
