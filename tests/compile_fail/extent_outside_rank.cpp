// expect: extent<D>\(\) outside the view.s rank
#include <kiln/kiln.h>
using namespace kiln;
auto k = kernel("k", [](View<const f32, 2> x) { auto e = x.extent<2>(); (void)e; });
