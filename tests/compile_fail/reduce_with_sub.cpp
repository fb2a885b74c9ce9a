// expect: reduce combines with add, maximum or minimum
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto m = axis("m", 4); auto t = zeros<f32>(shape(m)); auto r = reduce(t, m, sub); (void)r; }
