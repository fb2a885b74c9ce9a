// A fuzz campaign: programs seed, seed+1, ... run on the targets and compared,
// so a failing program reproduces alone with `kiln fuzz --count 1 --seed <its seed>`.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "fuzz/differential.h"

namespace kiln::fuzz {

struct CampaignOptions {
    std::uint64_t seed = 1;
    std::int64_t count = 100;
    std::vector<Target> targets;  // the first is the reference
    CompileOptions compile{.precision = Precision::exact};
    int jobs = 1;                 // programs checked at once
    // Programs compiled together: each job generates `batch` programs and has every
    // target compile them ahead as one batch where it can (the cpu target: one
    // host-compiler run for all), then checks them one by one.
    int batch = 1;
    Limits limits;
    // A time budget (0: none): once it is spent no job starts another batch, and the
    // batches started finish, so the programs checked are the first ones, seeds
    // seed .. seed + programs - 1, however many jobs ran (Summary::stopped_early).
    double seconds = 0;
    // Compile every program's kernels on the targets after the first and run
    // nothing (Summary::compiled, rejected): with a disk cache, a campaign's compiles
    // done ahead, e.g. for a GPU on a machine without one (the cuda target compiles
    // offline for sm_90a, and the cache serves any machine with the same NVRTC).
    bool compile_only = false;
};

struct Summary {
    std::int64_t programs = 0, same = 0, differs = 0, invalid = 0, internal = 0;
    std::int64_t raised = 0;       // of `same`: programs every target aborted with one error
    std::int64_t checked = 0, unchecked = 0;  // precision standard: output elements with a finite bound, and without
    double seconds = 0;
    bool stopped_early = false;    // the time budget ended the campaign before `count` programs
    // Where the jobs' time went, summed over the jobs: tracing and compiling batches
    // ahead, and each target's runs (check_program's Result::target_seconds).
    double prepare_seconds = 0;
    std::vector<double> target_seconds;
    // CampaignOptions::compile_only: programs traced and compiled by every target,
    // and of them those a target refused with a kiln::Error (as their launches
    // would); a failure to trace or compile is `internal`, with its Result in
    // failures. on_result then gets each program's Result (Verdict::same: compiled).
    std::int64_t compiled = 0, rejected = 0;
    std::vector<Result> failures;  // in seed order
    bool passed() const { return programs == same; }
};

// Calls on_result (from one thread at a time) as each program finishes.
Summary run_campaign(const CampaignOptions& options, const std::function<void(const Result&, std::int64_t done)>& on_result = {});

}  // namespace kiln::fuzz
