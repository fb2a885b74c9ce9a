// expect: literal cannot stand beside a tile
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto a = arange(2, 2); auto r = a < 0.5; (void)r; }
