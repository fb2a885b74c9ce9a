#include "passes/cuda_layout.h"

#include <algorithm>
#include <cstdlib>

#include "ir/attrs.h"
#include "passes/lowered.h"
#include "support/environment.h"

namespace kiln::passes {

using detail::OpCode;

namespace {

// The most elements of its largest tile a thread holds before the CTA grows past 256
// threads. A row tile lives in registers. Fewer per thread means more threads per
// row, and each thread pays the fixed work of every reduction (shuffles, the
// exchange) and of every load and store (addresses, masks): for bench/cuda_bench.cpp's
// softmax over 8192 bf16 columns the instructions per row are 1.4x those of 32 per
// thread at 8 per thread, and that kernel is close to bound by instruction issue.
// At 32 per thread it needs 64 registers: four 256-thread CTAs per SM.
// KILN_CUDA_ELEMENTS_PER_THREAD overrides it (for measuring other points; the
// generated source, hence the cache key, differs).
std::int64_t most_per_thread() { return support::env_integer("KILN_CUDA_ELEMENTS_PER_THREAD", 1, 4096).value_or(32); }

}  // namespace

std::string CudaLayout::describe(int threads, bool scalar) const {
    if (scalar) return "uniform scalar";
    if (uniform) return "uniform (every thread holds the element)";
    if (vec == 1) return "cyclic over " + std::to_string(threads) + " threads, " + std::to_string(slots()) + "/thread";
    return "runs of " + std::to_string(vec) + " over " + std::to_string(threads) + " threads, " + std::to_string(slots()) + "/thread";
}

// A tile takes the kernel's run length V when every thread gets at least one whole
// run and runs tile it exactly; otherwise the longest shorter run that does (1 at
// worst: the plain cyclic layout).
CudaLayout CudaLayouts::for_count(std::int64_t count) const {
    CudaLayout l;
    l.count = count;
    if (count == 1) {
        l.uniform = true;
        return l;
    }
    int v = vec;
    while (v > 1 && (count % v != 0 || count < std::int64_t{threads} * v)) v /= 2;
    l.vec = v;
    std::int64_t round = std::int64_t{threads} * v;
    l.runs = (count + round - 1) / round;
    return l;
}

CudaLayout CudaLayouts::of(const ir::Node* n) const {
    auto it = values.find(n);
    return it != values.end() ? it->second : for_count(n->type.count());
}

// T: enough threads that the largest tile has about one element per thread, between
// one warp and 256; past 256 x most_per_thread() elements, up to 1024. V: the
// longest run that makes one 16-byte access (at most 8 elements) among the
// kernel's global loads and stores, shortened until it divides the tile's rows (a
// run never crosses a row, so it is contiguous in memory).
void cuda_layout(Lowered& l) {
    CudaLayouts c;
    auto widen_runs = [&](const ir::Node* tile) {
        if (tile->type.dims.empty()) return;
        int v = std::min(8, 16 / kind_bytes(tile->type.kind));
        while (tile->type.dims.back().extent % v != 0) v /= 2;
        c.vec = std::max(c.vec, v);
    };
    ir::walk(l.program->body, [&](const ir::Node& n) {
        if (!l.is_live(n)) return;
        if (ir::has_result(n.op)) c.largest = std::max(c.largest, n.type.count());
        if (n.op == OpCode::load) widen_runs(&n);
        if (n.op == OpCode::store) widen_runs(n.operands.back());
    });
    while (c.threads < c.largest && c.threads < 256) c.threads *= 2;
    while (c.threads < 1024 && c.largest > c.threads * most_per_thread()) c.threads *= 2;
    ir::walk(l.program->body, [&](const ir::Node& n) {
        if (ir::has_result(n.op) && l.is_live(n)) c.values[&n] = c.for_count(n.type.count());
    });
    l.layouts = std::move(c);
}

}  // namespace kiln::passes
