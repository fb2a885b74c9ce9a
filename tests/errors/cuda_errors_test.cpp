// Must-fail programs: what the cuda target cannot do. Device code cannot raise
// (bounds::check), a CTA has a limited shared memory, and the target reads device
// memory only. Found when the kernel is compiled for the device, which needs no
// GPU: kiln emits the CUDA source (and asks NVRTC, offline, where a case needs it).
#include "must_fail.h"
#include "targets/common/target_impl.h"
#include "targets/cuda/nvrtc.h"
#include "trace/kernel_trace.h"

using namespace kiln;

namespace {

// Compiles k for the cuda target for arguments of extents 4 x ... x 4 (as
// must_fail::trace launches them), as far as the CUDA source (the errors of
// capture and of the cuda emitter), or to PTX with NVRTC offline (`ptx`: the
// limits of the architecture, such as a CTA's shared memory).
void compile_for_cuda(const Kernel& k, bool ptx = false) {
    std::vector<std::vector<unsigned char>> storage;
    storage.reserve(k.params().size());
    std::vector<detail::Arg> args;
    for (const auto& p : k.params()) {
        detail::Arg a;
        a.is_view = p.is_view;
        a.kind = p.kind;
        a.device = Device::cuda;
        if (p.is_view) {
            a.read_only = !p.writable;
            a.extents.assign(static_cast<std::size_t>(p.rank), 4);
            a.strides = detail::row_major_strides(a.extents);
            storage.emplace_back(4096);
            a.data = storage.back().data();
        }
        args.push_back(a);
    }
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    (void)cuda().impl().source(*program, args, {}, /*assembly=*/ptx);
}

}  // namespace

TEST(CudaErrors, DeviceCodeCannotRaise) {
    auto m = axis("m", 4);
    must_fail::expect({
        {__LINE__, [&] { compile_for_cuda(kernel("k", [&](View<const f32, 1> x, View<f32, 1> y) { for (auto& g : parallel(shape(axis("g", 1)))) y(coord(g.index()), shape(m)).store(x[coord(0), shape(m), bounds::check]); })); },
         "load: device code cannot raise: bounds::check is not supported on cuda; use bounds::zero or bounds::assume"},
        {__LINE__, [&] { compile_for_cuda(kernel("k", [&](View<const f32, 1> x, View<f32, 1> y) { for (auto& g : parallel(shape(axis("g", 1)))) y(coord(g.index()), shape(m), bounds::check).store(x[coord(0), shape(m)]); })); },
         "store: device code cannot raise: bounds::check is not supported on cuda; use bounds::zero or bounds::assume"},
    });
}

TEST(CudaErrors, SharedMemory) {
    if (std::string why; kiln::cu::nvrtc_version(&why).empty()) GTEST_SKIP() << "no NVRTC: " << why;
    auto r = axis("r", 128), c = axis("c", 512);
    must_fail::expect({
        // A 128 x 512 f32 tile transposed is staged through shared memory (rows padded to an
        // odd pitch of 129 floats against bank conflicts): 258 KiB, more than a CTA has.
        {__LINE__, [&] { compile_for_cuda(kernel("k", [&](View<const f32, 2> x, View<f32, 2> y) { for (auto& g : parallel(shape(axis("g", 1)))) y(coord(g.index(), 0), shape(r, c)).store(transpose(transpose(x[coord(g.index(), 0), shape(r, c)]))); }), /*ptx=*/true); },
         "permute: stages 264192 bytes through shared memory on cuda, more than the 232448 a CTA can have; use smaller tiles"},
    });
}
