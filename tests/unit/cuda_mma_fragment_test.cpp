// The mma.sync fragment tables the CUDA emitter generates its tensor-core loads and
// stores from (src/targets/cuda/emit_mma_fragments.h), checked on the host against
// the PTX ISA's per-element formulas, written out here from the ISA text
// ("Matrix Fragments for mma.m16n8k8" .tf32, "... for mma.m16n8k16 with floating
// point type" .f16/.bf16, "... for mma.m16n8k32" .s8), and by simulating a warp:
// every lane loads its words from operands staged as the emitter stages them, the
// "hardware" places them where the ISA says and multiplies, each lane stores its
// accumulators back, and the result must be the naive product. No device needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "targets/cuda/emit_mma_fragments.h"

namespace fr = kiln::cu::mma_fragment;

namespace {

using RowCol = std::pair<int, int>;

// One instruction's fragments as the ISA defines them, element by element:
// a(lane, i) is (row, k) of A's element a_i, b(lane, i) is (k, column) of b_i.
struct IsaShape {
    std::string name;
    int bytes;  // element size
    int k;      // k per instruction
    RowCol (*a)(int lane, int i);
    RowCol (*b)(int lane, int i);
    int a_elements() const { return fr::kARegisters * fr::kWordBytes / bytes; }
    int b_elements() const { return fr::kBRegisters * fr::kWordBytes / bytes; }
};

int g_of(int lane) { return lane >> 2; }  // groupID = %laneid >> 2
int t_of(int lane) { return lane % 4; }   // threadID_in_group = %laneid % 4

const std::vector<IsaShape>& isa_shapes() {
    static const std::vector<IsaShape> shapes = {
        {"m16n8k32 .s8", 1, 32,
         [](int l, int i) {
             int row = (i < 4 || (i >= 8 && i < 12)) ? g_of(l) : g_of(l) + 8;
             int col = i < 8 ? t_of(l) * 4 + (i & 3) : t_of(l) * 4 + (i & 3) + 16;
             return RowCol{row, col};
         },
         [](int l, int i) {
             int row = i < 4 ? t_of(l) * 4 + (i & 3) : t_of(l) * 4 + (i & 3) + 16;
             return RowCol{row, g_of(l)};
         }},
        {"m16n8k16 .f16/.bf16", 2, 16,
         [](int l, int i) {
             int row = (i < 2 || (i >= 4 && i < 6)) ? g_of(l) : g_of(l) + 8;
             int col = i < 4 ? t_of(l) * 2 + (i & 1) : t_of(l) * 2 + (i & 1) + 8;
             return RowCol{row, col};
         },
         [](int l, int i) {
             int row = i < 2 ? t_of(l) * 2 + (i & 1) : t_of(l) * 2 + (i & 1) + 8;
             return RowCol{row, g_of(l)};
         }},
        {"m16n8k8 .tf32", 4, 8,
         [](int l, int i) {
             int row = (i == 0 || i == 2) ? g_of(l) : g_of(l) + 8;
             int col = i < 2 ? t_of(l) : t_of(l) + 4;
             return RowCol{row, col};
         },
         [](int l, int i) { return RowCol{i == 0 ? t_of(l) : t_of(l) + 4, g_of(l)}; }},
    };
    return shapes;
}

// Accumulators C and D (f32 or s32, the same for all three): (row, column) of c_i.
RowCol isa_c(int l, int i) { return {i < 2 ? g_of(l) : g_of(l) + 8, t_of(l) * 2 + (i & 1)}; }

}  // namespace

