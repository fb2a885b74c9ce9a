// DLPack capsules, the Python side of the exchange: taking a producer's capsule
// (and with it ownership of its tensor), and wrapping kiln's tensors in capsules.
#pragma once

#include <nanobind/nanobind.h>

#include <kiln/dlpack.h>

namespace kiln::py {

// The tensor in a capsule from obj.__dlpack__() ("dltensor_versioned" or
// "dltensor"). The capsule is marked used, as the protocol asks; the tensor's
// deleter runs when the last ForeignTensor copy goes.
ForeignTensor take_capsule(nanobind::handle capsule);

// A capsule holding `t` for a consumer; if none takes it, its destructor releases it.
nanobind::object capsule_of(DLManagedTensorVersioned* t);
nanobind::object capsule_of(DLManagedTensor* t);

}  // namespace kiln::py
