// The verifier's per-op rules (shape ops, folds, contraction, movement, memory,
// leaves, loops), one corrupted node per test; see verifier_test.cpp.
#include "verifier_programs.h"

using namespace verifier_test;

// ---- shape ops

TEST(Verifier, ShapeOpChangingKind) {
    auto p = tile_ops_program();
    node(*p, OpCode::broadcast).type.kind = Kind::F64;
    expect_rejected(*p, "broadcast", line(at.reduce), "shape kind", "result f64 1x8 (r, c) is not f32 (shape ops keep the kind)");
}

TEST(Verifier, FullOfATile) {
    auto p = gemm_program();
    ir::Node& f = node(*p, OpCode::full);
    f.operands[0] = constant(*p, f.type);
    expect_rejected(*p, "full", line(at.zeros), "full", "the fill value f32 8x8 (m, n) is not a scalar");
}

TEST(Verifier, BroadcastDimMapOutOfRange) {
    auto p = tile_ops_program();
    ir::set_dim_map(node(*p, OpCode::broadcast), {3});
    expect_rejected(*p, "broadcast", line(at.reduce), "broadcast dim map",
                    "dim map [3] does not send the operand's dims to distinct dims of a rank-2 result");
}

TEST(Verifier, ReshapeChangingTheCount) {
    auto p = tile_ops_program();
    node(*p, OpCode::reshape).type.dims = {{1, 0}, {4, 0}};
    expect_rejected(*p, "reshape", line(at.store_idx), "reshape count", "1x3 (r, _) reshaped to 1x4");
}

TEST(Verifier, PermuteDimMapInconsistentWithTheDims) {
    auto p = tile_ops_program();
    ir::set_dim_map(node(*p, OpCode::permute), {0, 1});
    expect_rejected(*p, "permute", line(at.permute), "permute dim map", "result 8x1 (c, r) is not operand 1x8 (r, c) permuted by [0, 1]");
}

TEST(Verifier, SliceWindowOutsideTheOperand) {
    auto p = tile_ops_program();
    ir::set_slice_starts(node(*p, OpCode::slice), {6, 0});
    expect_rejected(*p, "slice", line(at.slice), "slice window", "window [6, 0] + 4x1 (_, r) is outside the operand 8x1 (c, r)");
}

// ---- folds, contraction, movement

TEST(Verifier, ReductionKeepingTheReducedDim) {
    auto p = tile_ops_program();
    ir::Node& red = node(*p, OpCode::reduce_add);
    red.type.dims = red.operands[0]->type.dims;
    expect_rejected(*p, "reduce_add", line(at.reduce), "reduction result", "result dims 1x8 (r, c), expected 1 (r)");
}

TEST(Verifier, ArgReductionResultDims) {
    auto p = tile_ops_program();
    node(*p, OpCode::argmax).type.dims = {{1, 0}};
    expect_rejected(*p, "argmax", line(at.argmax), "arg reduction result", "result dims 1, expected 1 (r)");
}

TEST(Verifier, ScanChangingItsType) {
    auto p = tile_ops_program();
    node(*p, OpCode::scan_add).type.dims.pop_back();
    expect_rejected(*p, "scan_add", line(at.scan), "scan result", "result f32 1 (r) is not the operand's type f32 1x8 (r, c)");
}

TEST(Verifier, SortValuesOfAnotherKind) {
    auto p = tile_ops_program();
    node(*p, OpCode::sort_values).type.kind = Kind::I64;
    expect_rejected(*p, "sort_values", line(at.sort), "sort result", "result i64 1x8 (r, c) is not f32 (the operand's kind)");
}

TEST(Verifier, TopkResultDimsDisagreeWithCount) {
    auto p = tile_ops_program();
    node(*p, OpCode::topk_indices).type.dims[1].extent = 4;
    expect_rejected(*p, "topk_indices", line(at.topk), "sort result", "result dims 1x4 (r, _), expected 1x3 (r, _)");
}

TEST(Verifier, MmaKindCombination) {
    auto p = gemm_program();
    ir::Node& mma = node(*p, OpCode::mma);
    mma.operands[0] = constant(*p, Type{Kind::I8, mma.operands[0]->type.dims});
    mma.operands[1] = constant(*p, Type{Kind::I8, mma.operands[1]->type.dims});
    expect_rejected(*p, "mma", line(at.mma), "mma kinds", "operands of i8 cannot accumulate into f32");
}

TEST(Verifier, MmaDimMapContractingTheWrongDim) {
    auto p = gemm_program();
    ir::Node& mma = node(*p, OpCode::mma);
    ASSERT_TRUE(ir::mma_dims(mma).is_matmul());
    ir::set_dim_map(mma, ir::encode_mma_dims({{{0, -1}, {-1, 1}}, {{1, 1}}}));  // contracts b's n with a's k
    expect_rejected(*p, "mma", line(at.mma), "mma dim map", "dim 0 of the second operand is used 0 times, not once");
}

TEST(Verifier, MmaDimMapTruncated) {
    auto p = gemm_program();
    ir::set_dim_map(node(*p, OpCode::mma), {2, 0, -1, -1, 1, 1});
    expect_rejected(*p, "mma", line(at.mma), "mma dim map", "dim map [2, 0, -1, -1, 1, 1] is not [n_out, (a, b) per output dim");
}

