// Which elements each lane of a warp holds in the registers of mma.sync, for the
// three instructions kiln puts mma on (PTX ISA, "Matrix Fragments for mma.m16n8k8"
// (.tf32), "... mma.m16n8k16 with floating point type" (.f16/.bf16) and
// "... mma.m16n8k32" (.s8)).
//
// Measured in bytes the three are one layout. Each step contracts 32 bytes of k
// (8 tf32, 16 f16/bf16 or 32 s8 elements), and every 32-bit register of A and B
// holds the 4 bytes that follow one another along k, lowest k in the low bits, so
// a register is one little-endian word load from a row-major A or an n-major B.
// With lane = 4 g + t (g = groupID, t = threadID_in_group in the ISA's words):
//   A, 16 rows x 32 bytes:  register r holds row g + kARow[r], bytes 4t + kAByte[r] .. +3
//   B, 32 bytes x 8 cols:   register r holds column g,          bytes 4t + kBByte[r] .. +3
//   C and D, 16 x 8 (f32 or s32, one element per register):
//                           element i is row g + kCRow[i], column 2t + kCCol[i]
// emit_mma.cpp generates its fragment loads and stores from these constants, and
// tests/unit/cuda_mma_fragment_test.cpp checks them, on the host, against the
// ISA's per-element formulas and a naive product.
#pragma once

#include <cstdint>

namespace kiln::cu::mma_fragment {

inline constexpr int kTileM = 16;       // rows of A, C and D per instruction
inline constexpr int kTileN = 8;        // columns of B, C and D per instruction
inline constexpr int kStepBytes = 32;   // bytes of k per instruction
inline constexpr int kWordBytes = 4;    // bytes of k in one register of A or B
inline constexpr int kCColsPerLane = 2; // consecutive columns of C one lane holds in a row

inline constexpr int kARegisters = 4;
inline constexpr int kARow[kARegisters] = {0, 8, 0, 8};
inline constexpr int kAByte[kARegisters] = {0, 0, 16, 16};
inline constexpr int kBRegisters = 2;
inline constexpr int kBByte[kBRegisters] = {0, 16};
inline constexpr int kCRegisters = 4;
inline constexpr int kCRow[kCRegisters] = {0, 0, 8, 8};
inline constexpr int kCCol[kCRegisters] = {0, 1, 0, 1};

constexpr int group(int lane) { return lane / 4; }   // g
constexpr int quad(int lane) { return lane % 4; }    // t

// Operands staged in shared memory as the emitter stages them: A row-major, B
// n-major (row n holds B[., n]), both with `pitch` elements of `bytes` bytes per
// row; C row-major with `pitch` elements per row. Offsets are in elements.

// Where a lane's fragments start: row g, byte 4t (A and B), column 2t (C).
constexpr std::int64_t lane_offset(int lane, std::int64_t pitch, int bytes) {
    return group(lane) * pitch + quad(lane) * kWordBytes / bytes;
}
constexpr std::int64_t c_lane_offset(int lane, std::int64_t pitch) { return group(lane) * pitch + quad(lane) * kCColsPerLane; }

// Register r (element i for C) relative to the lane's start, in the step at k = 0.
constexpr std::int64_t a_offset(int r, std::int64_t pitch, int bytes) { return kARow[r] * pitch + kAByte[r] / bytes; }
constexpr std::int64_t b_offset(int r, int bytes) { return kBByte[r] / bytes; }
constexpr std::int64_t c_offset(int i, std::int64_t pitch) { return kCRow[i] * pitch + kCCol[i]; }

// The row pitch (elements) of staged A and B for a k extent padded to whole steps:
// 16 bytes more than the row, so that rows g = 0..7 of one fragment load start in
// eight different 16-byte slots of the 128 bytes the banks cover, and the warp's
// 32 word loads hit 32 distinct banks.
constexpr std::int64_t staged_pitch(std::int64_t k_padded, int bytes) { return k_padded + 16 / bytes; }

}  // namespace kiln::cu::mma_fragment
