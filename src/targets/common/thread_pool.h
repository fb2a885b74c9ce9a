// The launcher threads of the targets that run generated code on the host (the
// cpu target, the metal target's shim): a process-wide pool whose workers have
// stacks large enough for a kernel's tiles (fixed-size local arrays).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace kiln::native {

// Threads a launch uses: $KILN_NUM_THREADS, else the hardware's concurrency.
int launch_threads();

// Calls task(t) for every t in [0, tasks), each exactly once, on up to `threads`
// threads whose stacks hold at least `stack_bytes`. The calling thread takes
// part when `caller_helps` (its own stack is large enough); returns when every
// task has finished. One job runs at a time; concurrent callers queue. `task`
// must not throw.
void run_tasks(std::int64_t tasks, int threads, std::size_t stack_bytes, bool caller_helps, const std::function<void(std::int64_t)>& task);

}  // namespace kiln::native
