// expect: mma operand/accumulator kinds
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto a = zeros<f32>(shape(2, 2)); auto acc = zeros<f16>(shape(2, 2)); auto c = mma(a, a, acc); (void)c; }
