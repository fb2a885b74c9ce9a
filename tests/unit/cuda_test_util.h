// Helpers for the cuda target's tests: trace a kernel for host arguments and ask
// the target for its source, PTX or plan (all of which work without a device:
// NVRTC compiles offline for sm_90a).
#pragma once

#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "targets/common/target_impl.h"
#include "targets/cuda/kernel_cache.h"
#include "targets/cuda/launch_args.h"
#include "targets/cuda/nvrtc.h"
#include "trace/kernel_trace.h"

// Skip a test that needs NVRTC (to compile offline) or a CUDA device, saying why not.
#define REQUIRE_NVRTC() \
    if (::kiln::cu::nvrtc_version().empty()) GTEST_SKIP() << "no NVRTC: " << [] { std::string w; ::kiln::cu::nvrtc_version(&w); return w; }()
#define REQUIRE_DEVICE() \
    if (!::kiln::cuda().available()) GTEST_SKIP() << "no CUDA device: " << ::kiln::cuda().unavailable_reason()

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

// The PTX of the module with the program's generic kernel in it, also beside a GEMM
// or attention kernel (where a launch compiles it only once the specialised kernel
// refuses one: EmitOptions::generic_kernel).
inline std::string generic_ptx(const Kernel& k, const std::vector<detail::Arg>& args, Precision precision) {
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    cu::EmitOptions o = cu::emit_options(args, CompileOptions{.precision = precision});
    o.generic_kernel = true;
    return cu::kernel_ptx(*cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true));
}

// The kernel compiled offline under the launch's emit options as `adjust` changes
// them (a ladder step or a layout a default no longer takes, say).
template <class Adjust>
std::shared_ptr<const cu::CompiledKernel> compiled_with(const Kernel& k, const std::vector<detail::Arg>& args, Precision precision, Adjust adjust) {
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    cu::EmitOptions o = cu::emit_options(args, CompileOptions{.precision = precision});
    adjust(o);
    return cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true);
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every line of a compiled kernel's plan text that says what the spill ladder gave
// up and how each value is held, joined (for contains()).
inline std::string ladder_and_values(const cu::CompiledKernel& k) {
    std::string text;
    for (const std::string& s : k.spill_feedback) text += s + "\n";
    for (const std::string& s : k.kernel.values) text += s + "\n";
    return text;
}

inline int count(const std::string& text, const std::string& part) {
    int n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

}  // namespace kiln::cuda_test
