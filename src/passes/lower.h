// The middle end's pipeline: the passes each target runs, in order, after
// tracing and verification and before emission. Reading lower.cpp is reading the
// pipeline. The verifier runs after every pass when KILN_VERIFY_PASSES is set
// (the test suite sets it).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "passes/lowered.h"

namespace kiln::passes {

// Runs the target's passes over p (every one, or up to and including `stop_after`).
Lowered lower(const ir::Program& p, const LowerOptions& o, std::string_view stop_after = {});

// The names of the target's passes, in order (for `kiln ir --after` and its errors).
std::vector<std::string_view> pass_names(TargetKind target);

// The program's text with each value's annotations from the passes that ran
// (with source locations unless `locations` is false).
std::string print(const Lowered& l, bool locations = true);

}  // namespace kiln::passes
