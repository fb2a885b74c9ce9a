// expect: gather.s index is a Tile<i64>
#include <kiln/kiln.h>
using namespace kiln;
void f() { auto m = axis("m", 2); auto x = zeros<f32>(shape(m)); auto i = zeros<i32>(IndexSpace{}); auto g = gather(x, i, m); (void)g; }
