// kiln's Hopper (sm_90a) GEMM main loop, pasted into generated CUDA sources by
// emit_gemm.cpp and included as is by the standalone harness bench/gemm_lab/.
// No standard headers: NVRTC compiles it. The host compiler sees nothing (the
// #if below): emit_gemm.cpp includes this file only so that the build records
// the dependency of the text it embeds.
//
// One CTA computes BM x BN output tiles (persistent: work units blockIdx.x,
// blockIdx.x + gridDim.x, ...; a unit is a tile, or with split-K one contiguous
// share of a tile's k range, see SplitK below). Warpgroup 0 is the producer: one thread issues
// TMA copies of the A tile [BM][BK] (K-major) and the B tile [BK][BN] (N-major)
// into a ring of STAGES shared-memory stages, each guarded by a "full" mbarrier
// (the copies' bytes arrived) and an "empty" mbarrier (every consumer warp is
// done reading it). Warpgroups 1..BM/64 are consumers: each owns 64 rows of the
// tile and accumulates them in registers with wgmma.mma_async m64nBNk16, keeping
// one group of wgmmas in flight while the next stage is waited for. The epilogue
// hands each accumulator element to the caller's functor, so the generated
// kernel applies the user's elementwise ops and its masked store.
//
// Shared-memory layouts (128-byte swizzle, the TMA and wgmma agree on it): the A
// stage is BK/64 boxes of [BM rows][64 k] (128 bytes a row) or, when A is stored
// [K, M] (A_MMAJOR), BM/64 boxes of [BK rows][64 m] like an N-major B's; the B stage is
// BN/64 boxes of [BK rows][64 n] or, when B is stored [N, K] (B_KMAJOR: a linear
// layer's weight), BK/64 boxes of [BN rows][64 k] like A's. Every box starts
// 1024-byte aligned, the period of the swizzle pattern, so descriptors need no
// base offset.
#pragma once
#if defined(__CUDACC__)

namespace kg {

struct __align__(64) TensorMap {
    unsigned long long opaque[16];  // CUtensorMap, built on the host by cuTensorMapEncodeTiled
};

__device__ __forceinline__ unsigned smem_u32(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// ---- mbarriers (PTX ISA 9.7.13.15)
__device__ __forceinline__ void mbar_init(unsigned long long* bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(unsigned long long* bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned long long* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}
// Returns once the phase of parity `parity` has completed. A fresh barrier is in
// phase 0, so waiting for parity 1 returns at once: the producer's first pass
// over the ring finds every stage empty.
__device__ __forceinline__ void mbar_wait(unsigned long long* bar, unsigned parity) {
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT;\n"
        "}\n" ::"r"(smem_u32(bar)),
        "r"(parity)
        : "memory");
}

// ---- TMA: a 2-D box at coordinates (c0 innermost, c1) into shared memory; the
// bytes complete a transaction on `bar`. Out-of-bounds elements are zero-filled.
__device__ __forceinline__ void tma_load_2d(void* dst, const TensorMap* map, unsigned long long* bar, int c0, int c1) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
                     smem_u32(dst)),
                 "l"(reinterpret_cast<unsigned long long>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1)
                 : "memory");
}

// A box of a tensor map of rank 2 + LEAD (a batched view: LEAD leading dims, their
// coordinates c[0] innermost first, each box one deep along them).
template <int LEAD> __device__ __forceinline__ void tma_load_lead(void* dst, const TensorMap* map, unsigned long long* bar, int c0, int c1, const int* c) {
    static_assert(LEAD >= 1 && LEAD <= 3, "tensor maps of rank 3 to 5");
    const unsigned d = smem_u32(dst), b = smem_u32(bar);
    const unsigned long long m = reinterpret_cast<unsigned long long>(map);
    if constexpr (LEAD == 1)
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(d), "l"(m), "r"(b),
                     "r"(c0), "r"(c1), "r"(c[0])
                     : "memory");
    else if constexpr (LEAD == 2)
        asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];" ::"r"(d), "l"(m),
                     "r"(b), "r"(c0), "r"(c1), "r"(c[0]), "r"(c[1])
                     : "memory");
    else
        asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2];" ::"r"(d),
                     "l"(m), "r"(b), "r"(c0), "r"(c1), "r"(c[0]), "r"(c[1]), "r"(c[2])
                     : "memory");
}
// A box of operand map `map` whose view has LEAD leading dims (none: a 2-D map).
template <int LEAD> __device__ __forceinline__ void tma_load_operand(void* dst, const TensorMap* map, unsigned long long* bar, int c0, int c1, const int* c) {
    if constexpr (LEAD == 0) tma_load_2d(dst, map, bar, c0, c1);
    else tma_load_lead<LEAD>(dst, map, bar, c0, c1, c);
}

// The same box multicast: written at `dst`'s offset into the shared memory of
// every CTA of the cluster in `mask`, completing its bytes on the mbarrier at
// `bar`'s offset in each of them.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const TensorMap* map, unsigned long long* bar, int c0, int c1,
                                                      unsigned short mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(
            smem_u32(dst)),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "h"(mask)
        : "memory");
}

// ---- cp.async (PTX ISA 9.7.9.25): an operand read by the producer warpgroup's
// threads instead of TMA. Rows that straddle 128-byte lines (a row stride of 16-byte
// multiples that is no multiple of 128 bytes: 7000 bf16 columns) cost TMA two line
// requests a box row; 16-byte copies cost a fifth more sectors at most. The host
// puts the operand's description in the slot of its tensor map (same 128 bytes).
struct GlobalRows {
    const unsigned short* base;  // 16-byte aligned, as are the rows
    long long stride;            // elements from a row to the next
    long long lead_stride[3];    // a batched view's leading strides (elements), innermost first
    int inner, outer;            // elements a row (the box's inner dim), rows (within TMA's 32-bit coordinates)
};
static_assert(sizeof(GlobalRows) <= sizeof(TensorMap), "a GlobalRows lives in a tensor map's slot");

