// expect: element kinds differ
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto a = zeros<f16>(shape(2, 2)); auto b = zeros<bf16>(shape(2, 2)); auto c = maximum(a, b); (void)c; }
