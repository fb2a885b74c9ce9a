// expect: a kernel.s parameters are View<T, R> \(tensors\) and Scalar<T>
#include <kiln/kiln.h>
using namespace kiln;
auto k = kernel("k", [](View<f32, 1> y, int n) { (void)y; (void)n; });
