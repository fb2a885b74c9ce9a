// What kiln keeps per CUDA stream: the handle, and the launches enqueued since
// the stream was last synchronised, so that a kernel failing asynchronously is
// reported naming it and its launch site. Recording a launch allocates nothing.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include <kiln/error.h>

#include "targets/cuda/driver.h"

namespace kiln::detail {

struct StreamState {
    const cu::Device* device = nullptr;
    cu::CUstream handle = nullptr;  // nullptr: the legacy default stream
    bool owned = false;             // created by Stream::create: destroyed with the state

    StreamState() = default;
    StreamState(const StreamState&) = delete;
    StreamState& operator=(const StreamState&) = delete;
    ~StreamState();

    // Notes a launch enqueued on this stream (the kernel's name is copied, cut at
    // 47 characters).
    void record(std::string_view kernel, Loc loc);
    // Throws unless r is success; the message names the launches since the last
    // synchronisation: "app.cpp:12: cuda: <what>: <error>; kernels launched on this
    // stream since it was last synchronised: 'softmax' (app.cpp:12)". The location
    // is the launch's when there was one, else `loc`.
    void check(cu::CUresult r, std::string_view what, Loc loc);
    // Waits for the stream, reporting a failure as check() does; then forgets the launches.
    void synchronize(Loc loc);

private:
    struct Launch {
        char kernel[48] = {};
        Loc loc;
    };
    static constexpr std::size_t kKept = 16;
    std::mutex mutex_;
    std::array<Launch, kKept> launches_{};
    std::uint64_t count_ = 0;  // launches since the last synchronisation (the newest kKept are kept)
};

// The state of a stream the caller owns, shared by every Stream::wrap of it (so
// that launches through different handles are reported together).
std::shared_ptr<StreamState> borrowed_stream(void* handle, int device);

}  // namespace kiln::detail
