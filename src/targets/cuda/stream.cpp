// CUDA streams (kiln/stream.h): kiln's own or borrowed, and the record of the
// launches enqueued on each since it was last synchronised.
#include <kiln/stream.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "targets/cuda/stream_state.h"

namespace kiln::detail {

StreamState::~StreamState() {
    // Errors are ignored: at process exit the driver may already be shut down.
    if (owned && handle) device->api.cuStreamDestroy(handle);
}

void StreamState::record(std::string_view kernel, Loc loc) {
    std::lock_guard<std::mutex> g(mutex_);
    Launch& l = launches_[count_ % kKept];
    std::size_t n = std::min(kernel.size(), sizeof l.kernel - 1);
    std::memcpy(l.kernel, kernel.data(), n);
    l.kernel[n] = '\0';
    l.loc = loc;
    ++count_;
}

void StreamState::check(cu::CUresult r, std::string_view what, Loc loc) {
    if (r == cu::CUDA_SUCCESS) return;
    std::string launched;
    Loc at = loc;
    {
        std::lock_guard<std::mutex> g(mutex_);
        std::uint64_t kept = std::min<std::uint64_t>(count_, kKept);
        for (std::uint64_t k = count_ - kept; k < count_; ++k) {
            const Launch& l = launches_[k % kKept];
            launched += (launched.empty() ? "" : ", ") + std::string("'") + l.kernel + "'" + (l.loc.known() ? " (" + l.loc.str() + ")" : "");
        }
        if (count_ > kept) launched = std::to_string(count_ - kept) + " earlier, then " + launched;
        if (count_ == 1 && launches_[0].loc.known()) at = launches_[0].loc;
        count_ = 0;  // reported once
    }
    std::string message = std::string(what) + ": " + cu::error_text(*device, r);
    if (!launched.empty()) message += "; kernels launched on this stream since it was last synchronised: " + launched;
    fail(at, "cuda", message);
}

void StreamState::synchronize(Loc loc) {
    cu::make_current(*device);
    check(device->api.cuStreamSynchronize(handle), "a kernel failed", loc);
    std::lock_guard<std::mutex> g(mutex_);
    count_ = 0;
}

std::shared_ptr<StreamState> borrowed_stream(void* handle, int ordinal) {
    const cu::Device& d = cu::require_device(ordinal, "stream");
    static std::mutex mutex;
    // Never shrinks: a process uses few streams (PyTorch keeps a pool per device).
    static auto* states = new std::unordered_map<void*, std::shared_ptr<StreamState>>[64];
    std::lock_guard<std::mutex> g(mutex);
    auto& slot = states[ordinal][handle];
    if (!slot) {
        slot = std::make_shared<StreamState>();
        slot->device = &d;
        slot->handle = static_cast<cu::CUstream>(handle);
    }
    return slot;
}

}  // namespace kiln::detail

namespace kiln {

Stream Stream::create(int device, Loc loc) {
    std::string why;
    const cu::Device* d = cu::device_at(device, &why);
    if (!d) fail(loc, "stream", "cannot create a CUDA stream: " + why);
    cu::make_current(*d);
    auto s = std::make_shared<detail::StreamState>();
    s->device = d;
    cu::CUresult r = d->api.cuStreamCreate(&s->handle, cu::CU_STREAM_NON_BLOCKING);
    if (r != cu::CUDA_SUCCESS) fail(loc, "stream", "cuStreamCreate: " + cu::error_text(*d, r));
    s->owned = true;
    return Stream(std::move(s));
}

Stream Stream::wrap(void* handle, int device) { return Stream(detail::borrowed_stream(handle, device)); }

void* Stream::handle() const { return state_->handle; }
int Stream::device() const { return state_->device->ordinal; }
void Stream::synchronize(Loc loc) const { state_->synchronize(loc); }

}  // namespace kiln
