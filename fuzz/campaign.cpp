#include "fuzz/campaign.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace kiln::fuzz {

Summary run_campaign(const CampaignOptions& o, const std::function<void(const Result&, std::int64_t done)>& on_result) {
    const auto start = std::chrono::steady_clock::now();
    Summary s;
    std::mutex m;
    std::atomic<std::int64_t> next{0};
    auto work = [&] {
        for (std::int64_t i; (i = next.fetch_add(1)) < o.count;) {
            const std::uint64_t seed = o.seed + static_cast<std::uint64_t>(i);
            Result r;
            try {
                r = check_program(seed, o.targets, o.compile, o.limits);
            } catch (const std::exception& e) {  // the generator itself failed: its bug, reported like the rest
                r = Result{seed, Verdict::invalid, std::string("generating the program failed: ") + e.what()};
            }
            std::lock_guard<std::mutex> g(m);
            ++s.programs;
            switch (r.verdict) {
                case Verdict::same: ++s.same, s.raised += r.raised; break;
                case Verdict::differs: ++s.differs; break;
                case Verdict::invalid: ++s.invalid; break;
                case Verdict::internal: ++s.internal; break;
            }
            if (r.verdict != Verdict::same) s.failures.push_back(r);
            if (on_result) on_result(r, s.programs);
        }
    };
    const int jobs = static_cast<int>(std::clamp<std::int64_t>(o.jobs, 1, std::max<std::int64_t>(1, o.count)));
    std::vector<std::thread> threads;
    for (int j = 1; j < jobs; ++j) threads.emplace_back(work);
    work();
    for (auto& t : threads) t.join();
    std::sort(s.failures.begin(), s.failures.end(), [](const Result& a, const Result& b) { return a.seed < b.seed; });
    s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return s;
}

}  // namespace kiln::fuzz
