// Rows whose start is not 16-byte aligned (emit_memory.cpp: unshift_runs, shifted_store) on the
// emulated cuda target: each lane moves the aligned chunk at the start of its run
// and takes the rest from, or hands it to, the next lane by shuffles; lanes at a
// row's or a warp's edge move the part their neighbour does not hold element by
// element. Only launches with such rows carry that code (EmitOptions::
// misaligned_rows), only for storage narrower than 4 bytes (16-bit rows only at
// KILN_CUDA_COALESCED_ELEMENTS=0 or 1, as ctest's kiln_emulated_tests_shifted_runs runs
// these: by default their elements are dealt a thread in turn). Bit for bit against the
// interpreter, over every misalignment a kind allows (5123-column bf16 rows start at byte offsets 0, 6, 12, 2, 8, ...; i8 rows
// of 1003 at every offset 0..15), narrow rows that share a warp, padded strides
// (the bytes between rows must keep their fill), and the plan that says so; wider
// kinds' whole runs in narrower vectors.
#include <gtest/gtest.h>

#include "cuda_emulator.h"
#include "interp_bytes.h"
#include "row_test_kernels.h"
#include "examples/row_kernels.h"
#include "kiln/detail/identical.h"
#include "targets/common/target_impl.h"
#include "targets/cuda/launch_args.h"
#include "tests/unit/cpu_diff.h"
#include "trace/kernel_trace.h"

using namespace kiln;
using cpu_diff::Buffer;
using emulated::add_one_rows;
using emulated::softmax_block;
using emulated::expect_interp_bytes;
namespace rows = kiln::catalog::rows;

namespace {

std::string source_of(const Kernel& k, const std::vector<Buffer>& bufs) {
    std::vector<detail::Arg> args;
    for (const auto& b : bufs) args.push_back(b.arg);
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    return emulated::cuda_emulated().impl().source(*program, args, {.precision = Precision::exact}, false);
}

}  // namespace

TEST(EmulatedMisalignedRows, Bf16SoftmaxOver5123Columns) {
    // 9 rows of 10246 bytes: row starts at byte offsets 0, 6, 12, 2, 8, 14, 4, 10, 0.
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {9, 5123}, 51), cpu_diff::output(Kind::BF16, {9, 5123})};
    expect_interp_bytes(rows::softmax<bf16>(), bufs);
    std::vector<detail::Arg> args;
    for (const auto& b : bufs) args.push_back(b.arg);
    auto program = detail::specialize(*rows::softmax<bf16>().shared_impl(), args, Loc::here());
    const std::string plan = emulated::cuda_emulated().impl().plan(*program, args, {.precision = Precision::exact});
    if (cu::emit_options(args, {.precision = Precision::exact}).misaligned_rows) {  // KILN_CUDA_COALESCED_ELEMENTS=0|1
        EXPECT_NE(source_of(rows::softmax<bf16>(), bufs).find("kc::window16"), std::string::npos);
        EXPECT_NE(plan.find("misaligned rows as aligned vectors shifted between lanes"), std::string::npos) << plan;
    } else if (cu::emit_options(args, {.precision = Precision::exact}).aligned_slots) {  // KILN_CUDA_ALIGNED_SLOTS=1
        EXPECT_NE(plan.find("slots aligned to the 16-byte boundaries"), std::string::npos) << plan;
        EXPECT_EQ(plan.find("dealt one a thread"), std::string::npos) << plan;
    } else {  // the default: dealt one element a thread in turn
        EXPECT_NE(plan.find("global load of elements dealt one a thread in turn"), std::string::npos) << plan;
        EXPECT_EQ(plan.find("shifted"), std::string::npos) << plan;
    }
}

TEST(EmulatedMisalignedRows, F16LayerNormWithAlignedVectors) {
    // 1283 f16 columns: rows at byte offsets 0, 6, 12, 2, 8; weight and bias aligned:
    // the rows' runs shift, the vectors' do not.
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::F16, {5, 1283}, 61), cpu_diff::input(Kind::F16, {1283}, 62),
                                cpu_diff::input(Kind::F16, {1283}, 63), cpu_diff::output(Kind::F16, {5, 1283})};
    expect_interp_bytes(rows::layernorm_affine<f16>(), bufs);
    // f32 rows (4-byte elements) are not shifted when misaligned: the same results.
    std::vector<Buffer> wide = {cpu_diff::input(Kind::F32, {5, 1283}, 64), cpu_diff::input(Kind::F32, {1283}, 65),
                                cpu_diff::input(Kind::F32, {1283}, 66), cpu_diff::output(Kind::F32, {5, 1283})};
    expect_interp_bytes(rows::layernorm_affine<f32>(), wide);
    EXPECT_EQ(source_of(rows::layernorm_affine<f32>(), wide).find("kc::window"), std::string::npos);
}

