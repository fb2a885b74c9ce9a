// The autotuner (kiln/tune.h): the choice for a launch comes from this tuner's
// memory, else from the disk cache, else from a tuning run on the launch's own
// arguments; then the chosen kernel is launched like any kernel (through the launch
// handlers, so they see the kernel that runs).
#include <kiln/tune.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>

#include "cache/disk_cache.h"
#include "cache/source_id.h"
#include "targets/common/host_compiler.h"
#include "targets/common/target_impl.h"
#include "targets/common/thread_pool.h"
#include "support/warnings.h"
#include "targets/cuda/driver.h"
#include "tune/choice_record.h"
#include "tune/saved_views.h"

namespace kiln {

namespace {
bool parameter_name(std::string_view s) {
    if (s.empty()) return false;
    for (char ch : s)
        if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) return false;
    return true;
}
}  // namespace

Config::Config(std::initializer_list<std::pair<std::string, std::int64_t>> items, Loc loc)
    : Config(std::vector<std::pair<std::string, std::int64_t>>(items), loc) {}

Config::Config(std::vector<std::pair<std::string, std::int64_t>> items, Loc loc) : items_(std::move(items)) {
    std::set<std::string_view> seen;
    for (const auto& [name, value] : items_) {
        if (!parameter_name(name))
            fail(loc, "Config", "a parameter name is letters, digits and '_' (got '" + name + "')");
        if (!seen.insert(name).second) fail(loc, "Config", "parameter '" + name + "' is given twice");
    }
}

bool Config::has(std::string_view name) const {
    return std::any_of(items_.begin(), items_.end(), [&](const auto& kv) { return kv.first == name; });
}

std::int64_t Config::get(std::string_view name, Loc loc) const {
    for (const auto& [n, v] : items_)
        if (n == name) return v;
    fail(loc, "Config", "configuration '" + text() + "' has no parameter '" + std::string(name) + "'");
}

std::int64_t Config::operator[](std::string_view name) const { return get(name, {}); }

std::string Config::text() const {
    std::string s;
    for (const auto& [n, v] : items_) s += (s.empty() ? "" : " ") + n + "=" + std::to_string(v);
    return s.empty() ? "(no parameters)" : s;
}

std::string_view status_name(TuneCandidate::Status s) {
    switch (s) {
        case TuneCandidate::Status::timed: return "timed";
        case TuneCandidate::Status::rejected: return "rejected";
        case TuneCandidate::Status::failed: return "failed";
    }
    return "failed";
}

}  // namespace kiln

namespace kiln::detail {

struct TunerImpl {
    std::string name;
    std::vector<Config> configs;
    std::function<Kernel(const Config&)> make;
    TuneOptions options;
    Loc loc;

