// Launch arguments for a catalog case, for the subcommands that drive a target
// directly (ir, plan, source, bench) rather than through catalog::run_outputs.
#pragma once

#include <memory>
#include <vector>

#include <kiln/kiln.h>

#include "catalog.h"
#include "ir/ir.h"

namespace kiln::cli {

// The arguments in launch order. On a device target the views point at device
// copies, which live as long as this object.
struct CaseArgs {
    std::vector<detail::Arg> args;
    std::vector<std::shared_ptr<detail::DeviceBuffer>> device;  // by argument; null when not on a device
};

// Host views over the case's own buffers (enough to trace, plan and generate source).
CaseArgs host_args(const catalog::Case& c);
// Arguments where the target runs: host views, or device copies of every view.
CaseArgs target_args(const catalog::Case& c, const Target& target);
// The outputs as the last launch left them (downloaded from the device when needed).
std::vector<catalog::Buffer> outputs(const catalog::Case& c, const CaseArgs& args);

// The Tile IR program the case's kernel specialises to for these arguments
// (traced and verified on first use, then cached in the kernel).
std::shared_ptr<const ir::Program> program_for(const catalog::Case& c, const CaseArgs& args);

// The first case of an entry at a size: what ir, plan and source show.
catalog::Case first_case(const catalog::Entry& e, catalog::Size size);

}  // namespace kiln::cli
