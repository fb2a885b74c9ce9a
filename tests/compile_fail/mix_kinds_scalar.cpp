// expect: element kinds differ
#include <kiln/kiln.h>
using namespace kiln;
void f(Scalar<i64> a, Scalar<i32> b) { auto c = a * b; (void)c; }