TEST(CudaMmaFragments, EveryRegisterHoldsTheElementsTheIsaNames) {
    for (const IsaShape& s : isa_shapes()) {
        SCOPED_TRACE(s.name);
        EXPECT_EQ(s.k * s.bytes, fr::kStepBytes);
        const int per_word = fr::kWordBytes / s.bytes;
        // Two steps of k per row, padded as the emitter pads: (row, k) = divmod(offset, pitch).
        const std::int64_t pitch = fr::staged_pitch(2 * s.k, s.bytes);
        std::vector<int> a_seen(fr::kTileM * s.k, 0), b_seen(s.k * fr::kTileN, 0), c_seen(fr::kTileM * fr::kTileN, 0);
        for (int lane = 0; lane < 32; ++lane) {
            for (int r = 0; r < fr::kARegisters; ++r)
                for (int j = 0; j < per_word; ++j) {
                    std::int64_t off = fr::lane_offset(lane, pitch, s.bytes) + fr::a_offset(r, pitch, s.bytes) + j;
                    RowCol want = s.a(lane, r * per_word + j);  // elements low to high within the register
                    EXPECT_EQ(off / pitch, want.first) << "A lane " << lane << " register " << r << " element " << j;
                    EXPECT_EQ(off % pitch, want.second) << "A lane " << lane << " register " << r << " element " << j;
                    ++a_seen[static_cast<std::size_t>(want.first * s.k + want.second)];
                }
            for (int r = 0; r < fr::kBRegisters; ++r)
                for (int j = 0; j < per_word; ++j) {
                    // B is staged n-major: row n holds column n of B.
                    std::int64_t off = fr::lane_offset(lane, pitch, s.bytes) + fr::b_offset(r, s.bytes) + j;
                    RowCol want = s.b(lane, r * per_word + j);
                    EXPECT_EQ(off / pitch, want.second) << "B lane " << lane << " register " << r << " element " << j;
                    EXPECT_EQ(off % pitch, want.first) << "B lane " << lane << " register " << r << " element " << j;
                    ++b_seen[static_cast<std::size_t>(want.first * fr::kTileN + want.second)];
                }
            const std::int64_t c_pitch = 3 * fr::kTileN;
            for (int i = 0; i < fr::kCRegisters; ++i) {
                std::int64_t off = fr::c_lane_offset(lane, c_pitch) + fr::c_offset(i, c_pitch);
                RowCol want = isa_c(lane, i);
                EXPECT_EQ(off / c_pitch, want.first) << "C lane " << lane << " element " << i;
                EXPECT_EQ(off % c_pitch, want.second) << "C lane " << lane << " element " << i;
                ++c_seen[static_cast<std::size_t>(want.first * fr::kTileN + want.second)];
            }
        }
        // The ISA's formulas themselves cover each tile exactly once across the warp.
        for (int n : a_seen) EXPECT_EQ(n, 1);
        for (int n : b_seen) EXPECT_EQ(n, 1);
        for (int n : c_seen) EXPECT_EQ(n, 1);
    }
}

namespace {

// Element e of a little-endian word, `bytes` wide, sign-extended (elements low to high).
std::int64_t element_of(std::uint32_t word, int e, int bytes) {
    int bits = 8 * bytes;
    std::uint64_t v = (word >> (e * bits)) & ((bits == 32) ? 0xffffffffull : ((1ull << bits) - 1));
    return static_cast<std::int64_t>(v << (64 - bits)) >> (64 - bits);
}

// Stores v as a `bytes`-wide little-endian integer at element index i of a byte array.
void put(std::vector<unsigned char>& mem, std::int64_t i, int bytes, std::int64_t v) {
    for (int b = 0; b < bytes; ++b)
        mem[static_cast<std::size_t>(i * bytes + b)] = static_cast<unsigned char>((static_cast<std::uint64_t>(v) >> (8 * b)) & 0xff);
}

std::uint32_t word_at(const std::vector<unsigned char>& mem, std::int64_t element, int bytes) {
    std::uint32_t w = 0;
    for (int b = 0; b < fr::kWordBytes; ++b) w |= std::uint32_t{mem.at(static_cast<std::size_t>(element * bytes + b))} << (8 * b);
    return w;
}

}  // namespace