// A box of `rows` rows of 64 elements at (c0 innermost, c1) of g (leading coordinates
// c[0..LEAD), innermost first) into shared memory at dst (1024-byte aligned) in the
// 128-byte swizzle TMA writes: the 16-byte chunk j of row r at chunk j ^ (r % 8) of its
// 128-byte row. Chunks past the row's or the rows' end are zero-filled (a source size
// under 16 bytes), as TMA fills out-of-bounds elements. Thread t of the producer's
// 128 copies chunks t, t + 128, ... (32-bit arithmetic but for the row's address: the
// producer runs on 40 registers.)
template <int LEAD>
__device__ __forceinline__ void cp_async_box(void* dst, const GlobalRows& g, int c0, int c1, const int* c, int rows, int t) {
    const unsigned short* base = g.base;
#pragma unroll
    for (int i = 0; i < LEAD; ++i) base += c[i] * g.lead_stride[i];
    const unsigned d = smem_u32(dst);
#pragma unroll 1
    for (int idx = t; idx < rows * 8; idx += 128) {
        const int row = idx >> 3, chunk = idx & 7, r = c1 + row, col = c0 + chunk * 8;
        const int left = r < g.outer ? g.inner - col : 0;
        const unsigned bytes = left <= 0 ? 0u : left >= 8 ? 16u : static_cast<unsigned>(left) * 2u;
        const unsigned short* src = bytes ? base + r * g.stride + col : g.base;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d + row * 128 + ((chunk ^ (row & 7)) << 4)), "l"(src), "r"(bytes)
                     : "memory");
    }
}
// An arrival on `bar` once this thread's earlier cp.async copies have landed, counted
// in the barrier's expected arrivals (.noinc).
__device__ __forceinline__ void cp_async_arrive(unsigned long long* bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_u32(bar)) : "memory");
}
// Makes the generic proxy's writes this thread has seen (the cp.async copies, after
// their barrier's phase) visible to its async proxy, which wgmma reads through.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// ---- clusters (PTX ISA 9.7.12.3, 9.7.9.22): this CTA's rank in its cluster, an
// arrival on the mbarrier at `bar`'s offset in CTA `rank`'s shared memory, and
// the cluster-wide barrier where a warp's threads may arrive apart (the
// producer's lone issuing thread; kc::cluster_sync, the prelude's, is the aligned
// one, for whole warps). The arrival is
// relaxed: it says that this warp's wgmma reads of a stage are complete (the
// wgmma wait before it returned), and the peer's producer only then issues the
// TMA writes that reuse the stage, so there is nothing for a release to order.
// A release (at CTA or cluster scope) made ptxas put MEMBAR.ALL.GPU before every
// arrival, once per k step per warp, and the cluster kernel ran at 0.70 of the
// single-CTA one (H200, 4096^3); relaxed, about as fast as lone CTAs.
__device__ __forceinline__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ void mbar_arrive_cluster(unsigned long long* bar, unsigned rank) {
    asm volatile(
        "{\n"
        ".reg .b32 remote;\n"
        "mapa.shared::cluster.u32 remote, %0, %1;\n"
        "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [remote];\n"
        "}\n" ::"r"(smem_u32(bar)),
        "r"(rank)
        : "memory");
}
__device__ __forceinline__ void cluster_barrier_any() {
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

// ---- wgmma (PTX ISA 9.7.15)
// A shared-memory matrix descriptor with 128-byte swizzle: start address, leading
// and stride byte offsets (all in 16-byte units).
__device__ __forceinline__ unsigned long long smem_desc(const void* p, unsigned lead_bytes, unsigned stride_bytes) {
    return static_cast<unsigned long long>((smem_u32(p) & 0x3FFFF) >> 4) | static_cast<unsigned long long>(lead_bytes >> 4) << 16 |
           static_cast<unsigned long long>(stride_bytes >> 4) << 32 | 1ull << 62;
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory"); }
// Keeps the compiler from moving accesses of an accumulator across a wait.
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }
__device__ __forceinline__ void fence_operand(int& r) { asm volatile("" : "+r"(r)::"memory"); }

template <int N> __device__ __forceinline__ void setmaxnreg_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N)); }
template <int N> __device__ __forceinline__ void setmaxnreg_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N)); }

// The thread's warpgroup. With KILN_UNIFORM_WARPGROUP defined (EmitOptions::
// uniform_warpgroup), read through a shuffle from lane 0, as CUTLASS's
// canonical_warp_group_idx does: ptxas then knows it is the same across the warp and
// keeps the wgmma descriptors derived from it on the uniform datapath (in the
// attention kernel's main loop no R2UR before each wgmma instead of two; 29 -> 6 in
// the GEMM kernel's: bench/results/gpu-20261203-s15, offline, not yet measured).
__device__ __forceinline__ int warpgroup_index() {
#if defined(KILN_UNIFORM_WARPGROUP)
    return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
#else
    return static_cast<int>(threadIdx.x / 128);
#endif
}

// Shared memory the main loop needs (the caller adds nothing: its dynamic
// allocation is exactly this).
// EB: the operands' element bytes (2: f16/bf16; 1: i8, whose BK is twice as many
// elements in the same 128-byte box rows; 4: f32 read as tf32, half as many).
template <int BM, int BN, int BK, int STAGES, int EB = 2> struct GemmShape {
    static constexpr int consumers = BM / 64;  // consumer warpgroups
    static constexpr int threads = 128 * (consumers + 1);
    static constexpr int a_bytes = BM * BK * EB, b_bytes = BK * BN * EB;
    static constexpr int stage_bytes = a_bytes + b_bytes;
    // 1024 bytes of slack to align the ring to the swizzle period, then the ring,
    // then 2 * STAGES mbarriers, then split-K's flag (16 bytes).
    static constexpr int shared_bytes = 1024 + STAGES * stage_bytes + 16 * STAGES + 16;
};

