// expect: unsupported element type
#include <kiln/kiln.h>
using namespace kiln;
constexpr auto k = kind_of<unsigned>;