    std::mutex mutex;  // one tuning run at a time; launches of a chosen kernel do not hold it
    std::vector<std::optional<Kernel>> kernels;   // built on first need, one per configuration
    std::vector<std::string> build_errors;        // why a configuration has no kernel
    std::unordered_map<std::string, TuneChoice> chosen;  // by launch signature
    std::optional<TuneChoice> last;
};

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string error_text(const std::exception& e) {
    if (auto* k = dynamic_cast<const Error*>(&e)) return k->detail();
    return e.what();
}

// The kernel of configuration i, built on first use; null with the reason kept when
// `make` fails or returns an empty kernel.
const Kernel* kernel_for(TunerImpl& t, std::size_t i) {
    if (!t.kernels[i] && t.build_errors[i].empty()) {
        try {
            Kernel k = t.make(t.configs[i]);
            if (!k) t.build_errors[i] = "make returned an empty Kernel";
            else t.kernels[i] = std::move(k);
        } catch (const std::exception& e) {
            t.build_errors[i] = "cannot build it: " + error_text(e);
        }
    }
    return t.kernels[i] ? &*t.kernels[i] : nullptr;
}

// What must match, within this process, for a choice to be reused: the target, the
// options and the arguments' kinds, extents, strides and scalar values.
std::string launch_signature(const Target& target, const LaunchRequest& req) {
    std::string s = target.name() + " device " + std::to_string(static_cast<Placement>(target).ordinal) + " precision " +
                    std::string(precision_name(req.options.precision)) +
                    (req.options.index_width == IndexWidth::wide ? " wide" : " auto");
    for (const Arg& a : req.args) {
        s += a.is_view ? std::string(" | view ") + (a.read_only ? "const " : "") : std::string(" | scalar ");
        s += std::string(kind_name(a.kind));
        if (a.is_view) {
            for (auto e : a.extents) s += " " + std::to_string(e);
            s += " /";
            for (auto st : a.strides) s += " " + std::to_string(st);
            s += a.device == Device::cuda ? " cuda" : " host";
        } else {
            char buf[40];
            std::snprintf(buf, sizeof buf, " %.17g %lld", a.f, static_cast<long long>(a.i));
            s += buf;
        }
    }
    return s;
}

// The machine a choice was timed on.
std::string device_identity(const Target& target) {
    if (static_cast<Placement>(target).device == Device::cuda) {
        std::string why;
        const cu::Device* d = cu::device_at(static_cast<Placement>(target).ordinal, &why);
        if (!d) return "cuda (no device: " + why + ")";
        return "cuda " + d->name + " " + d->arch_name + " driver " + std::to_string(d->driver_version);
    }
    return "host " + native::host_cpu_identity() + " threads " + std::to_string(native::launch_threads());
}

// The choice's identity (its disk cache key): what the launch signature says, and the
// program each configuration traces for these arguments, the device and kiln's build.
std::string identity_key(TunerImpl& t, const Target& target, const LaunchRequest& req, const std::string& signature) {
    cache::KeyBuilder key;
    key.add("purpose", "kiln tuning choice 1");
    key.add("kiln", cache::kiln_source_id());
    key.add("tuner", t.name);
    key.add("device", device_identity(target));
    key.add("launch", signature);
    for (std::size_t i = 0; i < t.configs.size(); ++i) {
        key.add("configuration", t.configs[i].text());
        std::string program;
        if (const Kernel* k = kernel_for(t, i)) {
            try {
                program = kernel_ir(*k, req.args);
            } catch (const std::exception& e) {
                program = "cannot trace: " + error_text(e);
            }
        } else {
            program = t.build_errors[i];
        }
        key.add("program", program);
    }
    return key.hex();
}

void report(const TunerImpl& t, std::size_t done, const TuneCandidate* c, const Config& config) {
    TuneProgress p{t.name, done, t.configs.size(), c, config};
    if (t.options.progress) {
        t.options.progress(p);
        return;
    }
    if (t.options.quiet || !c) return;
    std::string line = "kiln tune " + t.name + ": [" + std::to_string(done) + "/" + std::to_string(p.total) + "] " + config.text() + ": ";
    char buf[96];
    if (c->status == TuneCandidate::Status::timed) {
        std::snprintf(buf, sizeof buf, "%.4g ms (first launch %.3g s, differs by %.2g)", c->median * 1e3, c->first_launch, c->difference);
        line += buf;
    } else {
        line += std::string(status_name(c->status)) + ": " + c->why;
    }
    std::fprintf(stderr, "%s\n", line.c_str());
}

TuneChoice tuning_run(TunerImpl& t, const Target& target, const LaunchRequest& req) {
    const TuneOptions& o = t.options;
    const bool bitwise = req.options.precision == Precision::exact;
    const auto started = Clock::now();
    tune::SavedViews saved(req.args);
    std::optional<std::vector<tune::ViewBytes>> first;  // the outputs of the first candidate that ran
    std::size_t first_index = 0;
    TuneChoice choice;
    for (std::size_t i = 0; i < t.configs.size(); ++i) {
        TuneCandidate c;
        c.config = t.configs[i];
        report(t, i, nullptr, c.config);
        const Kernel* k = kernel_for(t, i);
        if (!k) {
            c.why = t.build_errors[i];
        } else {
            auto run = [&] { run_kernel(*k, target, req.args, req.options, req.loc); };
            try {
                saved.restore();
                auto t0 = Clock::now();
                run();
                std::vector<tune::ViewBytes> out = saved.read();  // waits for the device
                c.first_launch = seconds_since(t0);
                tune::Difference d = first ? saved.compare(out, *first, bitwise, o.tolerance) : tune::Difference{};
                c.difference = d.relative;
                if (!first) {
                    first = std::move(out);
                    first_index = i;
                }
                if (!d.ok) {
                    c.status = TuneCandidate::Status::rejected;
                    c.why = "computes something else than " + t.configs[first_index].text() + ": " + d.why;
                } else {
                    for (int w = 1; w < o.warmup; ++w) run();
                    std::vector<double> samples;
                    for (int r = 0; r < o.reps; ++r) samples.push_back(target.impl().time_launch(run, o.flush_l2));
                    std::sort(samples.begin(), samples.end());
                    const std::size_t n = samples.size();
                    c.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
                    c.status = TuneCandidate::Status::timed;
                }
            } catch (const std::exception& e) {
                c.status = TuneCandidate::Status::failed;
                c.why = error_text(e);
            }
        }
        choice.candidates.push_back(std::move(c));
        report(t, i + 1, &choice.candidates.back(), t.configs[i]);
    }
    saved.restore();  // the final launch starts from the arguments as they were given

    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < choice.candidates.size(); ++i)
        if (choice.candidates[i].status == TuneCandidate::Status::timed &&
            (!best || choice.candidates[i].median < choice.candidates[*best].median))
            best = i;
    if (!best) {
        std::string why;
        for (const TuneCandidate& c : choice.candidates) why += "\n  " + c.config.text() + ": " + std::string(status_name(c.status)) + ": " + c.why;
        fail(req.loc, "tune", "no configuration of '" + t.name + "' ran on this launch:" + why);
    }
    choice.index = *best;
    choice.config = t.configs[*best];
    if (!o.quiet && !o.progress)
        std::fprintf(stderr, "kiln tune %s: chose %s (%.4g ms) of %zu configurations in %.1f s\n", t.name.c_str(),
                     choice.config.text().c_str(), choice.candidates[*best].median * 1e3, t.configs.size(), seconds_since(started));
    return choice;
}

