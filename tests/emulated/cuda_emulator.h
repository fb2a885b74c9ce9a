// A test-only target that runs the cuda target's generated kernels on the host:
// the emitted CUDA source (the same text NVRTC compiles, prelude helpers replaced
// by emulation_header.h's), compiled by the host compiler into a shared object,
// its CTAs run one after another, each CTA's threads as fibers that meet at CUDA's
// collectives (cta_fibers.h). It checks the emitter's layouts, reductions,
// barriers and shuffles on machines without a GPU; it does not model timing,
// memory ordering between threads beyond the collectives, or tensor cores (a
// kernel using them traps). Launches take host buffers.
#pragma once

#include <kiln/kiln.h>

namespace kiln::emulated {

Target cuda_emulated();

// The emulated source of a kernel for these arguments (what the test compiles).
std::string emulated_source(const Kernel& k, const std::vector<detail::Arg>& args, Precision precision);

}  // namespace kiln::emulated