// The main loop. Mma::run(d, a_desc, b_desc) issues one wgmma m64nBNk16 with
// A K-major and B N-major (for the B descriptor the leading byte offset is the
// distance between 64-column boxes, the stride byte offset that between groups
// of 8 k rows: checked on an H200, the swapped reading gives wrong sums), or B
// K-major (B_KMAJOR: described like A, 8 n rows of 128 bytes per 1024). A M-major
// (A_MMAJOR) is described as an N-major B: each consumer warpgroup's 64 rows are one
// box of [BK rows][64 m], and the wgmma reads it transposed (imm-trans-a = 1).
// epi(in, row, col, cols, v0, v1) receives every accumulator element of each tile
// once, in pairs at (row, col) and (row, col + 1), absolute coordinates, col even,
// with cols = epi.columns(in, col), the epilogue's values that vary only with the
// column, and in = Flag<true> where the tile needs no bounds checks.
// Tile `tile` of the persistent loop as (m-tile, n-tile): tiles go down groups of
// GROUP m-tiles column by column, so the tiles in flight at once share their rows
// of A and columns of B and find them in L2 (row by row, a wide B would stream
// from memory once per row of tiles).
template <int GROUP> __device__ __forceinline__ void tile_coords(long long tile, long long tiles_n, long long tiles, long long& tm, long long& tn) {
    const long long tiles_m = tiles / tiles_n, per_group = GROUP * tiles_n;
    const long long first = tile / per_group * GROUP, rest = tile % per_group;
    const long long size = tiles_m - first < GROUP ? tiles_m - first : GROUP;
    tm = first + rest % size;
    tn = rest / size;
}

// A compile-time flag the epilogue's functors take: Flag<true> where every
// element of the tile lies inside every bound the epilogue checks (the output's
// rows and columns, each load's and each store's extents, pair-aligned outputs),
// so its loads and stores are emitted without their checks. A tile at the edge
// of a ragged problem gets Flag<false> and the checks.
template <bool B> struct Flag {
    static constexpr bool value = B;
};

// Whole 16-byte stores for the tiles inside the bounds, where every output has
// 2-byte elements: pack(r, c, cols, x0, x1, u) computes the epilogue of the pair
// at (r, c), (r, c + 1) and sets u[o] to output o's two elements, converted and
// packed as the pair store would write them; store16(o, r, c, v) writes output
// o's eight elements at (r, c .. c + 7); ok says whether every output takes such
// stores (unit inner stride, rows and base 16-byte aligned: uniform over the
// launch). A quad of lanes holds eight adjacent columns of a row in the wgmma
// layout, two each: a transpose inside the quad gives each lane eight, so a
// warp writes whole 32-byte sectors (64 bytes a row) with a quarter of the store
// instructions. Pair stores wrote half of every sector they touched, and on a
// 4096^3 GEMM the epilogue kept the tensor cores idle for about a tenth of the
// time (ncu on an H200, 2026-12-03: 50% excess sectors).
template <int OUTS, class Pack, class Store16> struct QuadStores {
    static constexpr int outs = OUTS;
    Pack pack;
    Store16 store16;
    bool ok;
};
struct NoQuadStores {
    static constexpr int outs = 0;
    bool ok = false;
};
template <int OUTS, class Pack, class Store16> __device__ __forceinline__ QuadStores<OUTS, Pack, Store16> make_quad_stores(Pack p, Store16 s, bool ok) {
    return {p, s, ok};
}

// An epilogue from five functors: for tiles inside the bounds (Flag<true>) and
// for the rest, columns(c) (what varies only with the column) and body(r, c,
// cols, x0, x1); and inside(r_end, c_end): whether rows below r_end and columns
// below c_end need no check; optionally QuadStores for the tiles inside. (Two
// lambdas each, not one generic lambda: NVRTC compiles generic lambdas as host code.)
template <class ColumnsIn, class BodyIn, class ColumnsOut, class BodyOut, class Inside, class Quads = NoQuadStores> struct Epilogue {
    ColumnsIn columns_in;
    BodyIn body_in;
    ColumnsOut columns_out;
    BodyOut body_out;
    Inside inside;
    Quads quads;
    using QuadsType = Quads;
    using Cols = decltype(columns_out(0ll));
    __device__ __forceinline__ Cols columns(Flag<true>, long long c) { return columns_in(c); }
    __device__ __forceinline__ Cols columns(Flag<false>, long long c) { return columns_out(c); }
    // X: the accumulator's element (float; int for an 8-bit integer GEMM).
    template <class X> __device__ __forceinline__ void operator()(Flag<true>, long long r, long long c, const Cols& cols, X x0, X x1) {
        body_in(r, c, cols, x0, x1);
    }
    template <class X> __device__ __forceinline__ void operator()(Flag<false>, long long r, long long c, const Cols& cols, X x0, X x1) {
        body_out(r, c, cols, x0, x1);
    }
};
template <class CI, class BI, class CO, class BO, class Inside>
__device__ __forceinline__ Epilogue<CI, BI, CO, BO, Inside> make_epilogue(CI ci, BI bi, CO co, BO bo, Inside i) {
    return {ci, bi, co, bo, i, NoQuadStores{}};
}
template <class CI, class BI, class CO, class BO, class Inside, class Quads>
__device__ __forceinline__ Epilogue<CI, BI, CO, BO, Inside, Quads> make_epilogue(CI ci, BI bi, CO co, BO bo, Inside i, Quads q) {
    return {ci, bi, co, bo, i, q};
}

