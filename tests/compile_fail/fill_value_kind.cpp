// expect: literal cannot stand beside a tile
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto t = full<i32>(shape(2), 0.5); (void)t; }
