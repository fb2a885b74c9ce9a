// The CUDA emitter: Tile IR -> one CUDA C++ translation unit with one kernel.
//
// Execution model. A program instance (one point of the parallel nest) is a CTA;
// serial and pipeline nests are loops inside it. A tile value is held in
// registers spread over the CTA's threads: element e (row-major) lives in thread
// e % T, slot e / T, where T is the CTA's thread count. Scalars (rank-0 values)
// are uniform: every thread holds the same value. Elementwise ops are
// thread-local; an op that needs other threads' elements (broadcast, permute,
// slice, reduce, scan, mma, gather, reindex, sort, topk, argmax) stages its
// operands through shared memory between barriers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <kiln/kernel.h>

#include "ir/ir.h"

namespace kiln::cu {

struct EmitOptions {
    Precision precision = Precision::standard;
    bool index64 = false;  // 64-bit element offsets (a view's reachable span needs them)
    int sm = 90;           // compute capability major*10 + minor of the target
};

struct EmittedKernel {
    std::string source;               // complete translation unit
    std::string entry;                // the __global__ function's name
    int threads = 0;                  // per CTA
    std::int64_t shared_bytes = 0;    // dynamic shared memory per CTA
    std::string shared_site;          // the op that needs the most of it ("mma at gemm.cpp:31")
    std::vector<std::string> values;  // plan lines: each value's layout and lowering
    int tensor_core_mmas = 0;         // mma ops lowered to tensor cores
};

// Fails with kiln::Error naming the user's line for programs the target cannot
// run (bounds::check, unsupported ops); internal errors for kiln's own bugs.
EmittedKernel emit_kernel(const ir::Program& p, const EmitOptions& o);

// The kernel's parameters, in order: for a view, its element pointer then its
// extents and its strides (long long each); for a scalar, its value in the
// register type (float for f16/bf16/f32, double for f64, int for bool/i8/i32,
// long long for i64). The launcher packs arguments this way.
std::string kernel_signature(const ir::Program& p);

}  // namespace kiln::cu
