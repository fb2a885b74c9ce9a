// The C++ the cpu target generates for a kernel launched with given buffers: for
// tests that check a launch takes the code path they are about (a vectorised
// or blocked one) rather than a fallback that would also give the right bytes.
#pragma once

#include <string>
#include <vector>

#include "cpu_diff.h"
#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"

namespace cpu_diff {

inline std::string cpu_source(const Kernel& k, const std::vector<Buffer>& bufs, CompileOptions opts = {}) {
    std::vector<detail::Arg> args;
    for (auto& b : bufs) args.push_back(b.arg);
    return cpu().impl().source(*detail::specialize(*k.shared_impl(), args, Loc::here()), args, opts, false);
}

}  // namespace cpu_diff
