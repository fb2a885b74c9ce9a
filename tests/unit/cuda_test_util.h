// Helpers for the cuda target's tests: trace a kernel for host arguments and ask
// the target for its source, PTX or plan (all of which work without a device:
// NVRTC compiles offline for sm_90a).
#pragma once

#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"

namespace kiln::cuda_test {

template <class... A> std::vector<detail::Arg> args_of(A&&... a) {
    std::vector<detail::Arg> v;
    (v.push_back(detail::to_arg(a)), ...);
    return v;
}

enum class What { source, ptx, plan };

inline std::string cuda_text(const Kernel& k, const std::vector<detail::Arg>& args, Precision precision, What what) {
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    CompileOptions o{.precision = precision};
    auto& t = cuda().impl();
    return what == What::plan ? t.plan(*program, args, o) : t.source(*program, args, o, what == What::ptx);
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

inline int count(const std::string& text, const std::string& part) {
    int n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

}  // namespace kiln::cuda_test