TEST(EmulatedMisalignedRows, WideKindsMoveWholeRunsInNarrowerVectors) {
    // 5123 f32 columns: rows at byte offsets 0, 12, 8, 4, 0, ...: a whole run of four
    // moves as one 16-byte vector, two 8-byte ones or four elements as its row's
    // start allows (emit_memory.cpp: narrower_vectors), with no bounds test an element.
    std::vector<Buffer> f32s = {cpu_diff::input(Kind::F32, {9, 5123}, 101), cpu_diff::output(Kind::F32, {9, 5123})};
    expect_interp_bytes(rows::softmax<f32>(), f32s);
    const std::string source = source_of(rows::softmax<f32>(), f32s);
    EXPECT_NE(source.find("& 7) == 0)"), std::string::npos) << "the 8-byte tier";
    EXPECT_NE(source.find("reinterpret_cast<const uint2*>("), std::string::npos);
    // 1001 f64 columns: every other row 8 bytes off, its runs of two moved an element an access.
    expect_interp_bytes(add_one_rows<f64>(), {cpu_diff::input(Kind::F64, {5, 1001}, 102), cpu_diff::output(Kind::F64, {5, 1001})});
    // An aligned launch carries none of it.
    std::vector<Buffer> aligned = {cpu_diff::input(Kind::F32, {3, 5120}, 105), cpu_diff::output(Kind::F32, {3, 5120})};
    expect_interp_bytes(rows::softmax<f32>(), aligned);
    EXPECT_EQ(source_of(rows::softmax<f32>(), aligned).find("& 7) == 0)"), std::string::npos);
}

TEST(EmulatedMisalignedRows, AlignedLaunchesCarryNoShiftingCode) {
    // 5120 columns: every row starts on a 16-byte boundary, so the kernel is the one
    // compiled before shifted runs existed (no vote, no window).
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {3, 5120}, 67), cpu_diff::output(Kind::BF16, {3, 5120})};
    expect_interp_bytes(rows::softmax<bf16>(), bufs);
    const std::string source = source_of(rows::softmax<bf16>(), bufs);
    EXPECT_EQ(source.find("kc::window16("), source.rfind("kc::window16("));  // only the prelude's definition
    EXPECT_EQ(source.find("if (__any_sync("), std::string::npos);
}

TEST(EmulatedMisalignedRows, I8RowsAtEveryByteOffset) {
    // 1003-byte rows: 16 consecutive rows start at all 16 offsets; a 16-byte run is 16 elements.
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::I8, {17, 1003}, 71, -100, 100), cpu_diff::output(Kind::I8, {17, 1003})};
    expect_interp_bytes(add_one_rows<i8>(), bufs);
    expect_interp_bytes(add_one_rows<i8>(), bufs, Precision::standard);
}

TEST(EmulatedMisalignedRows, NarrowRowsShareAWarp) {
    // 100 bf16 columns: several rows a warp, alternately aligned and 8 bytes off;
    // a lane's neighbour may hold the next row's first run (not adjacent in memory).
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {37, 100}, 81), cpu_diff::input(Kind::BF16, {100}, 82),
                                cpu_diff::input(Kind::BF16, {100}, 83), cpu_diff::output(Kind::BF16, {37, 100})};
    expect_interp_bytes(rows::layernorm_affine<bf16>(), bufs);
}

TEST(EmulatedMisalignedRows, PaddedStridesKeepTheBytesBetweenRows) {
    // Rows of 4096 bf16 elements 4099 apart: every row but the first is misaligned,
    // and the three elements after each row belong to no one (their fill must stay).
    const Buffer x = cpu_diff::input(Kind::BF16, {6, 4096}, 91, -4, 4, false, {4099, 1});
    const Buffer y = emulated::output_like(x);
    std::vector<Buffer> bufs = {x, y};
    expect_interp_bytes(add_one_rows<bf16>(), bufs);
    expect_interp_bytes(rows::rmsnorm_weighted<bf16>(), {x, cpu_diff::input(Kind::BF16, {4096}, 92), y});
}

// Rows dealt one element a thread in turn (the default for misaligned 16-bit rows)
// move without per-element tests or addressing where the whole row is in its view
// with a unit stride (emit_memory.cpp: each_run); a block wider than the row and a
// view with a stride of 2 take the checked path.
TEST(EmulatedMisalignedRows, DealtRowsWholeInTheirViewOrNot) {
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {9, 5123}, 61), cpu_diff::output(Kind::BF16, {9, 5123})};
    std::vector<detail::Arg> args;
    for (const auto& b : bufs) args.push_back(b.arg);
    const cu::EmitOptions o = cu::emit_options(args, {.precision = Precision::exact});
    if (o.coalesced_elements == 0) GTEST_SKIP() << "KILN_CUDA_COALESCED_ELEMENTS=0: not dealt";
    if (o.aligned_slots) GTEST_SKIP() << "KILN_CUDA_ALIGNED_SLOTS=1: these rows are held from their boundaries, not dealt";
    expect_interp_bytes(add_one_rows<bf16>(), bufs);
    if (cu::emit_options(args, {.precision = Precision::exact}).whole_rows)  // (KILN_CUDA_WHOLE_ROWS=0: every element tested)
        EXPECT_NE(source_of(add_one_rows<bf16>(), bufs).find("whole_row"), std::string::npos) << "the whole-row path";
    // A block of 8192 columns over rows of 5123: never whole, read with -inf past the row.
    expect_interp_bytes(softmax_block<bf16>(8192), bufs);
    // Every other element of rows 2 x 5123 apart (a stride of 2: no row is whole).
    const Buffer strided = cpu_diff::input(Kind::BF16, {9, 5123}, 62, -4, 4, false, {2 * 5123, 2});
    expect_interp_bytes(add_one_rows<bf16>(), {strided, cpu_diff::output(Kind::BF16, {9, 5123})});
    expect_interp_bytes(rows::softmax<bf16>(), {strided, cpu_diff::output(Kind::BF16, {9, 5123})});
}
