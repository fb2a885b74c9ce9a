// expect: a generic lambda \(auto parameters\)
#include <kiln/kiln.h>
using namespace kiln;
auto k = kernel("k", [](auto y) { (void)y; });
