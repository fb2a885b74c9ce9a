// expect: pow takes floating-point kinds
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto a = arange(2, 2); auto r = pow(a, a); (void)r; }
