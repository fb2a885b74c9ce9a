// Kernels and their specialised programs.
#pragma once

#include <atomic>
#include <mutex>

#include <kiln/target.h>

#include "ir/ir.h"

namespace kiln::detail {

struct KernelImpl {
    std::string name;
    std::vector<ParamSig> params;
    std::function<void()> trace;
    Loc loc;
    std::mutex mutex;
    std::vector<std::shared_ptr<const ir::Program>> programs;
    std::atomic<int> traces{0};  // programs traced: one per specialisation met
};

// The arguments against the kernel's parameters: count, kind, rank, access, and
// each view's extents and strides (and, with_data, its data pointer); an error
// names `loc`, the launch.
void check_args(const KernelImpl& k, const std::vector<Arg>& args, Loc loc, bool with_data);
// Only the views' data pointers, for arguments whose shapes check_args accepted
// at an earlier launch (a compiled handle's prepared launch).
void check_arg_data(const KernelImpl& k, const std::vector<Arg>& args, Loc loc);

// The program for these arguments: checked against the parameters (not their
// data: plans and sources need none), traced on the first launch of each
// specialisation, verified.
std::shared_ptr<const ir::Program> specialize(KernelImpl& k, const std::vector<Arg>& args, Loc loc);

}  // namespace kiln::detail
