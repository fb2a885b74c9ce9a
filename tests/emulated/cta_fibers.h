// Runs the threads of one CTA of an emulated CUDA kernel as fibers on the calling
// thread, switching at CUDA's collective operations: CTA barriers, named barriers
// (bar.sync id, count), __syncwarp and warp shuffles. A collective completes when
// every participant has arrived; a round in which no thread can move is a deadlock
// and an error naming where each thread waits (a shuffle whose mask names a lane
// that never arrives, a barrier some threads skip). Test support: nothing here is
// part of kiln.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace kiln::emulated {

// The hooks the emulated kernel calls (tests/emulated/emulation_header.h declares the
// same layout on the kernel's side).
struct CollectiveApi {
    void (*barrier)(int id, int count);  // id 0 and count 0: every thread of the CTA
    void (*warp_sync)(unsigned mask);
    unsigned long long (*shuffle)(unsigned mask, unsigned long long value, int src_lane);
    void (*trap)(const char* what);
};

// The hooks above, bound to whichever CTA is running on this thread.
const CollectiveApi& collective_api();

struct CtaRun {
    int threads = 32;
    // Runs one thread of the CTA (it reads its own index from the kernel's globals,
    // which set_thread has set before every switch to it).
    std::function<void()> body;
    std::function<void(unsigned tid)> set_thread;
};

// Runs every thread of the CTA to completion; throws std::runtime_error on a
// deadlock, a trap or mismatched collectives.
void run_cta(const CtaRun& run);

}  // namespace kiln::emulated
