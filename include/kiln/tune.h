// The autotuner (seed 001): a family of kernels that compute the same thing, one per
// configuration (tile sizes, pipeline depth, a split of K: whatever the kernel's
// author makes a parameter), launched like one kernel. The first launch with a new
// identity tries every configuration on the launch's own arguments: each candidate's
// outputs are checked against the first candidate's before it is timed, a candidate
// that fails to build, fails its launch or computes something else is reported and
// left out, and the fastest of the rest is kept, in memory and on disk. A later
// launch, in this process or another, runs the kept choice with no timing.
//
// The identity of a choice (what must match for it to be reused) is the tuner's
// name, its configurations, the program each configuration traces for these
// arguments, the arguments' kinds, extents and strides (and scalar values), the
// precision and index width, the target and its device, and kiln's own build.
//
//     auto gemm = Tuner("gemm", {{{"bm", 128}, {"bn", 256}, {"bk", 64}}, {{"bm", 128}, {"bn", 128}, {"bk", 64}}},
//                       [](const Config& c) { return make_gemm(c["bm"], c["bn"], c["bk"]); });
//     gemm.launch(cuda(), a.view(), b.view(), c.view());   // tunes once for these shapes, then runs the choice
//
// The launch's result is that of one launch of the chosen kernel: writable views are
// saved before tuning, restored before each candidate runs, and restored again
// before the chosen kernel's final launch (so an in-place `y = y + 1` adds one).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kiln/target.h>

namespace kiln {

// One configuration: named integer parameters, in the order written.
class Config {
public:
    Config() = default;
    Config(std::initializer_list<std::pair<std::string, std::int64_t>> items, Loc loc = Loc::here());
    Config(std::vector<std::pair<std::string, std::int64_t>> items, Loc loc = Loc::here());
    // The value of `name`; a kiln::Error naming the parameters there are when missing.
    std::int64_t operator[](std::string_view name) const;
    std::int64_t get(std::string_view name, Loc loc = Loc::here()) const;
    bool has(std::string_view name) const;
    const std::vector<std::pair<std::string, std::int64_t>>& items() const { return items_; }
    std::string text() const;  // "bm=128 bn=256 bk=64"
    bool operator==(const Config& o) const { return items_ == o.items_; }

private:
    std::vector<std::pair<std::string, std::int64_t>> items_;
};

// What became of one configuration in a tuning run.
struct TuneCandidate {
    enum class Status : std::uint8_t { timed, rejected, failed };
    Config config;
    Status status = Status::failed;
    double median = 0;        // seconds per launch (timed)
    double first_launch = 0;  // seconds, the build included (timed, rejected)
    double difference = 0;    // largest |out - first| / max |first| over the outputs (timed, rejected)
    std::string why;          // what went wrong (rejected, failed)
};
std::string_view status_name(TuneCandidate::Status s);

// The choice for one identity.
struct TuneChoice {
    std::size_t index = 0;                   // into the tuner's configurations
    Config config;
    bool from_disk = false;                  // read from the cache, nothing timed in this process
    bool from_memory = false;                // chosen earlier in this process
    std::vector<TuneCandidate> candidates;   // the tuning run's table (also when read from disk)
    std::string key;                         // the identity's hash (the cache entry's name)
};

// One line of progress: a candidate about to run (`done` of `total` finished so far)
// or finished (`candidate` set).
struct TuneProgress {
    const std::string& tuner;
    std::size_t done = 0, total = 0;
    const TuneCandidate* candidate = nullptr;  // null: `config` is about to run
    const Config& config;
};

struct TuneOptions {
    int warmup = 3;            // launches before timing each candidate
    int reps = 20;             // timed launches; the median is compared
    bool flush_l2 = false;     // evict the cache before each timed launch (bench.h)
    // The largest accepted |out - first| / max |first| per output, where `first` is
    // the first candidate that ran. Negative: by the output's kind (bf16 3e-2, f16 4e-3,
    // f32 1e-4, f64 1e-9; enough for a reordered sum over tens of thousands of terms
    // and an output rounded differently, far below a wrong tile's error). Integer
    // outputs, and every output in precision exact, must match bit for bit.
    double tolerance = -1;
    bool retune = false;       // ignore a kept choice (memory and disk) and tune again
    bool use_disk = true;      // keep choices in kiln's cache directory
    // Called for each candidate before and after it runs; unset: a line per finished
    // candidate on stderr, unless `quiet`.
    std::function<void(const TuneProgress&)> progress;
    bool quiet = false;
};

namespace detail {
struct TunerImpl;
void tuned_launch(TunerImpl& t, LaunchRequest& req);
const TuneChoice* last_choice(const TunerImpl& t);
}  // namespace detail

class Tuner;
// Like run_kernel (target.h): a tuned launch with type-erased arguments, for tools.
void run_tuned(const Tuner& t, const Target& target, const std::vector<detail::Arg>& args, const CompileOptions& options, Loc loc);

class Tuner {
public:
    Tuner() = default;
    // `make` builds the kernel of one configuration; it may be called more than once
    // per configuration and must return kernels with the same parameters.
    Tuner(std::string name, std::vector<Config> configs, std::function<Kernel(const Config&)> make, TuneOptions options = {},
          Loc loc = Loc::here());

    // Like Kernel::launch: tune.launch(target, [Precision or CompileOptions,] args...).
    template <class... Args> void launch(detail::LaunchHead head, Args&&... args) const;
    // The choice of the last launch (null before one).
    const TuneChoice* last_choice() const { return impl_ ? detail::last_choice(*impl_) : nullptr; }
    const std::vector<Config>& configs() const;
    const std::string& name() const;

private:
    friend void run_tuned(const Tuner&, const Target&, const std::vector<detail::Arg>&, const CompileOptions&, Loc);
    std::shared_ptr<detail::TunerImpl> impl_;
};

template <class... Args> void Tuner::launch(detail::LaunchHead head, Args&&... args) const {
    if (!impl_) fail(head.loc, "launch", "an empty tuner; assign Tuner(name, configs, make) to it");
    LaunchRequest req;
    req.loc = head.loc;
    req.args.reserve(sizeof...(Args) + 1);
    if (head.target) req.target = std::move(head.target);
    else head.write_first(req.args.emplace_back());
    (detail::add_launch_arg(req, args), ...);
    detail::tuned_launch(*impl_, req);
}

}  // namespace kiln
