// kiln's operand staging kernels for the Hopper GEMM (gemm_staging.h): copies of
// operands TMA cannot read in place, or that wgmma reads K-major only, made before
// the GEMM's launch. They depend on nothing of the program, so each is a module of
// its own (staging_kernels.h: compiled once, kept in the disk cache, loaded on a
// device at the first launch that needs it), not a part of every GEMM's module:
// that took about a sixth off a GEMM's cold compile (NVRTC's CPU time offline for
// the catalog's gemm_bf16 0.52 -> 0.43 s, gemm_epilogue 0.97 -> 0.83 s).
// No standard headers: NVRTC compiles it (the build embeds the text,
// cmake/kiln_generated.cmake). The host compiler sees nothing (the #if below).
#pragma once
#if defined(__CUDACC__)

namespace kg {

// Operand packing (gemm_staging.h): a rows x cols matrix of 2-byte elements copied
// to rows of dst_stride elements (a multiple of 64: whole 128-byte lines), for TMA;
// a batch of them (leads: up to three leading dims, extents and strides in elements,
// innermost last; extent 1 where unused) copied one matrix after another.
// A CTA takes a row at a time, a thread 8 elements (16 bytes) per chunk, four
// chunks in flight; 16-byte loads where every source row is 16-byte aligned, else
// element loads (the sectors are shared by a warp's lanes). Whole 16-byte stores:
// the last chunk's elements past cols are zeros, in the padding. Loads stream
// (read once); the stores stay in L2 for the GEMM that reads them next.
struct PackLeads {
    long long extent[3], stride[3];
    __device__ __forceinline__ long long matrices() const { return extent[0] * extent[1] * extent[2]; }
    // The first element of matrix m (its leading indices are m's digits, innermost last).
    __device__ __forceinline__ long long offset(long long m) const {
        long long at = 0;
        for (int i = 2; i >= 0; --i) {
            at += m % extent[i] * stride[i];
            m /= extent[i];
        }
        return at;
    }
};
__device__ __forceinline__ void pack_rows(const unsigned short* src, long long src_stride, unsigned short* dst, long long dst_stride,
                                          long long rows, long long cols, PackLeads leads) {
    constexpr int kInFlight = 4;
    const long long chunks = (cols + 7) / 8, all_rows = rows * leads.matrices();
    bool vectors = reinterpret_cast<unsigned long long>(src) % 16 == 0 && src_stride % 8 == 0;
    for (int i = 0; i < 3; ++i) vectors = vectors && (leads.extent[i] == 1 || leads.stride[i] % 8 == 0);
    for (long long q = blockIdx.x; q < all_rows; q += gridDim.x) {
        // Row q: row q % rows of matrix q / rows.
        const unsigned short* s = src + (q % rows) * src_stride + leads.offset(q / rows);
        uint4* d = reinterpret_cast<uint4*>(dst + q * dst_stride);
        for (long long c0 = threadIdx.x; c0 < chunks; c0 += kInFlight * blockDim.x) {
            uint4 v[kInFlight];
#pragma unroll
            for (int u = 0; u < kInFlight; ++u) {
                const long long c = c0 + u * blockDim.x, at = c * 8;
                if (c >= chunks) continue;
                if (vectors && at + 8 <= cols) {
                    v[u] = __ldcs(reinterpret_cast<const uint4*>(s + at));
                } else {
                    unsigned short e[8];
#pragma unroll
                    for (int j = 0; j < 8; ++j) e[j] = at + j < cols ? __ldcs(s + at + j) : (unsigned short)0;
                    v[u] = make_uint4(e[0] | (unsigned)e[1] << 16, e[2] | (unsigned)e[3] << 16, e[4] | (unsigned)e[5] << 16, e[6] | (unsigned)e[7] << 16);
                }
            }
#pragma unroll
            for (int u = 0; u < kInFlight; ++u)
                if (c0 + u * blockDim.x < chunks) d[c0 + u * blockDim.x] = v[u];
        }
    }
}

// Operand transposition (gemm_staging.h: stage_transposed). wgmma reads 8-bit operands
// K-major only, so an i8 operand stored with its k axis outermost (B [K, N], A [K, M])
// is copied transposed: src is rows x cols bytes (row stride src_stride), dst cols x
// rows, its rows dst_stride bytes apart (whole 128-byte lines, the padding past `rows`
// zeros); a batch (leads, as pack_rows) one matrix after another.
// A CTA of 256 threads (kPackThreads) moves 128 x 128 tiles through shared memory.
// Loads: 16 bytes a thread, a warp reading four source rows of 128 bytes (16-byte loads where the source rows are
// 16-byte aligned, else bytes). Stores: a thread gathers a 4 x 16 block (four words down
// each of 16 source rows), turns it with __byte_perm into four 16-byte pieces of four
// destination rows, a warp's eight lanes writing one destination row's 128 bytes.
// The tile's rows are 33 words (a source row lands one bank further on each row), and
// rows 32 apart swap words in fours (XOR 4 * (row / 32 % 4)): the gather's 32 lanes
// (8 row groups 16 apart, 4 words) then read 32 different banks.
__device__ __forceinline__ void transpose_bytes(const unsigned char* src, long long src_stride, unsigned char* dst, long long dst_stride,
                                                long long rows, long long cols, PackLeads leads) {
    constexpr int T = 128, W = T / 4 + 1;  // tile edge (bytes), words a tile row takes in shared memory
    __shared__ unsigned tile[T * W];
    const long long tiles_r = (rows + T - 1) / T, tiles_c = (cols + T - 1) / T, per_matrix = tiles_r * tiles_c;
    const long long all = per_matrix * leads.matrices();
    bool vectors = reinterpret_cast<unsigned long long>(src) % 16 == 0 && src_stride % 16 == 0;
    for (int i = 0; i < 3; ++i) vectors = vectors && (leads.extent[i] == 1 || leads.stride[i] % 16 == 0);
    const int t = threadIdx.x;
    auto slot = [](int row, int word) { return row * W + (word ^ (4 * ((row >> 5) & 3))); };
    for (long long q = blockIdx.x; q < all; q += gridDim.x) {
        const long long matrix = q / per_matrix, in_matrix = q % per_matrix;
        const long long r0 = in_matrix / tiles_c * T, c0 = in_matrix % tiles_c * T;
        const unsigned char* s = src + leads.offset(matrix);
        __syncthreads();  // the previous tile's gathers are done
#pragma unroll
        for (int u = 0; u < T * T / 16 / 256; ++u) {
            const int chunk = t + u * 256, row = chunk / 8, col = chunk % 8 * 16;
            const long long r = r0 + row, c = c0 + col;
            uint4 v = make_uint4(0, 0, 0, 0);
            if (r < rows) {
                const unsigned char* p = s + r * src_stride + c;
                if (vectors && c + 16 <= cols) {
                    v = __ldcs(reinterpret_cast<const uint4*>(p));
                } else {
                    unsigned w[4] = {0, 0, 0, 0};
#pragma unroll
                    for (int j = 0; j < 16; ++j)
                        if (c + j < cols) w[j / 4] |= static_cast<unsigned>(__ldcs(p + j)) << (8 * (j % 4));
                    v = make_uint4(w[0], w[1], w[2], w[3]);
                }
            }
            const int word = col / 4;
            tile[slot(row, word)] = v.x;
            tile[slot(row, word + 1)] = v.y;
            tile[slot(row, word + 2)] = v.z;
            tile[slot(row, word + 3)] = v.w;
        }
        __syncthreads();
        // This thread: destination rows c0 + 4 * jg .. + 3 (source columns), destination
        // columns r0 + 16 * cg .. + 15 (source rows).
        const int cg = t % 8, jg = t / 8;
        unsigned w[16];
#pragma unroll
        for (int i = 0; i < 16; ++i) w[i] = tile[slot(16 * cg + i, jg)];
        unsigned char* d = dst + matrix * cols * dst_stride + r0 + 16 * cg;
#pragma unroll
        for (int b = 0; b < 4; ++b) {
            const long long c = c0 + 4 * jg + b;
            if (c >= cols) break;
            // Byte b of each of the 16 words, in order: __byte_perm picks bytes of two words.
            const unsigned pick = static_cast<unsigned>(b) | static_cast<unsigned>(b + 4) << 4;
            unsigned o[4];
#pragma unroll
            for (int k = 0; k < 4; ++k)
                o[k] = __byte_perm(__byte_perm(w[4 * k], w[4 * k + 1], pick), __byte_perm(w[4 * k + 2], w[4 * k + 3], pick), 0x5410);
            *reinterpret_cast<uint4*>(d + c * dst_stride) = make_uint4(o[0], o[1], o[2], o[3]);
        }
    }
}

// The same for 4-byte elements (f32 operands read as tf32): src rows x cols words,
// dst cols x rows (row stride dst_stride words, a multiple of 32). A CTA of 256
// threads moves 32 x 32 tiles through shared memory (rows of 33 words: a column's
// words on 32 banks), a warp loading one source row's 128 bytes and storing one
// destination row's.
__device__ __forceinline__ void transpose_words(const unsigned* src, long long src_stride, unsigned* dst, long long dst_stride, long long rows,
                                                long long cols, PackLeads leads) {
    constexpr int T = 32;
    __shared__ unsigned tile[T][T + 1];
    const long long tiles_r = (rows + T - 1) / T, tiles_c = (cols + T - 1) / T, per_matrix = tiles_r * tiles_c;
    const long long all = per_matrix * leads.matrices();
    const int tx = threadIdx.x % T, ty = threadIdx.x / T;
    for (long long q = blockIdx.x; q < all; q += gridDim.x) {
        const long long matrix = q / per_matrix, in_matrix = q % per_matrix;
        const long long r0 = in_matrix / tiles_c * T, c0 = in_matrix % tiles_c * T;
        const unsigned* s = src + leads.offset(matrix);
        __syncthreads();  // the previous tile's stores are done
#pragma unroll
        for (int j = 0; j < T / 8; ++j) {
            const long long r = r0 + ty + 8 * j, c = c0 + tx;
            tile[ty + 8 * j][tx] = r < rows && c < cols ? __ldcs(s + r * src_stride + c) : 0u;
        }
        __syncthreads();
        unsigned* d = dst + matrix * cols * dst_stride + r0 + tx;
#pragma unroll
        for (int j = 0; j < T / 8; ++j) {
            const long long c = c0 + ty + 8 * j;
            if (c < cols) d[c * dst_stride] = tile[tx][ty + 8 * j];
        }
    }
}

}  // namespace kg

#endif  // __CUDACC__
