#include <kiln/export.h>
#include "examples/row_kernels.h"
using namespace kiln; using namespace kiln::catalog::rows;
namespace {
Kernel k1 = softmax<KIND>(), k2 = layernorm_affine<KIND>(), k3 = rmsnorm_weighted<KIND>(), k4 = log_softmax<KIND>(),
       k5 = cross_entropy<KIND>(), k6 = residual_layernorm<KIND>(), k7 = swiglu<KIND>();
}
KILN_EXPORT_KERNEL(k1);
KILN_EXPORT_KERNEL(k2);
KILN_EXPORT_KERNEL(k3);
KILN_EXPORT_KERNEL(k4);
KILN_EXPORT_KERNEL(k5);
KILN_EXPORT_KERNEL(k6);
KILN_EXPORT_KERNEL(k7);
