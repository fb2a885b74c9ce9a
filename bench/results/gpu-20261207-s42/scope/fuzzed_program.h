// Session 42's scope tools (scope.cpp, digests.cpp), not part of the suite: a fuzzed
// program as a device campaign (`kiln fuzz --targets interp,cuda`) generates, traces
// and launches it, and the seed ranges the tools read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "fuzz/differential.h"
#include "fuzz/program.h"
#include "fuzz/recipe.h"
#include "targets/cuda/emit.h"
#include "targets/cuda/launch_args.h"
#include "trace/kernel_trace.h"

namespace scope {

struct FuzzedProgram {
    kiln::fuzz::Launch launch;  // holds the arguments the program was specialised to
    std::shared_ptr<const kiln::ir::Program> program;
    kiln::CompileOptions options;
};

// Throws kiln::Error where the program is refused (the campaign compared the refusal).
inline FuzzedProgram fuzzed_program(std::uint64_t seed, kiln::Precision precision) {
    kiln::fuzz::Limits limits;
    limits.device = true;
    const kiln::fuzz::Recipe recipe = kiln::fuzz::make_recipe(seed, limits);
    kiln::Kernel k = kiln::fuzz::build_kernel(recipe);
    FuzzedProgram f{kiln::fuzz::make_launch(recipe), nullptr, kiln::CompileOptions{.precision = precision}};
    if (recipe.wide_index) f.options.index_width = kiln::IndexWidth::wide;
    f.program = kiln::detail::specialize(*k.shared_impl(), f.launch.args, kiln::Loc::here());
    return f;
}

// The launch's emit options, as a campaign's cuda launch gets them.
inline kiln::cu::EmitOptions emit_options(const FuzzedProgram& f) { return kiln::cu::emit_options(f.launch.args, f.options); }

// "a..b" (or one seed) as its first and last seeds.
inline std::pair<std::uint64_t, std::uint64_t> seed_range(const std::string& r) {
    const auto dots = r.find("..");
    const std::uint64_t a = std::stoull(r.substr(0, dots));
    return {a, dots == std::string::npos ? a : std::stoull(r.substr(dots + 2))};
}

}  // namespace scope
