// expect: mma.s operands have different element kinds
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto a = zeros<f16>(shape(2, 2)); auto b = zeros<bf16>(shape(2, 2)); auto c = mma(a, b, zeros<f32>(shape(2, 2))); (void)c; }
