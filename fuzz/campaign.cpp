#include "fuzz/campaign.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "fuzz/program.h"
#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"

namespace kiln::fuzz {

namespace {

// Programs first .. last - 1 of the campaign traced, and compiled ahead by each
// target as one batch. Only a saving: a program that fails here is reported by
// its own check.
void prepare_batch(const CampaignOptions& o, std::int64_t first, std::int64_t last) {
    std::vector<Kernel> kernels;
    std::vector<Launch> launches;
    std::vector<std::shared_ptr<const ir::Program>> programs;
    std::vector<detail::TargetImpl::Pending> pending;
    launches.reserve(static_cast<std::size_t>(last - first));  // pending points into it
    for (std::int64_t i = first; i < last; ++i) {
        try {
            const Recipe r = make_recipe(o.seed + static_cast<std::uint64_t>(i), o.limits);
            Kernel k = build_kernel(r);
            launches.push_back(make_launch(r));
            programs.push_back(detail::specialize(*k.shared_impl(), launches.back().args, Loc::here()));
            kernels.push_back(std::move(k));
            CompileOptions options = o.compile;
            if (r.wide_index) options.index_width = IndexWidth::wide;
            pending.push_back({programs.back().get(), &launches.back().args, options});
        } catch (const std::exception&) {
        }
    }
    for (std::size_t t = 1; t < o.targets.size(); ++t) {
        try {
            o.targets[t].impl().prepare_batch(pending);
        } catch (const std::exception&) {
        }
    }
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
