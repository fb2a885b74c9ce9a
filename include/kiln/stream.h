// CUDA streams. A cuda target bound to a stream enqueues launches and copies on
// it and returns without waiting: work on one stream runs in order, so each
// launch sees the buffers as the launches before it left them. A kernel that
// fails is reported at the next synchronisation (or the next launch on the
// stream, which the driver then refuses), naming the kernels launched since the
// last one and where they were launched.
//
//     Stream s = Stream::create();             // or Stream::wrap(torch.cuda.current_stream().cuda_stream)
//     auto xd = x.to(cuda(s));                 // a stream-ordered copy
//     k.launch(cuda(s), xd.view(), yd.view()); // enqueued
//     auto y = yd.to(host());                  // waits for the stream, then copies
#pragma once

#include <memory>

#include <kiln/error.h>

namespace kiln {

namespace detail {
struct StreamState;
}

class Stream {
public:
    // A new stream on a device, owned by kiln (destroyed with its last copy).
    // Non-blocking, as PyTorch's are: no implicit ordering with the legacy default stream.
    static Stream create(int device = 0, Loc loc = Loc::here());
    // A stream the caller owns and keeps alive: a CUstream or cudaStream_t, e.g.
    // torch.cuda.current_stream().cuda_stream; nullptr is the legacy default stream.
    static Stream wrap(void* handle, int device = 0);

    void* handle() const;
    int device() const;
    // Waits until the stream's work is done; a failed kernel is a kiln::Error
    // naming it and its launch site.
    void synchronize(Loc loc = Loc::here()) const;

    const std::shared_ptr<detail::StreamState>& state() const { return state_; }

private:
    explicit Stream(std::shared_ptr<detail::StreamState> s) : state_(std::move(s)) {}
    std::shared_ptr<detail::StreamState> state_;
};

}  // namespace kiln
