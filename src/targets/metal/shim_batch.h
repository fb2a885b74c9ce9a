// Several metal kernels built through the shim by one host-compiler run: what a
// fuzz campaign's batch asks for (TargetImpl::prepare_batch), where compiling
// each kernel on its own would parse the shim and the MSL prelude once per
// kernel (most of a small kernel's build).
//
// The batch is one C++ file: the MSL prelude once (it is guarded for this), then
// each kernel's part of its MSL (everything after "// ---- kernel", byte for
// byte) with its glue in a namespace of its own, its kiln_metal_run renamed. The
// kernels then load under their own cache keys from this process's memory
// (native::load_batch, as the cpu target's batches): the batch is not put in the
// on-disk cache, whose entries are one kernel each (the MSL a Mac would compile).
#pragma once

#include <string>
#include <vector>

#include "targets/common/host_compiler.h"
#include "targets/metal/shim_module.h"

namespace kiln::mtl {

struct BatchKernel {
    std::string key;        // shim_key of the kernel built alone
    std::string msl;        // Emitted::source
    std::string glue_body;  // shim_glue_body
};

// Builds the kernels of `kernels` that this process has not loaded yet, with one
// host-compiler run. A batch the compiler rejects builds nothing: each
// kernel is then built alone (shim_module), which names the one at fault.
// Returns how many kernels were built.
int build_shim_batch(const std::vector<BatchKernel>& kernels, const native::HostCompiler& compiler);

}  // namespace kiln::mtl