// Split-K (chosen on the host, gemm_schedule.h): when a problem has too few
// tiles to fill the machine (a decode GEMM of 16 rows has 16 tiles for 132
// multiprocessors), each tile's k range is cut into `splits` contiguous shares
// and every (tile, share) is a unit of the persistent loop. Each unit writes its
// partial sums to `partials` and counts itself in at the tile's counter; the unit
// that arrives last adds every share's partial sums in share order 0, 1, ...
// (its own read back from memory too, so the order, and the bits, do not depend
// on which share finished last), applies the epilogue, and sets the counter back
// to zero for the next launch. That sum is spread over all of the CTA's consumer
// threads, whatever rows they computed: a decode GEMM's 16 rows live in one warp,
// and one warp alone reading every share would wait out dozens of L2 round trips.
// With splits == 1 none of this runs.
struct SplitK {
    int splits;          // shares of each tile's k range (1: no split)
    float* partials;     // per unit: [BM / 16 pieces][BN / 8 chunks][32 lanes] float4s
    unsigned* counters;  // [tiles], zero at the launch and again at its end
    long long rows;      // rows of the output: 16-row pieces wholly below them are skipped
};

// The k tiles of share `split` of `splits`: [begin, end), balanced to within one.
__device__ __forceinline__ void split_range(int k_tiles, int split, int splits, int& begin, int& end) {
    begin = static_cast<int>(static_cast<long long>(k_tiles) * split / splits);
    end = static_cast<int>(static_cast<long long>(k_tiles) * (split + 1) / splits);
}

// The consumer warpgroups' own barrier (the producer has left): named barrier 1.
template <int THREADS> __device__ __forceinline__ void consumers_sync() { asm volatile("bar.sync 1, %0;" ::"n"(THREADS) : "memory"); }

// Publishes this thread's accumulator (its warp's 16-row piece, pieces below the
// output's rows skipped) and returns, on every consumer thread, whether this unit
// arrived last at its tile. `flag` is a shared-memory word for the answer.
template <int BM, int BN, int THREADS>
__device__ __forceinline__ bool split_k_publish(const float (&d)[BN / 2], const SplitK& sk, long long unit, long long tile, long long m0,
                                                int piece, int lane, unsigned* flag) {
    constexpr int chunks = BN / 8;
    if (m0 + piece * 16 < sk.rows) {
        float4* mine = reinterpret_cast<float4*>(sk.partials) + (unit * (BM / 16) + piece) * chunks * 32 + lane;
#pragma unroll
        for (int i = 0; i < chunks; ++i) __stcg(mine + i * 32, make_float4(d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]));
    }
    // Every thread's writes are visible device-wide before the unit counts in.
    __threadfence();
    consumers_sync<THREADS>();
    if (threadIdx.x == 128) {
        const bool last = atomicAdd(sk.counters + tile, 1u) == static_cast<unsigned>(sk.splits - 1);
        if (last) sk.counters[tile] = 0;  // every share has counted in
        *flag = last;
    }
    consumers_sync<THREADS>();
    // (The flag is written again only after the next unit's first barrier, which
    // every thread reaches after reading it here.)
    return *flag != 0;
}

// The last unit of a tile: the sum over shares of each float4 of partial sums,
// spread over the consumer threads (thread t of THREADS), then the epilogue at its
// coordinates: float4 (piece, chunk i, lane l) holds rows piece*16 + l/4 (+8),
// columns 8i + 2(l%4) (+1), the accumulator layout of wgmma m64nN (see below).
// The reads decide its speed: one CTA reads every share's partial sums of the
// tile, so each thread keeps G loads in flight, and the loads carry no branch
// (an item past the end re-reads the last one, and is not stored): a load behind
// a branch cannot be issued with the others, and one at a time made the sum cost
// more than the shares saved (H200).
template <int BM, int BN, int THREADS, class Epi>
__device__ __forceinline__ void split_k_finish(const SplitK& sk, long long tile, long long m0, long long n0, int t, Epi& epi) {
    constexpr int chunks = BN / 8, G = 8;
    __threadfence();
    const long long rows_left = sk.rows - m0;
    const int pieces = rows_left >= BM ? BM / 16 : static_cast<int>((rows_left + 15) / 16);
    const int items = pieces * chunks * 32;
    const long long per_unit = (BM / 16) * chunks * 32;
    const float4* base = reinterpret_cast<const float4*>(sk.partials) + tile * sk.splits * per_unit;
    for (int first = t; first < items; first += G * THREADS) {
        const float4* at[G];
#pragma unroll
        for (int g = 0; g < G; ++g) at[g] = base + min(first + g * THREADS, items - 1);
        float4 acc[G];
#pragma unroll
        for (int g = 0; g < G; ++g) acc[g] = __ldcg(at[g]);
#pragma unroll 2
        for (int s = 1; s < sk.splits; ++s) {
            float4 v[G];
#pragma unroll
            for (int g = 0; g < G; ++g) v[g] = __ldcg(at[g] + s * per_unit);
#pragma unroll
            for (int g = 0; g < G; ++g) acc[g].x += v[g].x, acc[g].y += v[g].y, acc[g].z += v[g].z, acc[g].w += v[g].w;
        }
#pragma unroll
        for (int g = 0; g < G; ++g) {
            const int item = first + g * THREADS;
            if (item >= items) break;
            const int lane = item % 32, i = item / 32 % chunks, piece = item / (32 * chunks);
            const long long r = m0 + piece * 16 + lane / 4, c = n0 + 8 * i + 2 * (lane % 4);
            const auto cols = epi.columns(Flag<false>{}, c);
            epi(Flag<false>{}, r, c, cols, acc[g].x, acc[g].y);
            epi(Flag<false>{}, r + 8, c, cols, acc[g].z, acc[g].w);
        }
    }
}

