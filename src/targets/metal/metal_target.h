// What the metal target shares with its tools (the harness generator, `kiln
// plan`): the emit options a launch selects and the engine that runs kernels here.
#pragma once

#include <string>
#include <vector>

#include <kiln/target.h>

#include "targets/metal/emit_msl.h"

namespace kiln::mtl {

// What a launch specialises the MSL on: the index width from its views, the
// precision, and KILN_METAL_LOWERING (auto, or thread: no simdgroup lowering).
EmitOptions emit_options(const std::vector<detail::Arg>& args, const CompileOptions& opts);

// The engine that runs metal kernels on this machine, in words.
std::string engine_description();

}  // namespace kiln::mtl
