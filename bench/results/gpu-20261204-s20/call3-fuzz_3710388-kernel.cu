// The kernel of fuzz program 3710388 as the device compiled it (KILN_DUMP_DIR, call 3, tree 086f3f6);
// the prelude before it is src/targets/cuda/prelude.cpp at that commit.
extern "C" __global__ void __launch_bounds__(128) kiln_fuzz_3710388(unsigned short* a0, long long a0_e0, long long a0_e1, long long a0_s0, long long a0_s1, const int* a1, long long a1_e0, long long a1_s0, const int* a2, long long a2_e0, long long a2_e1, long long a2_s0, long long a2_s1) {
    extern __shared__ __align__(16) unsigned char kiln_smem[];
    const int tid = threadIdx.x;
    [[maybe_unused]] unsigned char* const kiln_shared = kiln_smem;
    const long long v0 = a0_e0;
    const long long v1 = 1LL;
    const long long v2 = kc::add64(v0, v1);
    const long long v3 = 1LL;
    const long long v4 = kc::sub64(v2, v3);
    const long long v5 = 1LL;
    const long long v6 = kiln_rt::idiv((long long)v4, (long long)v5, 64);
    const long long v7 = 16LL;
    const long long v8 = 0LL;
    const long long v9 = 0LL;
    const long long v10 = 4LL;
    const long long v11 = 13LL;
    const long long v12 = 1LL;
    const long long v13 = 0LL;
    const long long v14 = 0LL;
    const long long v15 = 12LL;
    const float v16 = 0x0p+0f;
    const bool v17 = true;
    const long long g_total = v6;
    // the parallel nest: one CTA per instance (grid-stride when the grid is capped)
    #pragma unroll 1
    for (long long pid = (long long)blockIdx.x; pid < g_total; pid += (long long)gridDim.x) {
        long long rest18 = pid;
        const long long v19 = rest18;
        const long long v20 = kc::mul64(v19, v7);
        const long long v21 = kc::add64(v20, v8);
        int v22[8];
        #pragma unroll
        for (int q = 0; q < 1; ++q) {
            const int e = (tid / 1) * 8 + (q * 8) % 8;
            if ((tid / 1) < 16) {
                const long long c25 = v21 + ((e) / 8);
                const long long c26 = v9 + ((e) % 8);
                const bool whole23 = (unsigned long long)c25 < (unsigned long long)a2_e0 && c26 >= 0 && c26 + 8 <= a2_e1 && a2_s1 == 1;
                const int* const p24 = whole23 ? a2 + ((kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c26 * (kiln_idx)a2_s1) : a2;
                if (whole23 && ((unsigned long long)p24 & 15) == 0) {
                    __align__(16) int run27[8];
                    reinterpret_cast<uint4*>(run27)[0] = reinterpret_cast<const uint4*>(p24)[0];
                    reinterpret_cast<uint4*>(run27)[1] = reinterpret_cast<const uint4*>(p24)[1];
                    v22[q * 8 + 0] = run27[0];
                    v22[q * 8 + 1] = run27[1];
                    v22[q * 8 + 2] = run27[2];
                    v22[q * 8 + 3] = run27[3];
                    v22[q * 8 + 4] = run27[4];
                    v22[q * 8 + 5] = run27[5];
                    v22[q * 8 + 6] = run27[6];
                    v22[q * 8 + 7] = run27[7];
                } else {
                    const long long c28 = c26 + 0;
                    v22[q * 8 + 0] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c28 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c28 * (kiln_idx)a2_s1] : 0;
                    const long long c29 = c26 + 1;
                    v22[q * 8 + 1] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c29 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c29 * (kiln_idx)a2_s1] : 0;
                    const long long c30 = c26 + 2;
                    v22[q * 8 + 2] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c30 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c30 * (kiln_idx)a2_s1] : 0;
                    const long long c31 = c26 + 3;
                    v22[q * 8 + 3] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c31 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c31 * (kiln_idx)a2_s1] : 0;
                    const long long c32 = c26 + 4;
                    v22[q * 8 + 4] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c32 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c32 * (kiln_idx)a2_s1] : 0;
                    const long long c33 = c26 + 5;
                    v22[q * 8 + 5] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c33 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c33 * (kiln_idx)a2_s1] : 0;
                    const long long c34 = c26 + 6;
                    v22[q * 8 + 6] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c34 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c34 * (kiln_idx)a2_s1] : 0;
                    const long long c35 = c26 + 7;
                    v22[q * 8 + 7] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c35 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c35 * (kiln_idx)a2_s1] : 0;
                }
            } else {
                v22[q * 8 + 0] = 0;
                v22[q * 8 + 1] = 0;
                v22[q * 8 + 2] = 0;
                v22[q * 8 + 3] = 0;
                v22[q * 8 + 4] = 0;
                v22[q * 8 + 5] = 0;
                v22[q * 8 + 6] = 0;
                v22[q * 8 + 7] = 0;
            }
        }
        int v36[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = (tid / 1) * 8 + (j) % 8;
            v36[j] = kc::sub32(0, v22[j]);
        }
        int part37[1];
        #pragma unroll
        for (int p = 0; p < 1; ++p) {
            int acc38[4];
            #pragma unroll
            for (int i = 0; i < 4; ++i) acc38[i] = v36[p * 8 + i];
            #pragma unroll
            for (int i = 4; i < 8; ++i) acc38[i % 4] = kc::imin(acc38[i % 4], v36[p * 8 + i]);
            part37[p] = kc::imin(kc::imin(acc38[0], acc38[1]), kc::imin(acc38[2], acc38[3]));
        }
        int v39[1];
        #pragma unroll
        for (int j = 0; j < 1; ++j) {
            [[maybe_unused]] const int e = tid / 1;
            v39[j] = part37[j];
        }
        // serial loop
        int c40[1];
        #pragma unroll
        for (int j = 0; j < 1; ++j) c40[j] = v39[j];
        {
            const long long n41 = kc::imax(v10, 0LL);
            for (long long it42 = 0; it42 < n41; ++it42) {
                long long rest43 = it42;
                const long long v44 = rest43;
                const long long v45 = v11;
                __syncthreads();
                int* const s46 = reinterpret_cast<int*>(kiln_shared + 0);
                #pragma unroll
                for (int j = 0; j < 1; ++j) {
                    const int e = tid / 1;
                    if ((tid / 1) < 16) {
                        s46[e] = v39[j];
                    }
                }
                __syncthreads();
                int v47;
                {
                    [[maybe_unused]] const int e = 0, j = 0;
                    const long long q48 = v45;
                    v47 = ((unsigned long long)q48 < 16ULL) ? s46[(int)(q48 * 1)] : 0;
                }
                int v49[1];
                #pragma unroll
                for (int j = 0; j < 1; ++j) {
                    [[maybe_unused]] const int e = tid / 1;
                    v49[j] = kc::mul32(c40[j], v47);
                }
                int y50[1];
                #pragma unroll
                for (int j = 0; j < 1; ++j) y50[j] = v49[j];
                #pragma unroll
                for (int j = 0; j < 1; ++j) c40[j] = y50[j];
            }
        }
        const long long v51 = kc::mul64(v19, v12);
        const long long v52 = kc::add64(v51, v13);
        const long long v53 = v15;
        __syncthreads();
        int* const s54 = reinterpret_cast<int*>(kiln_shared + 0);
        #pragma unroll
        for (int j = 0; j < 1; ++j) {
            const int e = tid / 1;
            if ((tid / 1) < 16) {
                s54[e] = v39[j];
            }
        }
        __syncthreads();
        int v55;
        {
            [[maybe_unused]] const int e = 0, j = 0;
            const long long q56 = v53;
            v55 = ((unsigned long long)q56 < 16ULL) ? s54[(int)(q56 * 1)] : 0;
        }
        const float v57 = kc::d2f16((double)(long long)v55);
        float v58[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v58[j] = v16;
        }
        bool v59[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v59[j] = v17;
        }
        float v60[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v60[j] = (v59[j] ? v57 : v58[j]);
        }
        __syncthreads();
        #pragma unroll
        for (int q = 0; q < 1; ++q) {
            const int e = tid * 8 + (q * 8) % 8;
            const bool held63 = (tid * 8 + (q * 8) % 8) < 7;
            const long long c64 = v52 + 0;
            const long long c65 = v14 + ((e) % 7);
            const bool whole61 = held63 && (tid * 8 + (q * 8) % 8) + 8 <= 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && c65 >= 0 && c65 + 8 <= a0_e1 && a0_s1 == 1;
            unsigned short* const p62 = whole61 ? a0 + ((kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c65 * (kiln_idx)a0_s1) : a0;
            const unsigned mis66 = whole61 ? (unsigned)((unsigned long long)p62 & 15u) : 0u;
            if (whole61 && mis66 == 0u) {
                __align__(16) unsigned short run67[8];
                reinterpret_cast<unsigned*>(run67)[0] = kc::f2h2(v60[q * 8 + 0], v60[q * 8 + 1]);
                reinterpret_cast<unsigned*>(run67)[1] = kc::f2h2(v60[q * 8 + 2], v60[q * 8 + 3]);
                reinterpret_cast<unsigned*>(run67)[2] = kc::f2h2(v60[q * 8 + 4], v60[q * 8 + 5]);
                reinterpret_cast<unsigned*>(run67)[3] = kc::f2h2(v60[q * 8 + 6], v60[q * 8 + 7]);
                reinterpret_cast<uint4*>(p62)[0] = reinterpret_cast<const uint4*>(run67)[0];
            }
            else if (!whole61 && held63) {
                const long long c68 = c65 + 0;
                if ((tid * 8 + (q * 8) % 8) + 0 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c68 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c68 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 0]);
                const long long c69 = c65 + 1;
                if ((tid * 8 + (q * 8) % 8) + 1 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c69 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c69 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 1]);
                const long long c70 = c65 + 2;
                if ((tid * 8 + (q * 8) % 8) + 2 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c70 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c70 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 2]);
                const long long c71 = c65 + 3;
                if ((tid * 8 + (q * 8) % 8) + 3 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c71 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c71 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 3]);
                const long long c72 = c65 + 4;
                if ((tid * 8 + (q * 8) % 8) + 4 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c72 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c72 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 4]);
                const long long c73 = c65 + 5;
                if ((tid * 8 + (q * 8) % 8) + 5 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c73 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c73 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 5]);
                const long long c74 = c65 + 6;
                if ((tid * 8 + (q * 8) % 8) + 6 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c74 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c74 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 6]);
                const long long c75 = c65 + 7;
                if ((tid * 8 + (q * 8) % 8) + 7 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c75 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c75 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 7]);
            }
            if (__any_sync(0xffffffffu, mis66 != 0u)) {
                uint4 x77 = {};
                if (mis66 != 0u) {
                    __align__(16) unsigned short run81[8];
                    reinterpret_cast<unsigned*>(run81)[0] = kc::f2h2(v60[q * 8 + 0], v60[q * 8 + 1]);
                    reinterpret_cast<unsigned*>(run81)[1] = kc::f2h2(v60[q * 8 + 2], v60[q * 8 + 3]);
                    reinterpret_cast<unsigned*>(run81)[2] = kc::f2h2(v60[q * 8 + 4], v60[q * 8 + 5]);
                    reinterpret_cast<unsigned*>(run81)[3] = kc::f2h2(v60[q * 8 + 6], v60[q * 8 + 7]);
                    reinterpret_cast<uint4*>((&x77))[0] = reinterpret_cast<const uint4*>(run81)[0];
                }
                const unsigned win76[8] = {x77.x, x77.y, x77.z, x77.w, __shfl_down_sync(0xffffffffu, x77.x, 1, 32), __shfl_down_sync(0xffffffffu, x77.y, 1, 32), __shfl_down_sync(0xffffffffu, x77.z, 1, 32), __shfl_down_sync(0xffffffffu, x77.w, 1, 32)};
                const int at78 = mis66 != 0u ? e : -1;
                const int next79 = __shfl_down_sync(0xffffffffu, at78, 1, 32);
                const int prev80 = __shfl_up_sync(0xffffffffu, at78, 1, 32);
                if (mis66 != 0u) {
                    if (next79 == at78 + 8 && at78 % 7 + 8 < 7) *reinterpret_cast<uint4*>(reinterpret_cast<char*>(p62) + (16u - mis66)) = kc::window16(win76, 16u - mis66);
                    else {
                        #pragma unroll
                        for (int k = 0; k < 8; ++k) {
                            if (k * 2 >= 16 - (int)mis66) p62[k] = reinterpret_cast<const unsigned short*>(&x77)[k];
                        }
                    }
                    if (!(prev80 >= 0 && at78 == prev80 + 8 && prev80 % 7 + 8 < 7)) {
                        #pragma unroll
                        for (int k = 0; k < 8; ++k) {
                            if (k * 2 < 16 - (int)mis66) p62[k] = reinterpret_cast<const unsigned short*>(&x77)[k];
                        }
                    }
                }
            }
        }
    }
}