// A consumer thread's share of a finished tile through the epilogue.
// Accumulator layout of wgmma m64nN (f32): register 4j + h*2 + q holds row
// r0 + 8h, column c0 + 8j + q (r0 = 16*warp + lane/4, c0 = 2*(lane%4) within the
// warpgroup's 64 rows). The epilogue computes what depends only on the column (a
// bias, a per-column scale) once for the two rows of a thread's column pair, in
// chunks of 8 column pairs whose column values are all computed before any of
// their stores: a column value may be a load (a bias), and the compiler cannot
// move a load above a store to a pointer that might alias it, so one pair at a
// time would wait out a load's latency per pair. (The program reads its epilogue
// operands before it stores the tile, so reading them first is its order.)
template <int BN, class Epi, bool IN, class Acc>
__device__ __forceinline__ void store_tile(Epi& epi, const Acc (&d)[BN / 2], long long r0, long long c0, Flag<IN> in) {
    constexpr int kChunk = BN / 8 < 8 ? BN / 8 : 8;
#pragma unroll
    for (int j0 = 0; j0 < BN / 8; j0 += kChunk) {
        typename Epi::Cols cols[kChunk];
#pragma unroll
        for (int j = 0; j < kChunk; ++j) cols[j] = epi.columns(in, c0 + 8 * (j0 + j));
#pragma unroll
        for (int j = 0; j < kChunk; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) epi(in, r0 + 8 * h, c0 + 8 * (j0 + j), cols[j], d[4 * (j0 + j) + 2 * h], d[4 * (j0 + j) + 2 * h + 1]);
    }
}

// store_tile for tiles that cross a bound (or whose output rows TMA-free 16-byte
// stores cannot take): the same epilogue, its bounds checked, in a loop that is
// not unrolled, over a copy of the accumulators in local memory (the copy keeps
// `d` itself in registers: an array indexed by a loop variable lives in memory).
// Unrolled, this second copy of the epilogue was half of a fused epilogue's
// code: 32 instances of its loads, checks and stores for a 64 x 128 tile.
// Rolled, the catalog's modules compile in less than half the time:
// gemm_epilogue 1.99 -> 0.86 s, gemm_bf16 1.10 -> 0.72 s (`kiln source ENTRY
// --target cuda --ptx`, an empty cache, NVRTC to a cubin on a 2-core host).
// The tiles it serves (edge tiles; every tile where output rows are not 16-byte
// aligned) pay a copy of the accumulators through local memory (the plan's
// "stack": 4 BN/2 bytes) and no overlap of one column pair's loads with the
// next one's, small beside a tile's main loop.
template <int BN, class Epi, class Acc>
__device__ __forceinline__ void store_tile_checked(Epi& epi, const Acc (&d)[BN / 2], long long r0, long long c0) {
    Acc v[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) v[i] = d[i];
#pragma unroll 1
    for (int j = 0; j < BN / 8; ++j) {
        const long long c = c0 + 8 * j;
        const auto cols = epi.columns(Flag<false>{}, c);
        epi(Flag<false>{}, r0, c, cols, v[4 * j], v[4 * j + 1]);
        epi(Flag<false>{}, r0 + 8, c, cols, v[4 * j + 2], v[4 * j + 3]);
    }
}

// The quad's 4 x 4 transpose: lane q of a quad holds w[j], its word of chunk j;
// after it, w[p] is lane p's word of chunk q. Two butterfly steps (lanes q ^ 2,
// then q ^ 1), each sending half of the words: 4 shuffles for 16 words.
__device__ __forceinline__ void quad_transpose(unsigned (&w)[4]) {
    const int q = threadIdx.x % 4;
    const bool hi = q & 2, lo = q & 1;
    // (Selects, never an index that depends on the lane: that would put the words
    // in local memory.)
    unsigned b[2][2];  // b[i][x]: chunk i + 2 hi, from the quad's lane with bit 1 x and bit 0 lo
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const unsigned own = hi ? w[i + 2] : w[i];
        const unsigned got = __shfl_xor_sync(0xffffffffu, hi ? w[i] : w[i + 2], 2);
        b[i][0] = hi ? got : own;
        b[i][1] = hi ? own : got;
    }
#pragma unroll
    for (int x = 0; x < 2; ++x) {
        const unsigned own = lo ? b[1][x] : b[0][x];
        const unsigned got = __shfl_xor_sync(0xffffffffu, lo ? b[0][x] : b[1][x], 1);
        w[2 * x] = lo ? got : own;
        w[2 * x + 1] = lo ? own : got;
    }
}

// store_tile for a tile inside the bounds through QuadStores (see there).
template <int BN, class Epi, class Acc>
__device__ __forceinline__ void store_tile_quads(Epi& epi, const Acc (&d)[BN / 2], long long r0, long long c0) {
    constexpr int kChunk = 8, O = Epi::QuadsType::outs;
    static_assert(BN % 64 == 0, "whole groups of 8 chunks");
    const int q = threadIdx.x % 4;
    const long long quad_c = c0 - 2 * q;  // the quad's first column
#pragma unroll
    for (int j0 = 0; j0 < BN / 8; j0 += kChunk) {
        typename Epi::Cols cols[kChunk];
#pragma unroll
        for (int j = 0; j < kChunk; ++j) cols[j] = epi.columns(Flag<true>{}, c0 + 8 * (j0 + j));
        unsigned u[2][kChunk][O];
#pragma unroll
        for (int j = 0; j < kChunk; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) epi.quads.pack(r0 + 8 * h, c0 + 8 * (j0 + j), cols[j], d[4 * (j0 + j) + 2 * h], d[4 * (j0 + j) + 2 * h + 1], u[h][j]);
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int g = 0; g < kChunk; g += 4)
#pragma unroll
                for (int o = 0; o < O; ++o) {
                    unsigned w[4] = {u[h][g][o], u[h][g + 1][o], u[h][g + 2][o], u[h][g + 3][o]};
                    quad_transpose(w);
                    epi.quads.store16(o, r0 + 8 * h, quad_c + 8 * (j0 + g + q), make_uint4(w[0], w[1], w[2], w[3]));
                }
    }
}

