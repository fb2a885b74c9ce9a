// What a target implements. The interpreter, the CPU, CUDA and Metal targets each
// subclass it; the launch machinery only sees this interface.
#pragma once

#include <kiln/target.h>

#include "ir/ir.h"

namespace kiln::detail {

// A launch with everything that depends only on the program and the arguments'
// shapes done (kernel found, grid sized): what a compiled handle keeps so that its
// next launch with the same shapes only binds the data pointers (executable.cpp).
struct PreparedLaunch {
    virtual ~PreparedLaunch() = default;
    // Runs on `args`, whose shapes, kinds, devices and scalar values are the ones it
    // was prepared for (the caller checks), their data pointers checked too.
    virtual void launch(const std::vector<Arg>& args, Loc loc) = 0;
};

struct TargetImpl {
    virtual ~TargetImpl() = default;
    virtual const std::string& name() const = 0;
    // Empty when usable here; otherwise why not (no compiler, no device, ...).
    virtual std::string unavailable_reason() const { return {}; }
    // Whether a kernel the cache lacks can be built here; target "auto" picks the cpu
    // target only where it can (a cpu target without a compiler runs cached kernels).
    virtual bool compiles_here() const { return unavailable_reason().empty(); }
    virtual Device device() const { return Device::host; }
    // Where tensors for this target go (x.to(target)).
    virtual Placement placement() const { return Placement{device(), 0, nullptr}; }
    // Runs a verified program on the arguments (compiling and caching as needed).
    virtual void run(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, Loc loc) = 0;
    // The schedule plan for a program, as text.
    virtual std::string plan(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts);
    // Generated source (and, where the target has one, the assembly text).
    virtual std::string source(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions& opts, bool assembly);
    // Compiles (and caches) what run() would need for these argument shapes, without
    // running anything: ahead-of-time compilation. Nothing to do for the interpreter.
    virtual void prepare(const ir::Program&, const std::vector<Arg>&, const CompileOptions&, Loc) {}
    // After a run() on these arguments: the same launch prepared for arguments of the
    // same shapes, or null where the target keeps none (each launch then calls run()).
    virtual std::shared_ptr<PreparedLaunch> prepare_launch(std::shared_ptr<const ir::Program>, const std::vector<Arg>&,
                                                           const CompileOptions&) {
        return nullptr;
    }
    // Runs `launch` (a launch on this target) and returns its time in seconds: the
    // wall time (a host launch returns when its grid is done), or the device's
    // time where the target has one. flush_l2 evicts the cache first, untimed.
    virtual double time_launch(const std::function<void()>& launch, bool flush_l2);
    // Compiles several programs ahead of their launches, as one batch where the
    // target can (the cpu target: one host-compiler run), else one by one with
    // prepare(); launching them later compiles nothing more. Only a saving: a
    // program that cannot be compiled here is left for its launch to report.
    struct Pending {
        const ir::Program* program = nullptr;
        const std::vector<Arg>* args = nullptr;
        CompileOptions options;
    };
    virtual void prepare_batch(const std::vector<Pending>& pending);
};

// The targets kiln knows; each file under targets/ provides one factory.
std::shared_ptr<TargetImpl> make_interp_target(InterpOptions o);
std::shared_ptr<TargetImpl> make_cpu_target();
std::shared_ptr<TargetImpl> make_cuda_target(int ordinal, std::shared_ptr<StreamState> stream);
std::shared_ptr<TargetImpl> make_metal_target();

}  // namespace kiln::detail
