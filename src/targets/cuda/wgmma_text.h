// The wgmma wrappers generated kernels call (the GEMM's, emit_gemm.cpp, and
// attention's, emit_attention.cpp): one struct with a static run() per instruction
// shape, its accumulators as a register array the asm reads and writes.
#pragma once

#include <string>

#include <kiln/kind.h>

namespace kiln::cu {

// "bf16", "f16", "s8" or "tf32" (f32 operands): the PTX type of a wgmma operand kind.
std::string wgmma_kind(Kind in);

// `name`::run(d, a_desc, b_desc[, accumulate]): one wgmma.mma_async m64nNk16 with f32
// accumulators, A and B from shared memory: A K-major, or M-major (a_mmajor:
// imm-trans-a = 1); B N-major (imm-trans-b = 1) or K-major (b_kmajor). With
// `accumulate_operand` run() takes an int that, when 0, makes it compute D = A B
// (scale-d false); without, it always accumulates. For i8 operands one m64nNk32
// into s32 accumulators that wrap, and for f32 operands (tf32) one m64nNk8, both
// operands K-major (the caller's to ensure). The struct names its accumulator
// element (Acc: float or int) and the operands' size (elem_bytes: 1, 2 or 4).
std::string wgmma_smem_wrapper(const std::string& name, int n, Kind in, bool a_mmajor, bool b_kmajor, bool accumulate_operand);

// `name`::run(d, a, b_desc): one wgmma.mma_async m64nNk16 accumulating, A from
// registers (four packed pairs, the m64nNk16 A fragment), B N-major in shared memory.
std::string wgmma_register_a_wrapper(const std::string& name, int n, Kind in);

}  // namespace kiln::cu
