// expect: element kinds differ
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto a = zeros<f32>(shape(2, 2)); auto b = zeros<f64>(shape(2, 2)); auto c = a + b; (void)c; }