// Batches (a batched GEMM, passes/gemm_match.h): the persistent loop's work units
// run over `count` batches of `tiles` tiles each; set(b) readies the epilogue for a
// tile of batch b (its outputs' offsets), coords(b, ca, cb) gives A's and B's
// leading coordinates (A_LEAD and B_LEAD of them, their maps' innermost first).
// NoBatch: one batch of 2-D views. (Two lambdas, not a generic one: NVRTC.)
struct NoBatch {
    static constexpr bool batched = false;
    static constexpr int a_lead = 0, b_lead = 0;
    long long count = 1;
    __device__ __forceinline__ void set(long long) const {}
    __device__ __forceinline__ void coords(long long, int*, int*) const {}
};
template <int A_LEAD, int B_LEAD, class Set, class Coords> struct Batch {
    static constexpr bool batched = true;
    static constexpr int a_lead = A_LEAD, b_lead = B_LEAD;
    long long count;
    Set set_batch;
    Coords batch_coords;
    __device__ __forceinline__ void set(long long b) { set_batch(b); }
    __device__ __forceinline__ void coords(long long b, int* ca, int* cb) { batch_coords(b, ca, cb); }
};
template <int A_LEAD, int B_LEAD, class Set, class Coords>
__device__ __forceinline__ Batch<A_LEAD, B_LEAD, Set, Coords> make_batch(long long count, Set s, Coords c) {
    return {count, s, c};
}

