// expect: scan combines with add, maximum or minimum
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto m = axis("m", 2); auto r = scan(zeros<f32>(shape(m)), m, mul); (void)r; }