TEST(CudaMmaFragments, SimulatedWarpComputesTheNaiveProduct) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> value(-128, 127);
    for (const IsaShape& s : isa_shapes()) {
        SCOPED_TRACE(s.name);
        // Two 16-row tiles, three 8-column tiles, a k that ends inside the third step.
        const std::int64_t M = 2 * fr::kTileM, N = 3 * fr::kTileN, K = 2 * s.k + 5;
        const std::int64_t Kp = 3 * s.k, pitch = fr::staged_pitch(Kp, s.bytes);
        std::vector<std::int64_t> A(static_cast<std::size_t>(M * K)), B(static_cast<std::size_t>(K * N)), C(static_cast<std::size_t>(M * N));
        for (auto& x : A) x = value(rng);
        for (auto& x : B) x = value(rng);
        for (auto& x : C) x = value(rng) * 1000;
        // Staged as emit_mma.cpp stages them: A row-major, B n-major, rows `pitch`
        // elements apart, k past K zero; C row-major with N columns.
        std::vector<unsigned char> sa(static_cast<std::size_t>(M * pitch * s.bytes), 0), sb(static_cast<std::size_t>(N * pitch * s.bytes), 0);
        for (std::int64_t m = 0; m < M; ++m)
            for (std::int64_t k = 0; k < K; ++k) put(sa, m * pitch + k, s.bytes, A[static_cast<std::size_t>(m * K + k)]);
        for (std::int64_t k = 0; k < K; ++k)
            for (std::int64_t n = 0; n < N; ++n) put(sb, n * pitch + k, s.bytes, B[static_cast<std::size_t>(k * N + n)]);
        std::vector<std::int64_t> sc = C;
        const int per_word = fr::kWordBytes / s.bytes;
        for (std::int64_t m0 = 0; m0 < M; m0 += fr::kTileM)
            for (std::int64_t n0 = 0; n0 < N; n0 += fr::kTileN) {
                // Each lane's accumulators, loaded from sc.
                std::int64_t d[32][fr::kCRegisters];
                for (int lane = 0; lane < 32; ++lane)
                    for (int i = 0; i < fr::kCRegisters; ++i)
                        d[lane][i] = sc[static_cast<std::size_t>(m0 * N + n0 + fr::c_lane_offset(lane, N) + fr::c_offset(i, N))];
                for (std::int64_t k0 = 0; k0 < Kp; k0 += s.k) {
                    // The "hardware": assemble the tiles from the lanes' words where the ISA puts them.
                    std::vector<std::int64_t> at(static_cast<std::size_t>(fr::kTileM * s.k), INT64_MIN),
                        bt(static_cast<std::size_t>(s.k * fr::kTileN), INT64_MIN);
                    for (int lane = 0; lane < 32; ++lane) {
                        std::int64_t pa = m0 * pitch + fr::lane_offset(lane, pitch, s.bytes) + k0;
                        std::int64_t pb = n0 * pitch + fr::lane_offset(lane, pitch, s.bytes) + k0;
                        for (int r = 0; r < fr::kARegisters; ++r) {
                            std::uint32_t w = word_at(sa, pa + fr::a_offset(r, pitch, s.bytes), s.bytes);
                            for (int j = 0; j < per_word; ++j) {
                                auto [row, col] = s.a(lane, r * per_word + j);
                                at[static_cast<std::size_t>(row * s.k + col)] = element_of(w, j, s.bytes);
                            }
                        }
                        for (int r = 0; r < fr::kBRegisters; ++r) {
                            std::uint32_t w = word_at(sb, pb + fr::b_offset(r, s.bytes), s.bytes);
                            for (int j = 0; j < per_word; ++j) {
                                auto [row, col] = s.b(lane, r * per_word + j);
                                bt[static_cast<std::size_t>(row * fr::kTileN + col)] = element_of(w, j, s.bytes);
                            }
                        }
                    }
                    for (std::int64_t x : at) ASSERT_NE(x, INT64_MIN) << "an element of A's tile no lane supplied";
                    for (std::int64_t x : bt) ASSERT_NE(x, INT64_MIN) << "an element of B's tile no lane supplied";
                    for (int lane = 0; lane < 32; ++lane)
                        for (int i = 0; i < fr::kCRegisters; ++i) {
                            auto [row, col] = isa_c(lane, i);
                            for (int k = 0; k < s.k; ++k)
                                d[lane][i] += at[static_cast<std::size_t>(row * s.k + k)] * bt[static_cast<std::size_t>(k * fr::kTileN + col)];
                        }
                }
                for (int lane = 0; lane < 32; ++lane)
                    for (int i = 0; i < fr::kCRegisters; ++i)
                        sc[static_cast<std::size_t>(m0 * N + n0 + fr::c_lane_offset(lane, N) + fr::c_offset(i, N))] = d[lane][i];
            }
        for (std::int64_t m = 0; m < M; ++m)
            for (std::int64_t n = 0; n < N; ++n) {
                std::int64_t want = C[static_cast<std::size_t>(m * N + n)];
                for (std::int64_t k = 0; k < K; ++k) want += A[static_cast<std::size_t>(m * K + k)] * B[static_cast<std::size_t>(k * N + n)];
                ASSERT_EQ(sc[static_cast<std::size_t>(m * N + n)], want) << "C[" << m << ", " << n << "]";
            }
    }
}
