// The loop prefetch (passes/loop_prefetch.h) on the emulated cuda target: rows walked
// in column chunks by serial and pipeline loops, each chunk's loads issued during the
// iteration before. Bit for bit against the interpreter in exact precision at ragged
// widths (a masked last chunk), rows whose starts are not 16-byte aligned (shifted
// runs), a loop of one chunk and one of none; which loads go ahead and why the others
// do not, in the pass's output. ctest runs these with KILN_CUDA_LOOP_PREFETCH=1
// (kiln_emulated_tests_loop_prefetch) as well as without.
#include <gtest/gtest.h>

#include <cmath>

#include "cuda_emulator.h"
#include "examples/chunked_row_kernels.h"
#include "interp_bytes.h"
#include "passes/lower.h"
#include "tests/unit/cpu_diff.h"
#include "trace/kernel_trace.h"

using namespace kiln;
using cpu_diff::Buffer;
using emulated::expect_interp_bytes;
using catalog::rows::layernorm_chunked;
using catalog::rows::softmax_online;

namespace {

std::vector<detail::Arg> args_of(const std::vector<Buffer>& bufs) {
    std::vector<detail::Arg> a;
    for (const auto& b : bufs) a.push_back(b.arg);
    return a;
}

// The program after the loop_prefetch pass with the pass on, as `kiln ir --after
// loop_prefetch` prints it under KILN_CUDA_LOOP_PREFETCH=1.
std::string loop_prefetch_ir(const Kernel& k, const std::vector<Buffer>& bufs) {
    auto program = detail::specialize(*k.shared_impl(), args_of(bufs), Loc::here());
    passes::LowerOptions o;
    o.target = passes::TargetKind::cuda;
    o.loop_prefetch = true;
    return passes::print(passes::lower(*program, o, "loop_prefetch"));
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

constexpr std::int64_t kChunk = 256;

// y += 2 x chunk by chunk, in place: the loop stores into the view it loads, so its
// load of y waits for its iteration (the previous iteration's store could be it);
// x (bf16: 16 registers a thread at this layout's 32 elements) goes ahead.
Kernel accumulate_in_place() {
    return kernel("accumulate_in_place", [](View<const bf16, 2> x, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", kChunk);
        auto chunks = axis("chunks", ceil_div(x.extent<1>(), kChunk));
        for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
            for (auto& step : nest.serial(shape(chunks))) {
                auto at = coord(nest.index(), step.index() * kChunk);
                y(at, shape(r, c)).store(y[at, shape(r, c)] + cast<f32>(x[at, shape(r, c)]) * 2.0f);
            }
        }
    });
}

}  // namespace

TEST(EmulatedLoopPrefetch, OnlineSoftmaxChunksAhead) {
    // 1000 columns: four chunks, the last masked; 700 bf16 columns: rows 1400 bytes
    // apart, six in eight starting off 16 bytes; 256: one chunk; f32 too.
    for (std::int64_t cols : {1000, 700, 256}) {
        SCOPED_TRACE(cols);
        std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {9, cols}, 11), cpu_diff::output(Kind::BF16, {9, cols})};
        expect_interp_bytes(softmax_online<bf16>(kChunk), bufs);
        std::vector<Buffer> f = {cpu_diff::input(Kind::F32, {5, cols}, 12), cpu_diff::output(Kind::F32, {5, cols})};
        expect_interp_bytes(softmax_online<f32>(kChunk), f);
    }
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {9, 1000}, 11), cpu_diff::output(Kind::BF16, {9, 1000})};
    const std::string ir = loop_prefetch_ir(softmax_online<bf16>(kChunk), bufs);
    EXPECT_TRUE(contains(ir, "loop prefetch: 2 of 2 loads in 2 loop(s) one iteration ahead")) << ir;
    EXPECT_TRUE(contains(ir, "issued one iteration ahead")) << ir;
}

TEST(EmulatedLoopPrefetch, ChunkedLayerNormWithWeightAndBias) {
    for (std::int64_t cols : {1000, 700}) {
        SCOPED_TRACE(cols);
        std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {6, cols}, 21), cpu_diff::input(Kind::BF16, {cols}, 22, 0.5, 1.5),
                                    cpu_diff::input(Kind::BF16, {cols}, 23), cpu_diff::output(Kind::BF16, {6, cols})};
        expect_interp_bytes(layernorm_chunked<bf16>(kChunk), bufs);
    }
}

TEST(EmulatedLoopPrefetch, ALoopThatStoresIntoItsViewLoadsItInItsTurn) {
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {4, 600}, 31), cpu_diff::inout(Kind::F32, {4, 600}, 32)};
    expect_interp_bytes(accumulate_in_place(), bufs);
    const std::string ir = loop_prefetch_ir(accumulate_in_place(), bufs);
    EXPECT_TRUE(contains(ir, "not issued an iteration ahead: the loop stores into its view")) << ir;
    EXPECT_TRUE(contains(ir, "loop prefetch: 1 of 2 loads in 1 loop(s) one iteration ahead")) << ir;
}

TEST(EmulatedLoopPrefetch, AnEmptyLoopLoadsNothing) {
    // No columns: the loops run no iteration, and the first iteration's loads are not issued.
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {3, 0}, 41), cpu_diff::output(Kind::BF16, {3, 0})};
    expect_interp_bytes(softmax_online<bf16>(kChunk), bufs);
}
