// expect: views have rank 1 to 8
#include <kiln/kiln.h>
using namespace kiln;
void f(View<f32, 0>* v) { View<f32, 0> w(0); (void)v; (void)w; }
