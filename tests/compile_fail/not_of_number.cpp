// expect: take bool tiles and scalars; compare first
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto x = zeros<i32>(shape(2)); auto r = !x; (void)r; }
