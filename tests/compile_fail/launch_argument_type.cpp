// expect: a launch argument is a view
#include <kiln/kiln.h>
using namespace kiln;
void f(Kernel& k) { std::vector<float> v(4); k.launch(interp(), v); }