TEST(Verifier, GatherIndexNotI64) {
    auto p = tile_ops_program();
    ir::Node& g = node(*p, OpCode::gather);
    g.operands[1] = constant(*p, Type{Kind::I32, g.type.dims});
    expect_rejected(*p, "gather", line(at.gather), "gather", "the index i32 1 (r) is not i64 of the result's dims");
}

TEST(Verifier, ReindexCoordinateOfOtherDims) {
    auto p = tile_ops_program();
    node(*p, OpCode::reindex).operands[1] = constant(*p, Type{Kind::I64, {{8, 0}}});
    expect_rejected(*p, "reindex", line(at.reindex), "reindex", "coordinate 0 i64 8 is not i64 of the result's dims");
}

// ---- memory

TEST(Verifier, StoreOfTheWrongKind) {
    auto p = tile_ops_program();
    ir::Node& st = node(*p, OpCode::store);
    st.operands.back() = constant(*p, Type{Kind::F64, st.operands.back()->type.dims});
    expect_rejected(*p, "store", line(at.store_y), "view access", "stored value f64 1x8 (r, c) is not of the view's kind (View<f32, 2>)");
}

TEST(Verifier, LoadOriginNotI64) {
    auto p = tile_ops_program();
    node(*p, OpCode::load).operands[1] = constant(*p, Type{Kind::I32, {}});
    expect_rejected(*p, "load", line(at.load), "view access", "origin 1 is i32 scalar, not an i64 scalar");
}

TEST(Verifier, LoadOfAnotherRank) {
    auto p = tile_ops_program();
    node(*p, OpCode::load).type.dims.pop_back();
    expect_rejected(*p, "load", line(at.load), "view access", "result f32 1 (r) does not have the view's rank (View<const f32, 2>)");
}

TEST(Verifier, StoreToAReadOnlyView) {
    auto p = tile_ops_program();
    ir::set_param_index(node(*p, OpCode::store), 0);
    expect_rejected(*p, "store", line(at.store_y), "view access", "stores to a read-only view (View<const f32, 2>)");
}

TEST(Verifier, MemoryResourceOfAnotherType) {
    auto p = memory_program();
    node(*p, OpCode::mem_store).type.kind = Kind::F64;
    expect_rejected(*p, "mem_store", line(at.mem_store), "memory resource", "the stored value f32 4x6 (r, c) is not the resource's f64 4x6 (r, c)");
}

TEST(Verifier, MemoryReadOfAnotherType) {
    auto p = memory_program();
    node(*p, OpCode::mem_load).type.dims[0].extent = 2;
    expect_rejected(*p, "mem_load", line(at.mem_load), "memory read", "result f32 2x6 (r, c) is not the resource's f32 4x6 (r, c)");
}

// ---- leaves

TEST(Verifier, ConstantDataOfTheWrongSize) {
    auto p = tile_ops_program();
    ir::Node* c = constant(*p, f32_tile({{2, 0}}));
    c->type.dims[0].extent = 3;
    expect_rejected(*p, "constant", "an unknown location (the kernel is at " + line(at.tile_ops) + ")", "constant data",
                    "2 elements of data for a f32 3 constant");
}

TEST(Verifier, IotaOfTwoDims) {
    auto p = tile_ops_program();
    node(*p, OpCode::iota).type.dims = {{2, 0}, {3, 0}};
    expect_rejected(*p, "iota", line(at.reindex), "iota", "result i64 2x3 is not one-dimensional");
}

// ---- loops

TEST(Verifier, LoopExtentNotI64) {
    auto p = gemm_program();
    node(*p, OpCode::loop, 1).operands[0] = constant(*p, Type{Kind::I32, {}});
    expect_rejected(*p, "loop", line(at.pipeline), "loop extents", "extent 0 is i32 scalar, not an i64 scalar");
}

TEST(Verifier, YieldOfTooFewValues) {
    auto p = gemm_program();
    node(*p, OpCode::loop, 1).body->nodes.back()->operands.clear();  // the pipeline's yield
    expect_rejected(*p, "loop", line(at.pipeline), "loop body", "the yield gives 0 values for 1 carried slots");
}

TEST(Verifier, RegionArgOfAnotherRegion) {
    auto p = gemm_program();
    ir::Node& pipe = node(*p, OpCode::loop, 1);
    pipe.body->args[1]->parent = node(*p, OpCode::loop, 2).body.get();
    expect_rejected(*p, "loop", line(at.pipeline), "loop body", "body arg 1 belongs to another region");
}

TEST(Verifier, CarriedArgOfAnotherType) {
    auto p = gemm_program();
    node(*p, OpCode::loop, 1).body->args[1]->type.kind = Kind::F16;
    expect_rejected(*p, "loop", line(at.pipeline), "loop body", "body arg 1 is f16 8x8 (m, n), not f32 8x8 (m, n) (its carried initial value)");
}

TEST(Verifier, LoopResultSlotOutOfRange) {
    auto p = gemm_program();
    ir::set_slot(node(*p, OpCode::loop_result), 1);
    expect_rejected(*p, "loop_result", line(at.pipeline), "loop_result slot", "slot 1 of a loop carrying 1 values");
}

TEST(Verifier, StageOutsideAPipeline) {
    auto p = gemm_program();
    ir::set_loop(node(*p, OpCode::loop, 1), detail::LoopKind::serial, {ir::loop_axes(node(*p, OpCode::loop, 1))[0]});
    expect_rejected(*p, "stage", line(at.stage), "stage", "a stage marker outside a pipeline loop's body");
}
