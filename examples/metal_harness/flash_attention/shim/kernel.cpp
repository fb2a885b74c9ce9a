// kiln's Metal shim: host glue for kernel 'kiln_flash_attention'. It plays the part of a Metal command encoder:
// each thread of threadgroups [begin, end) calls the kernel (kernel.metal, compiled unchanged as C++ against
// kiln's metal_stdlib), as fibers when the kernel has barriers.
#include "kernel.metal"

namespace {
struct KilnShimCall {
    void* const* buffers;
    const long* launch;
    long groups;
};
void kiln_shim_body(void* context, long group, int lane) {
    const KilnShimCall* c = static_cast<const KilnShimCall*>(context);
    kiln_flash_attention(static_cast<const float*>(c->buffers[0]), static_cast<const float*>(c->buffers[1]), static_cast<const float*>(c->buffers[2]), static_cast<float*>(c->buffers[3]), c->launch, static_cast<uint>(group), static_cast<uint>(c->groups), static_cast<uint>(lane));
}
}  // namespace

extern "C" __attribute__((visibility("default"))) int kiln_metal_run(void* const* buffers, const long* launch, long begin, long end,
                                                                     long groups, long stack_bytes, char* error, int error_size) {
    KilnShimCall c{buffers, launch, groups};
    return kiln_shim::run_groups(begin, end, 64, false, stack_bytes, kiln_shim_body, &c, error, error_size);
}
