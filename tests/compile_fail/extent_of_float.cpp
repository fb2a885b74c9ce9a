// expect: extents and coordinates are whole numbers
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto a = axis("m", 2.5); (void)a; }
