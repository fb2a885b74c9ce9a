// expect: Tensor<bool> is not supported
#include <kiln/kiln.h>
using namespace kiln;
Tensor<bool> t;
