// expect: FloatElement
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto a = arange(2, 2); auto c = exp(a); (void)c; }
