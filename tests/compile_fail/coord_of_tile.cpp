// expect: coord\(\) takes scalars
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto t = arange(1, 1); auto c = coord(t); (void)c; }
