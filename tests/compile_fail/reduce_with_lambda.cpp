// expect: reduce combines with add, maximum or minimum
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto m = axis("m", 2); auto r = reduce(zeros<f32>(shape(m)), m, [](auto a, auto b) { return a + b; }); (void)r; }
