// The launch effect: a per-thread stack of handlers. A handler runs outside its own
// scope, so a launch it performs goes to the handlers below it (effect-handler
// semantics), and the bottom runs the default.
#include <vector>

#include <kiln/target.h>

#include "runtime/executable_launch.h"

namespace kiln {

namespace {
thread_local std::vector<LaunchHandler> t_handlers;
thread_local std::size_t t_visible = 0;  // handlers [0, t_visible) see new launches

void dispatch_at(LaunchRequest& req, std::size_t level) {
    if (level == 0) {
        run_default(req);
        return;
    }
    std::size_t saved = t_visible;
    t_visible = level - 1;
    struct Restore {
        std::size_t v;
        ~Restore() { t_visible = v; }
    } restore{saved};
    Next next = [level](LaunchRequest& r) { dispatch_at(r, level - 1); };
    t_handlers[level - 1](req, next);
}
}  // namespace

HandlerScope::HandlerScope(LaunchHandler h, Loc loc) : depth_(t_handlers.size()) {
    if (!h) fail(loc, "handle_launch", "empty handler");
    if (t_visible != t_handlers.size()) fail(loc, "handle_launch", "a handler cannot be installed from inside another handler");
    t_handlers.push_back(std::move(h));
    t_visible = t_handlers.size();
}

HandlerScope::~HandlerScope() {
    t_handlers.resize(depth_);
    t_visible = depth_;
}

void dispatch(LaunchRequest& req) { dispatch_at(req, t_visible); }

void run_grid(std::int64_t n, const std::function<void(std::int64_t)>& f) {
    for (std::int64_t pid = 0; pid < n; ++pid) f(pid);
}

void run_default(LaunchRequest& req) {
    if (!req.is_kernel()) {
        run_grid(req.instances, req.closure);
        return;
    }
    if (detail::runs_executable(req)) {
        detail::run_executable(*req.executable, req);
        return;
    }
    Target t = req.target ? *req.target : default_target();
    run_kernel(*req.kernel, t, req.args, req.options, req.loc);
}

void launch(std::int64_t n, Closure f, Loc loc) {
    if (n < 0) fail(loc, "launch", "negative instance count " + std::to_string(n));
    if (!f) fail(loc, "launch", "no kernel function");
    LaunchRequest req;
    req.instances = n;
    req.closure = std::move(f);
    req.loc = loc;
    dispatch(req);
}

}  // namespace kiln
