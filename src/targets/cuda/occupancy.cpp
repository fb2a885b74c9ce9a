#include "targets/cuda/occupancy.h"

#include <algorithm>

#include "support/environment.h"

namespace kiln::cu {

int resident_ctas(const CompiledKernel& k, const Device& d) {
    const int threads = std::max(1, k.kernel.threads);
    const int warps = (threads + 31) / 32;
    int fit = std::min(32, (d.cc_major >= 9 ? 2048 : 1536) / threads);
    if (k.resources.known && k.resources.registers > 0) {
        const int per_warp = (k.resources.registers * 32 + 255) / 256 * 256;
        fit = std::min(fit, 65536 / (per_warp * warps));
    }
    if (k.kernel.shared_bytes > 0 && d.max_shared_bytes > 0)
        fit = std::min<std::int64_t>(fit, (d.max_shared_bytes + 1024) / (k.kernel.shared_bytes + 1024));
    return std::max(1, fit);
}

std::int64_t max_ctas() {
    static const std::int64_t cap = support::env_integer("KILN_CUDA_MAX_CTAS", 1, 0x7fffffff).value_or(0);
    return cap;
}

unsigned grid_ctas(std::int64_t instances, const CompiledKernel& k, const Device& d) {
    const std::int64_t per_cta = std::max(1, k.kernel.instances_per_cta), cluster = std::max(1, k.kernel.cluster);
    std::int64_t ctas = (instances + per_cta - 1) / per_cta * cluster;  // a cluster of CTAs per instance
    // A persistent grid is the CTAs that fit at once: a CTA (or a cluster) left for a
    // second wave would run its whole share of the instances after the others finish.
    // Clusters: as many as the driver says fit (else as if every SM's CTAs made whole clusters).
    if (k.kernel.persistent) {
        const std::int64_t clusters = cluster > 1 && k.active_clusters > 0 ? k.active_clusters
                                                                           : std::int64_t{resident_ctas(k, d)} * std::max(1, d.multiprocessors) / cluster;
        ctas = std::min<std::int64_t>(ctas, std::max<std::int64_t>(1, clusters) * cluster);
    }
    if (const std::int64_t cap = max_ctas(); cap > 0) ctas = std::min(ctas, std::max<std::int64_t>(1, cap / cluster) * cluster);
    // A whole number of clusters (the kernel's grid-stride loop covers the rest).
    return static_cast<unsigned>(std::min<std::int64_t>(ctas, 0x7fffffff / cluster * cluster));
}

}  // namespace kiln::cu
