// What a target implements. The interpreter, the CPU, CUDA and Metal targets each
// subclass it; the launch machinery only sees this interface.
#pragma once

#include <kiln/target.h>

#include "ir/ir.h"

namespace kiln::detail {

struct TargetImpl {
    virtual ~TargetImpl() = default;
    virtual const std::string& name() const = 0;
    // Empty when usable here; otherwise why not (no compiler, no device, ...).
    virtual std::string unavailable_reason() const { return {}; }
    virtual Device device() const { return Device::host; }
    // Runs a verified program on the arguments (compiling and caching as needed).
    virtual void run(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, Loc loc) = 0;
    // The schedule plan for a program, as text.
    virtual std::string plan(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts);
    // Generated source (and, where the target has one, the assembly text).
    virtual std::string source(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, bool assembly);
};

// The targets kiln knows; each file under targets/ provides one factory.
std::shared_ptr<TargetImpl> make_interp_target(InterpOptions o);
std::shared_ptr<TargetImpl> make_cpu_target();
std::shared_ptr<TargetImpl> make_cuda_target();
std::shared_ptr<TargetImpl> make_metal_target();

}  // namespace kiln::detail
