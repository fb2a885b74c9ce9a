#include "cta_fibers.h"

#include <ucontext.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace kiln::emulated {

namespace {

constexpr std::size_t kStackBytes = 256 * 1024;  // allocated lazily by the OS, reused across CTAs

struct Fiber {
    ucontext_t context{};
    std::unique_ptr<char[]> stack;
    bool done = false;
    bool waiting = false;
    unsigned long long result = 0;
    std::string waits_at;
};

// One collective in progress: who has arrived, and what each brought.
struct Collective {
    int expected = 0;
    std::vector<int> members;
    std::vector<unsigned long long> values;
    std::vector<int> sources;
};

enum class Kind { barrier, shuffle, warp_sync };
using Key = std::tuple<Kind, long long, long long>;

struct Cta {
    const CtaRun* run = nullptr;
    std::vector<Fiber>* fibers = nullptr;
    ucontext_t scheduler{};
    int current = -1;
    std::map<Key, Collective> open;
    std::string error;
};

thread_local Cta* cta = nullptr;
thread_local std::vector<Fiber> fiber_pool;

Fiber& me() { return (*cta->fibers)[static_cast<std::size_t>(cta->current)]; }

void fail_here(const std::string& what) {
    if (cta->error.empty()) cta->error = "thread " + std::to_string(cta->current) + ": " + what;
    me().done = true;  // abandoned: never resumed
    swapcontext(&me().context, &cta->scheduler);
}

// Joins a collective; returns when every participant has arrived.
unsigned long long arrive(const Key& key, int expected, const std::string& what, unsigned long long value = 0, int source = -1) {
    Collective& c = cta->open[key];
    if (c.members.empty()) c.expected = expected;
    else if (c.expected != expected)
        fail_here(what + ": participants disagree on the count (" + std::to_string(c.expected) + " vs " + std::to_string(expected) + ")");
    c.members.push_back(cta->current);
    c.values.push_back(value);
    c.sources.push_back(source);
    if (static_cast<int>(c.members.size()) < c.expected) {
        me().waiting = true;
        me().waits_at = what;
        swapcontext(&me().context, &cta->scheduler);
        return me().result;
    }
    // Complete: hand each participant its result and release everyone.
    Collective done = std::move(c);
    cta->open.erase(key);
    for (std::size_t i = 0; i < done.members.size(); ++i) {
        Fiber& f = (*cta->fibers)[static_cast<std::size_t>(done.members[i])];
        if (done.sources[i] >= 0) {
            bool found = false;
            for (std::size_t k = 0; k < done.members.size(); ++k)
                if (done.members[k] % 32 == done.sources[i]) {
                    f.result = done.values[k];
                    found = true;
                }
            if (!found && cta->error.empty())
                cta->error = what + ": lane " + std::to_string(done.members[i] % 32) + " of warp " + std::to_string(done.members[i] / 32) +
                             " reads lane " + std::to_string(done.sources[i]) + ", which is not in the mask";
        }
        f.waiting = false;
    }
    return me().result;
}

void barrier(int id, int count) {
    int expected = count == 0 ? cta->run->threads : count;
    if (id == 0 && count != 0 && count != cta->run->threads) fail_here("barrier 0 with a count below the CTA");
    arrive({Kind::barrier, id, 0}, expected, "barrier " + std::to_string(id));
}

void warp_sync(unsigned mask) {
    int lane = cta->current % 32;
    if (!((mask >> lane) & 1u)) fail_here("__syncwarp: the calling lane is not in the mask");
    arrive({Kind::warp_sync, cta->current / 32, mask}, __builtin_popcount(mask), "__syncwarp");
}

unsigned long long shuffle(unsigned mask, unsigned long long value, int src_lane) {
    int lane = cta->current % 32;
    if (!((mask >> lane) & 1u)) fail_here("shuffle: the calling lane is not in the mask");
    return arrive({Kind::shuffle, cta->current / 32, mask}, __builtin_popcount(mask), "shuffle", value, src_lane);
}

void trap(const char* what) { fail_here(what); }

void trampoline() {
    cta->run->body();
    me().done = true;
    swapcontext(&me().context, &cta->scheduler);
}

}  // namespace

const CollectiveApi& collective_api() {
    static const CollectiveApi api{barrier, warp_sync, shuffle, trap};
    return api;
}

void run_cta(const CtaRun& run) {
    if (fiber_pool.size() < static_cast<std::size_t>(run.threads)) fiber_pool.resize(static_cast<std::size_t>(run.threads));
    Cta state;
    state.run = &run;
    state.fibers = &fiber_pool;
    Cta* outer = cta;
    cta = &state;
    for (int t = 0; t < run.threads; ++t) {
        Fiber& f = fiber_pool[static_cast<std::size_t>(t)];
        if (!f.stack) f.stack.reset(new char[kStackBytes]);
        f.done = f.waiting = false;
        f.result = 0;
        getcontext(&f.context);
        f.context.uc_stack.ss_sp = f.stack.get();
        f.context.uc_stack.ss_size = kStackBytes;
        f.context.uc_link = nullptr;
        makecontext(&f.context, trampoline, 0);
    }
    for (;;) {
        bool moved = false, finished = true;
        for (int t = 0; t < run.threads; ++t) {
            Fiber& f = fiber_pool[static_cast<std::size_t>(t)];
            if (f.done) continue;
            finished = false;
            if (f.waiting) continue;
            state.current = t;
            run.set_thread(static_cast<unsigned>(t));
            swapcontext(&state.scheduler, &f.context);
            moved = true;
            if (!state.error.empty()) {
                cta = outer;
                throw std::runtime_error("emulated CTA: " + state.error);
            }
        }
        if (finished) break;
        if (!moved) {
            std::string where;
            for (int t = 0; t < run.threads && where.size() < 600; ++t) {
                const Fiber& f = fiber_pool[static_cast<std::size_t>(t)];
                where += " t" + std::to_string(t) + (f.done ? ":exited" : ":" + f.waits_at);
            }
            cta = outer;
            throw std::runtime_error("emulated CTA: deadlock; threads wait at" + where);
        }
    }
    cta = outer;
}

}  // namespace kiln::emulated
