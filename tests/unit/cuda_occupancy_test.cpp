// The grid a launch uses (targets/cuda/occupancy.h): one CTA per instance (or per
// packed instances, a cluster per instance), and a persistent kernel's grid no larger
// than what runs at once: resident CTAs on every SM, or for instances spread over
// clusters the driver's count of clusters that fit. No device: kernels and devices
// described by hand, each figure computed here from the rules.
#include <gtest/gtest.h>

#include "targets/cuda/occupancy.h"

using namespace kiln;

namespace {

cu::Device hopper() {
    cu::Device d;
    d.cc_major = 9;
    d.multiprocessors = 132;
    d.max_shared_bytes = 227 * 1024;
    return d;
}

cu::CompiledKernel kernel(int threads, int registers, int cluster, bool persistent) {
    cu::CompiledKernel k;
    k.kernel.threads = threads;
    k.kernel.cluster = cluster;
    k.kernel.persistent = persistent;
    k.kernel.instances_per_cta = 1;
    k.resources.known = true;
    k.resources.registers = registers;
    return k;
}

}  // namespace

TEST(CudaOccupancy, ResidentCtasFollowRegistersAndThreads) {
    const cu::Device d = hopper();
    // 512 threads at 64 registers: 16 warps x 2048 registers = 32768 of 65536: 2 CTAs.
    EXPECT_EQ(cu::resident_ctas(kernel(512, 64, 1, false), d), 2);
    // 256 threads at 32 registers: the thread limit (2048) allows 8; registers allow 8.
    EXPECT_EQ(cu::resident_ctas(kernel(256, 32, 1, false), d), 8);
    // 1024 threads at 72 registers: one CTA's 73728 registers do not fit twice, nor once: at least 1.
    EXPECT_EQ(cu::resident_ctas(kernel(1024, 72, 1, false), d), 1);
}

TEST(CudaOccupancy, APersistentGridIsWhatFitsAtOnce) {
    const cu::Device d = hopper();
    // Not persistent: a CTA per instance.
    EXPECT_EQ(cu::grid_ctas(26000, kernel(512, 64, 1, false), d), 26000u);
    // Persistent: 2 resident CTAs x 132 SMs.
    EXPECT_EQ(cu::grid_ctas(26000, kernel(512, 64, 1, true), d), 264u);
    // Fewer instances than fit: one CTA each.
    EXPECT_EQ(cu::grid_ctas(100, kernel(512, 64, 1, true), d), 100u);
}

TEST(CudaOccupancy, APersistentGridOfClustersIsTheClustersTheDriverSaysFit) {
    const cu::Device d = hopper();
    // 2048 rows, each over a cluster of 8 CTAs of 512 threads.
    EXPECT_EQ(cu::grid_ctas(2048, kernel(512, 64, 8, false), d), 2048u * 8);
    cu::CompiledKernel k = kernel(512, 64, 8, true);
    k.active_clusters = 30;  // (a GPC holds whole clusters only: fewer than 264 / 8)
    EXPECT_EQ(cu::grid_ctas(2048, k, d), 30u * 8);
    // Unknown (an old driver): as if every SM's resident CTAs made whole clusters, 264 / 8.
    k.active_clusters = 0;
    EXPECT_EQ(cu::grid_ctas(2048, k, d), 33u * 8);
    // Fewer rows than clusters fit: a cluster each.
    k.active_clusters = 30;
    EXPECT_EQ(cu::grid_ctas(12, k, d), 12u * 8);
}