// SPLIT_K false: the kernel has no split-K code (a third less to compile: the
// launch takes this variant when its schedule does not split) and runs every tile
// whole whatever sk says.
//
// CLUSTER 2: the kernel is declared __cluster_dims__(2, 1, 1), and the two CTAs of
// a cluster take the two m-tiles of a pair with the same columns, so they need the
// same B tile: each loads its own A and half the rows of every B box, multicast
// into the shared memory of both, and B crosses from L2 once per pair (a
// 128x256x64 step reads 32 KB a CTA instead of 48). A stage is refilled only once
// the consumers of both CTAs have read it: every consumer warp arrives at the
// stage's "empty" barrier in both CTAs, and each producer waits at its own. The
// persistent loop's units are then the pairs; the second tile of a pair past the
// last m-tile (an odd count) is read as zeros by TMA and not stored. Neither CTA
// leaves while the other may still signal its barriers (a cluster barrier at the
// end). Split-K does not combine with it (the host never asks for both).
template <int BM, int BN, int BK, int STAGES, bool A_MMAJOR, bool B_KMAJOR, bool SPLIT_K, int CLUSTER, int CP_ASYNC, class Mma, class Epi, class Bat>
__device__ __forceinline__ void gemm_sm90(const TensorMap* ta, const TensorMap* tb, long long tiles_n, long long tiles, int k_tiles,
                                          const SplitK& sk, unsigned char* smem_raw, Epi& epi, Bat batch) {
    const int splits = SPLIT_K ? sk.splits : 1;
    constexpr int kGroup = 8;
    static_assert(CLUSTER == 1 || (CLUSTER == 2 && !SPLIT_K && kGroup % CLUSTER == 0), "clusters of 2, without split-K");
    // CP_ASYNC: bit 0, A read by cp.async (ta holds a GlobalRows); bit 1, B. Then every
    // producer thread copies and arrives at the stage's "full" barrier (128 arrivals
    // beside the TMA issuer's), and the consumers fence the async proxy after the wait.
    static_assert(CP_ASYNC >= 0 && CP_ASYNC <= 3 && (CP_ASYNC == 0 || CLUSTER == 1), "cp.async operands on lone CTAs");
    constexpr bool kCpA = CP_ASYNC & 1, kCpB = CP_ASYNC & 2;
    static_assert(!Bat::batched || (CLUSTER == 1 && !SPLIT_K), "batches on lone CTAs, without split-K");
    constexpr bool kBatched = Bat::batched;
    // The accumulator's element and the operands' size (Mma: the wgmma wrapper). 8-bit
    // (i8 -> i32) and tf32 operands are read K-major only (wgmma transposes 16-bit
    // operands alone), by TMA, with no split-K, cluster or cp.async; their box rows
    // hold kBox = 128 or 32 elements of k, a wgmma step 32 or 8.
    using Acc = typename Mma::Acc;
    constexpr int kEB = Mma::elem_bytes, kBox = 128 / kEB;
    static_assert(kEB == 2 || ((kEB == 1 || kEB == 4) && !A_MMAJOR && B_KMAJOR && !SPLIT_K && CLUSTER == 1 && CP_ASYNC == 0),
                  "8-bit and tf32 operands: K-major, on lone CTAs, without split-K or cp.async");
    using S = GemmShape<BM, BN, BK, STAGES, kEB>;
    static_assert(BM % 64 == 0 && BM <= 256 && BN % 64 == 0 && BN <= 256 && BK * kEB % 128 == 0 && BK * kEB <= 512, "unsupported tile");
    unsigned char* ring = smem_raw + ((1024 - (smem_u32(smem_raw) & 1023)) & 1023);
    auto* full = reinterpret_cast<unsigned long long*>(ring + STAGES * S::stage_bytes);
    unsigned long long* empty = full + STAGES;
    [[maybe_unused]] unsigned* flag = reinterpret_cast<unsigned*>(empty + STAGES);  // split-K's answer (split_k_publish)
    const int wg = warpgroup_index();
    // Units of the persistent loop: tiles, (tile, share) pairs with split-K, where
    // adjacent units share a tile so that a tile's shares run at the same time and
    // its last one waits little for the others' pieces; with clusters, pairs of
    // tiles 2u and 2u + 1, a cluster's CTAs walking the same units. (Tiles go down
    // groups of kGroup m-tiles, an even number, and the host counts m-tiles up to
    // a whole number of clusters: so a pair is two adjacent m-tiles of one column.)
    const long long units = tiles * batch.count * splits / CLUSTER;
    const long long first_unit = blockIdx.x / CLUSTER, unit_step = gridDim.x / CLUSTER;
    // The output tile of `unit` for this CTA, and its batch (tiles: per batch).
    auto tile_of = [&](long long unit, long long& bat, long long& tm, long long& tn) {
        long long g = CLUSTER > 1 ? unit * CLUSTER + cluster_rank() : unit / splits;
        bat = 0;
        if constexpr (kBatched) {
            bat = g / tiles;
            g -= bat * tiles;
        }
        tile_coords<kGroup>(g, tiles_n, tiles, tm, tn);
    };
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], CP_ASYNC ? 1 + 128 : 1);  // the TMA issuer's arrival (and the copying threads')
            mbar_init(&empty[s], 4 * S::consumers * CLUSTER);  // one arrival per consumer warp of the cluster
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    // With clusters, no CTA multicasts into a peer or arrives at its barriers before they exist.
    if (CLUSTER > 1) kc::cluster_sync();
    else __syncthreads();

    if (wg == 0) {
        // Producer: the register budget moves to the consumers.
        setmaxnreg_dec<40>();
        // Thread 0 issues the TMA copies; with cp.async operands every thread copies too.
        const int t = threadIdx.x;
        if (t == 0 || CP_ASYNC) {
            int s = 0;
            unsigned phase = 0;
            for (long long unit = first_unit; unit < units; unit += unit_step) {
                long long bat, tm, tn;
                tile_of(unit, bat, tm, tn);
                const int m0 = static_cast<int>(tm) * BM, n0 = static_cast<int>(tn) * BN;
                int ca[3] = {0, 0, 0}, cb[3] = {0, 0, 0};  // A's and B's leading coordinates (batched views)
                if constexpr (kBatched) batch.coords(bat, ca, cb);
                int k_begin, k_end;
                split_range(k_tiles, static_cast<int>(unit % splits), splits, k_begin, k_end);
                for (int kt = k_begin; kt < k_end; ++kt) {
                    mbar_wait(&empty[s], phase ^ 1);
                    unsigned char* a = ring + s * S::stage_bytes;
                    unsigned char* b = a + S::a_bytes;
                    if constexpr (CP_ASYNC != 0) {
                        // The operands TMA reads, by thread 0 (none: an arrival of 0 bytes).
                        if (t == 0) mbar_expect_tx(&full[s], (kCpA ? 0 : S::a_bytes) + (kCpB ? 0 : S::b_bytes));
                        const GlobalRows& ga = *reinterpret_cast<const GlobalRows*>(ta);
                        const GlobalRows& gb = *reinterpret_cast<const GlobalRows*>(tb);
                        if constexpr (kCpA) {
                            if constexpr (A_MMAJOR) {
                                for (int x = 0; x < BM / 64; ++x) cp_async_box<Bat::a_lead>(a + x * BK * 128, ga, m0 + x * 64, kt * BK, ca, BK, t);
                            } else {
                                for (int x = 0; x < BK / 64; ++x) cp_async_box<Bat::a_lead>(a + x * BM * 128, ga, kt * BK + x * 64, m0, ca, BM, t);
                            }
                        } else if (t == 0) {
                            if constexpr (A_MMAJOR) {
                                for (int x = 0; x < BM / 64; ++x) tma_load_operand<Bat::a_lead>(a + x * BK * 128, ta, &full[s], m0 + x * 64, kt * BK, ca);
                            } else {
                                for (int x = 0; x < BK / kBox; ++x) tma_load_operand<Bat::a_lead>(a + x * BM * 128, ta, &full[s], kt * BK + x * kBox, m0, ca);
                            }
                        }
                        if constexpr (kCpB) {
                            if constexpr (B_KMAJOR) {
                                for (int x = 0; x < BK / 64; ++x) cp_async_box<Bat::b_lead>(b + x * BN * 128, gb, kt * BK + x * 64, n0, cb, BN, t);
                            } else {
                                for (int x = 0; x < BN / 64; ++x) cp_async_box<Bat::b_lead>(b + x * BK * 128, gb, n0 + x * 64, kt * BK, cb, BK, t);
                            }
                        } else if (t == 0) {
                            if constexpr (B_KMAJOR) {
                                for (int x = 0; x < BK / kBox; ++x) tma_load_operand<Bat::b_lead>(b + x * BN * 128, tb, &full[s], kt * BK + x * kBox, n0, cb);
                            } else {
                                for (int x = 0; x < BN / 64; ++x) tma_load_operand<Bat::b_lead>(b + x * BK * 128, tb, &full[s], n0 + x * 64, kt * BK, cb);
                            }
                        }
                        cp_async_arrive(&full[s]);
                        if (++s == STAGES) s = 0, phase ^= 1;
                        continue;
                    }
                    // Both halves of B count here: this CTA's own and its peer's multicast.
                    mbar_expect_tx(&full[s], S::stage_bytes);
                    if constexpr (A_MMAJOR) {
#pragma unroll
                        for (int x = 0; x < BM / 64; ++x) tma_load_operand<Bat::a_lead>(a + x * BK * 128, ta, &full[s], m0 + x * 64, kt * BK, ca);
                    } else {
#pragma unroll
                        for (int x = 0; x < BK / kBox; ++x) tma_load_operand<Bat::a_lead>(a + x * BM * 128, ta, &full[s], kt * BK + x * kBox, m0, ca);
                    }
                    if constexpr (CLUSTER > 1) {
                        const unsigned rank = cluster_rank();
                        // Half of each box's rows (the host's B box is that half): at a
                        // multiple of 1024 bytes, so the swizzle is the whole box's.
                        constexpr unsigned short kAll = (1u << CLUSTER) - 1;
                        if constexpr (B_KMAJOR) {
                            constexpr int kRows = BN / CLUSTER;
#pragma unroll
                            for (int x = 0; x < BK / 64; ++x)
                                tma_load_2d_multicast(b + x * BN * 128 + rank * kRows * 128, tb, &full[s], kt * BK + x * 64, n0 + static_cast<int>(rank) * kRows,
                                                      kAll);
                        } else {
                            constexpr int kRows = BK / CLUSTER;
#pragma unroll
                            for (int x = 0; x < BN / 64; ++x)
                                tma_load_2d_multicast(b + x * BK * 128 + rank * kRows * 128, tb, &full[s], n0 + x * 64, kt * BK + static_cast<int>(rank) * kRows,
                                                      kAll);
                        }
                    } else if constexpr (B_KMAJOR) {
#pragma unroll
                        for (int x = 0; x < BK / kBox; ++x) tma_load_operand<Bat::b_lead>(b + x * BN * 128, tb, &full[s], kt * BK + x * kBox, n0, cb);
                    } else {
#pragma unroll
                        for (int x = 0; x < BN / 64; ++x) tma_load_operand<Bat::b_lead>(b + x * BK * 128, tb, &full[s], n0 + x * 64, kt * BK, cb);
                    }
                    if (++s == STAGES) s = 0, phase ^= 1;
                }
            }
        }
        // No thread leaves with its copies in flight.
        if constexpr (CP_ASYNC != 0) asm volatile("cp.async.wait_all;" ::: "memory");
        if (CLUSTER > 1) cluster_barrier_any();
        return;
    }

    setmaxnreg_inc<S::consumers == 1 ? 240 : 232>();
    const int c = wg - 1, t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
    // A consumer warp is done with stage `stage`: lane 0 says so to this CTA's
    // producer, or with clusters lane r to CTA r's.
    auto release = [&](int stage) {
        if constexpr (CLUSTER > 1) {
            if (lane < CLUSTER) mbar_arrive_cluster(&empty[stage], static_cast<unsigned>(lane));
        } else if (lane == 0) {
            mbar_arrive(&empty[stage]);
        }
    };
    int s = 0;
    unsigned phase = 0;
    Acc d[BN / 2];
    for (long long unit = first_unit; unit < units; unit += unit_step) {
        const long long tile = unit / splits;
        const int split = static_cast<int>(unit % splits);
        long long bat, tm, tn;
        tile_of(unit, bat, tm, tn);
        const long long m0 = tm * BM, n0 = tn * BN;
        int k_begin, k_end;
        split_range(k_tiles, split, splits, k_begin, k_end);
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) d[i] = Acc(0);
        int prev = -1;
        for (int kt = k_begin; kt < k_end; ++kt) {
            mbar_wait(&full[s], phase);
            if constexpr (CP_ASYNC != 0) fence_proxy_async();
            const unsigned char* a = ring + s * S::stage_bytes;
            const unsigned char* b = a + S::a_bytes;
            wgmma_fence();
#pragma unroll
            for (int k = 0; k < BK * kEB / 32; ++k) {
                // (A step is 32 bytes of k: 16 f16/bf16 elements, 32 i8 or 8 tf32.)
                // A: box k / 4, this warpgroup's 64 rows, 32 bytes per k step inside
                // the 128-byte row; M-major, this warpgroup's box, 16 k rows of 128
                // bytes per step. B: 16 k rows of 128 bytes per step; boxes of 64
                // columns BK * 128 bytes apart.
                const unsigned long long da = A_MMAJOR ? smem_desc(a + c * BK * 128 + k * 16 * 128, BK * 128, 1024)
                                                       : smem_desc(a + (k / 4) * BM * 128 + c * 64 * 128 + (k % 4) * 32, 16, 1024);
                const unsigned long long db = B_KMAJOR ? smem_desc(b + (k / 4) * BN * 128 + (k % 4) * 32, 16, 1024)
                                                       : smem_desc(b + k * 16 * 128, BK * 128, 1024);
                Mma::run(d, da, db);
            }
            wgmma_commit();
            // The group before this one is done: its stage can be refilled.
            wgmma_wait<1>();
            if (prev >= 0) release(prev);
            prev = s;
            if (++s == STAGES) s = 0, phase ^= 1;
        }
        wgmma_wait<0>();
        if (prev >= 0) release(prev);
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) fence_operand(d[i]);
        if constexpr (SPLIT_K) {
            if (splits > 1) {
                if (split_k_publish<BM, BN, 128 * S::consumers>(d, sk, unit, tile, m0, c * 4 + warp, lane, flag))
                    split_k_finish<BM, BN, 128 * S::consumers>(sk, tile, m0, n0, threadIdx.x - 128, epi);
                continue;
            }
        }
        const long long r0 = m0 + c * 64 + warp * 16 + lane / 4, c0 = n0 + 2 * (lane % 4);
        if constexpr (kBatched) batch.set(bat);  // the outputs' offsets for this tile's batch
        if constexpr (Epi::QuadsType::outs > 0) {
            // 2-byte outputs: a tile inside the bounds whose output rows are 16-byte
            // aligned stores whole chunks; any other tile takes the checked epilogue,
            // those inside the bounds too where the rows are not aligned (rare: a row
            // stride that is not a multiple of 8 elements). A third copy of the
            // epilogue, unchecked pair stores for them, took 7-10% of the module's
            // NVRTC time (gemm_bf16 0.43 -> 0.40 s of CPU offline, gemm_epilogue
            // 0.83 -> 0.75 s).
            if (epi.quads.ok && epi.inside(m0 + BM, n0 + BN)) store_tile_quads<BN>(epi, d, r0, c0);
            else store_tile_checked<BN>(epi, d, r0, c0);
        } else if (epi.inside(m0 + BM, n0 + BN)) {
            store_tile<BN>(epi, d, r0, c0, Flag<true>{});
        } else {
            store_tile_checked<BN>(epi, d, r0, c0);
        }
    }
    if (CLUSTER > 1) cluster_barrier_any();
}

}  // namespace kg

#endif  // __CUDACC__