// The choice for a launch whose signature this tuner has not met: from the disk
// cache, else a tuning run (kept on disk for other processes).
TuneChoice choose(TunerImpl& t, const Target& target, const LaunchRequest& req, const std::string& signature) {
    std::optional<cache::DiskCache> disk;
    if (t.options.use_disk) disk = cache::DiskCache::open_or_warn();
    std::string key = identity_key(t, target, req, signature);
    if (disk && !t.options.retune) {
        static const std::string_view names[] = {tune::kRecordName};
        if (auto kept = disk->read(key, names)) {
            if (auto c = tune::decode_choice((*kept)[0], t.configs)) {
                c->key = key;
                if (!t.options.quiet && !t.options.progress)
                    std::fprintf(stderr, "kiln tune %s: using the kept choice %s (%.4g ms when tuned)\n", t.name.c_str(),
                                 c->config.text().c_str(), c->candidates[c->index].median * 1e3);
                return *c;
            }
            support::warn_once("tune " + t.name, "a kept tuning choice for '" + t.name + "' could not be read; tuning again");
        }
    }
    TuneChoice c = tuning_run(t, target, req);
    c.key = key;
    if (disk) {
        if (t.options.retune) disk->retire(key);
        std::string text = tune::encode_choice(t.name, c);
        disk->try_publish(key, [&](const std::filesystem::path& staging) {
            std::ofstream f(staging / tune::kRecordName, std::ios::binary);
            f << text;
            if (!f.flush()) throw std::runtime_error("cannot write the tuning choice");
        });
    }
    return c;
}

}  // namespace

void tuned_launch(TunerImpl& t, LaunchRequest& req) {
    Target target = req.target ? *req.target : default_target();
    const std::string signature = launch_signature(target, req);
    const Kernel* chosen = nullptr;
    {
        std::lock_guard lock(t.mutex);
        auto it = t.chosen.find(signature);
        if (it == t.chosen.end()) {
            it = t.chosen.emplace(signature, choose(t, target, req, signature)).first;
            t.last = it->second;
        } else {
            t.last = it->second;
            t.last->from_memory = true;
            t.last->from_disk = false;
        }
        chosen = kernel_for(t, it->second.index);
        if (!chosen) fail(req.loc, "tune", "the kept choice " + it->second.config.text() + " has no kernel: " + t.build_errors[it->second.index]);
    }
    req.kernel = chosen;
    req.target = target;
    dispatch(req);
}

const TuneChoice* last_choice(const TunerImpl& t) { return t.last ? &*t.last : nullptr; }

}  // namespace kiln::detail

namespace kiln {

Tuner::Tuner(std::string name, std::vector<Config> configs, std::function<Kernel(const Config&)> make, TuneOptions options, Loc loc) {
    if (name.empty()) fail(loc, "Tuner", "a tuner needs a name (it is part of the kept choice's identity)");
    if (configs.empty()) fail(loc, "Tuner", "'" + name + "' has no configurations to choose from");
    if (!make) fail(loc, "Tuner", "'" + name + "' has no function to make a configuration's kernel");
    if (options.reps < 1 || options.warmup < 0) fail(loc, "Tuner", "needs reps >= 1 and warmup >= 0");
    for (std::size_t i = 0; i < configs.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (configs[i] == configs[j]) fail(loc, "Tuner", "configuration '" + configs[i].text() + "' is listed twice");
    auto impl = std::make_shared<detail::TunerImpl>();
    impl->name = std::move(name);
    impl->configs = std::move(configs);
    impl->make = std::move(make);
    impl->options = std::move(options);
    impl->loc = loc;
    impl->kernels.resize(impl->configs.size());
    impl->build_errors.resize(impl->configs.size());
    impl_ = std::move(impl);
}

void run_tuned(const Tuner& t, const Target& target, const std::vector<detail::Arg>& args, const CompileOptions& options, Loc loc) {
    if (!t.impl_) fail(loc, "launch", "an empty tuner; assign Tuner(name, configs, make) to it");
    LaunchRequest req;
    req.loc = loc;
    req.target = target;
    req.options = options;
    req.args = args;
    detail::tuned_launch(*t.impl_, req);
}

const std::vector<Config>& Tuner::configs() const {
    static const std::vector<Config> none;
    return impl_ ? impl_->configs : none;
}
const std::string& Tuner::name() const {
    static const std::string none;
    return impl_ ? impl_->name : none;
}

}  // namespace kiln
