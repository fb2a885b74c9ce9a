#include "fuzz/campaign.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "fuzz/program.h"
#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"

namespace kiln::fuzz {

namespace {

// Programs first .. last - 1 of the campaign traced and specialised to their
// launches, as each target's prepare_batch takes them. A program whose recipe,
// trace or specialisation throws is left out (its own check reports it).
struct Batch {
    std::vector<Kernel> kernels;
    std::vector<Launch> launches;
    std::vector<std::shared_ptr<const ir::Program>> programs;
    std::vector<std::uint64_t> seeds;
    std::vector<detail::TargetImpl::Pending> pending;
};

std::unique_ptr<Batch> traced_batch(const CampaignOptions& o, std::int64_t first, std::int64_t last) {
    auto b = std::make_unique<Batch>();
    b->launches.reserve(static_cast<std::size_t>(last - first));  // pending points into it
    for (std::int64_t i = first; i < last; ++i) {
        try {
            const std::uint64_t seed = o.seed + static_cast<std::uint64_t>(i);
            const Recipe r = make_recipe(seed, o.limits);
            Kernel k = build_kernel(r);
            b->launches.push_back(make_launch(r));
            b->programs.push_back(detail::specialize(*k.shared_impl(), b->launches.back().args, Loc::here()));
            b->kernels.push_back(std::move(k));
            b->seeds.push_back(seed);
            CompileOptions options = o.compile;
            if (r.wide_index) options.index_width = IndexWidth::wide;
            b->pending.push_back({b->programs.back().get(), &b->launches.back().args, options});
        } catch (const std::exception&) {
        }
    }
    return b;
}

// Programs first .. last - 1 compiled ahead by each target as one batch. Only a
// saving: a program that fails here is reported by its own check.
void prepare_batch(const CampaignOptions& o, std::int64_t first, std::int64_t last) {
    const auto b = traced_batch(o, first, last);
    for (std::size_t t = 1; t < o.targets.size(); ++t) {
        try {
            o.targets[t].impl().prepare_batch(b->pending);
        } catch (const std::exception&) {
        }
    }
}

// CampaignOptions::compile_only: programs first .. last - 1 compiled by every
// target after the first (as one batch where the target can), then each asked for
// once more, which finds it compiled, to say which failed: a kiln::Error is a
// rejection its launch would report too (Result::raised), anything else a failure
// (Verdict::internal). One Result a program, in seed order.
std::vector<Result> compile_batch(const CampaignOptions& o, std::int64_t first, std::int64_t last) {
    const auto b = traced_batch(o, first, last);
    std::vector<Result> results(static_cast<std::size_t>(last - first));
    for (std::int64_t i = first; i < last; ++i) {
        Result& r = results[static_cast<std::size_t>(i - first)];
        r.seed = o.seed + static_cast<std::uint64_t>(i);
        r.verdict = Verdict::internal;
        r.detail = "generating or tracing the program failed";
    }
    // The Result of the batch's i-th traced program.
    auto of = [&](std::size_t i) -> Result& { return results[static_cast<std::size_t>(b->seeds[i] - o.seed - static_cast<std::uint64_t>(first))]; };
    for (std::size_t i = 0; i < b->pending.size(); ++i) of(i).verdict = Verdict::same;
    for (std::size_t t = 1; t < o.targets.size(); ++t) {
        try {
            o.targets[t].impl().prepare_batch(b->pending);
        } catch (const std::exception&) {
        }
        for (std::size_t i = 0; i < b->pending.size(); ++i) {
            const auto& q = b->pending[i];
            Result& r = of(i);
            try {
                o.targets[t].impl().prepare(*q.program, *q.args, q.options, q.program->loc);
            } catch (const Error&) {
                r.raised = true;
            } catch (const std::exception& e) {
                r.verdict = Verdict::internal;
                r.detail = o.targets[t].name() + " did not compile it: " + e.what();
            }
        }
    }
    return results;
}

}  // namespace

Summary run_campaign(const CampaignOptions& o, const std::function<void(const Result&, std::int64_t done)>& on_result) {
    const auto start = std::chrono::steady_clock::now();
    Summary s;
    s.target_seconds.assign(o.targets.size(), 0.0);
    std::mutex m;
    std::atomic<std::int64_t> next{0};
    const std::int64_t batch = std::max(1, o.batch);
    // One program checked and counted.
    auto check = [&](std::int64_t i) {
        const std::uint64_t seed = o.seed + static_cast<std::uint64_t>(i);
        Result r;
        try {
            r = check_program(seed, o.targets, o.compile, o.limits);
        } catch (const std::exception& e) {  // the generator itself failed: its bug, reported like the rest
            r = Result{};
            r.seed = seed;
            r.verdict = Verdict::invalid;
            r.detail = std::string("generating the program failed: ") + e.what();
        }
        std::lock_guard<std::mutex> g(m);
        ++s.programs;
        for (std::size_t t = 0; t < r.target_seconds.size(); ++t) s.target_seconds[t] += r.target_seconds[t];
        s.checked += r.checked;
        s.unchecked += r.unchecked;
        switch (r.verdict) {
            case Verdict::same: ++s.same, s.raised += r.raised; break;
            case Verdict::differs: ++s.differs; break;
            case Verdict::invalid: ++s.invalid; break;
            case Verdict::internal: ++s.internal; break;
        }
        if (r.verdict != Verdict::same) s.failures.push_back(r);
        if (on_result) on_result(r, s.programs);
    };
    const bool budgeted = o.seconds > 0;
    const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(o.seconds));
    std::atomic<bool> out_of_time{false};
    auto work = [&] {
        for (std::int64_t first;;) {
            // Checked before a batch is claimed: every claimed batch is run, so the
            // programs run are always the campaign's first ones.
            if (budgeted && std::chrono::steady_clock::now() >= deadline) {
                out_of_time = true;
                return;
            }
            if ((first = next.fetch_add(batch)) >= o.count) return;
            const std::int64_t last = std::min(o.count, first + batch);
            if (o.compile_only) {
                for (const Result& r : compile_batch(o, first, last)) {
                    std::lock_guard<std::mutex> g(m);
                    ++s.programs;
                    if (r.verdict == Verdict::same) ++s.compiled, s.rejected += r.raised ? 1 : 0;
                    else ++s.internal, s.failures.push_back(r);
                    if (on_result) on_result(r, s.programs);
                }
                continue;
            }
            if (batch > 1) {
                const auto prepared = std::chrono::steady_clock::now();
                prepare_batch(o, first, last);
                const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - prepared).count();
                std::lock_guard<std::mutex> g(m);
                s.prepare_seconds += seconds;
            }
            for (std::int64_t i = first; i < last; ++i) check(i);
        }
    };
    const int jobs = static_cast<int>(std::clamp<std::int64_t>(o.jobs, 1, std::max<std::int64_t>(1, o.count)));
    std::vector<std::thread> threads;
    for (int j = 1; j < jobs; ++j) threads.emplace_back(work);
    work();
    for (auto& t : threads) t.join();
    s.stopped_early = out_of_time && s.programs < o.count;
    std::sort(s.failures.begin(), s.failures.end(), [](const Result& a, const Result& b) { return a.seed < b.seed; });
    s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return s;
}

}  // namespace kiln::fuzz
