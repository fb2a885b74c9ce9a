// The verifier's rules on structure, arity, operands and attribute ranges, one
// corrupted node per test: a valid program is traced through the public API
// (verifier_programs.h), one node is broken the way a buggy pass or tracer might
// break it, and the verifier must reject it with an internal error naming the
// op, where the node was written and the rule. The per-op rules (shapes, folds,
// contraction, movement, memory, loops) are in verifier_ops_test.cpp.
#include "verifier_programs.h"

using namespace verifier_test;

TEST(Verifier, TracedProgramsVerify) {
    EXPECT_NO_THROW(check::verify(*tile_ops_program()));
    EXPECT_NO_THROW(check::verify(*gemm_program()));
    EXPECT_NO_THROW(check::verify(*memory_program()));
}

// ---- structure

TEST(Verifier, OpCodeOutsideOpsDef) {
    auto p = tile_ops_program();
    node(*p, OpCode::exp).op = static_cast<OpCode>(200);
    expect_rejected(*p, "?", line(at.exp), "op code", "op code 200 is not in ops.def");
}

TEST(Verifier, NodeWhoseParentIsAnotherRegion) {
    auto p = tile_ops_program();
    node(*p, OpCode::exp).parent = &p->body;
    expect_rejected(*p, "exp", line(at.exp), "region membership", "the node's parent is not the region that lists it");
}

TEST(Verifier, UseBeforeDefinition) {
    auto p = tile_ops_program();
    node(*p, OpCode::exp).operands[0] = &node(*p, OpCode::mul);  // defined on the next line
    expect_rejected(*p, "exp", line(at.exp), "dominance", "operand 0 is not defined before its use");
}

TEST(Verifier, UseOfAnotherLoopsIndex) {
    auto p = gemm_program();
    // The pipeline's index used after the pipeline ended, in the serial loop.
    ir::Node& mul = *node(*p, OpCode::loop, 2).body->nodes.front();
    ASSERT_EQ(mul.op, OpCode::mul);
    mul.operands[1] = node(*p, OpCode::loop, 1).body->args[0];
    expect_rejected(*p, "mul", line(at.half), "dominance", "operand 1 is not defined");
}

TEST(Verifier, YieldBeforeTheEndOfItsBody) {
    auto p = gemm_program();
    ir::Region& body = *node(*p, OpCode::loop, 1).body;
    ir::Node* early = p->make(OpCode::yield);  // a second yield, before the body's own
    early->operands = body.nodes.back()->operands;
    early->parent = &body;
    early->loc = body.nodes.back()->loc;
    body.nodes.insert(body.nodes.end() - 1, early);
    expect_rejected(*p, "yield", line(at.pipeline), "yield placement", "a loop body ends with its yield, and only there");
}

TEST(Verifier, ParallelLoopInsideTheGrid) {
    auto p = gemm_program();
    ir::set_loop(node(*p, OpCode::loop, 2), detail::LoopKind::parallel, {1234});
    expect_rejected(*p, "loop", line(at.serial), "loop nesting", "a parallel loop that is not the program's grid");
}

TEST(Verifier, GridThatIsNotTheTopLevelParallelLoop) {
    auto p = gemm_program();
    p->grid = &node(*p, OpCode::loop, 2);
    expect_rejected(*p, "loop", line(at.serial), "grid", "the grid is not a parallel loop of the kernel's body");
}

// ---- arity (ops.def's column; the variable-arity ops have a rule each)

TEST(Verifier, FixedArity) {
    auto p = tile_ops_program();
    ir::Node& e = node(*p, OpCode::exp);
    e.operands.push_back(e.operands[0]);
    expect_rejected(*p, "exp", line(at.exp), "arity", "2 operands, ops.def says 1");
}

TEST(Verifier, LoadArityWithFallbackFlagButNoFallback) {
    auto p = tile_ops_program();
    ir::set_bounds(node(*p, OpCode::load), bounds::zero, true);
    expect_rejected(*p, "load", line(at.load), "arity", "2 operands for 2 origins and a fallback");
}

TEST(Verifier, StoreArity) {
    auto p = tile_ops_program();
    ir::Node& st = node(*p, OpCode::store);
    st.operands.erase(st.operands.begin());
    expect_rejected(*p, "store", line(at.store_y), "arity", "2 operands for 2 origins and a value");
}

TEST(Verifier, ReindexArity) {
    auto p = tile_ops_program();
    node(*p, OpCode::reindex).operands.pop_back();
    expect_rejected(*p, "reindex", line(at.reindex), "arity", "2 operands; a source and one coordinate per source dim expected");
}

TEST(Verifier, LoopArity) {
    auto p = gemm_program();
    ir::Node& pipe = node(*p, OpCode::loop, 1);
    ir::set_loop(pipe, detail::LoopKind::pipeline, {1, 2, 3});  // three axes, one extent and one carried value
    expect_rejected(*p, "loop", line(at.pipeline), "arity", "2 operands for a domain of 3 axes");
}

// ---- operands and results

TEST(Verifier, OperandWithoutValue) {
    auto p = gemm_program();
    ir::Node& st = node(*p, OpCode::store);
    st.operands.back() = &node(*p, OpCode::loop, 1);
    expect_rejected(*p, "store", line(at.store_c), "operand values", "an operand is a loop, which has no value");
}

TEST(Verifier, OperandKindOutsideOpsDefKinds) {
    auto p = tile_ops_program();
    ir::Node& e = node(*p, OpCode::exp);
    e.operands[0] = constant(*p, Type{Kind::I32, e.type.dims});
    expect_rejected(*p, "exp", line(at.exp), "operand kinds", "operand 0 is i32 1x8 (r, c); ops.def allows floating-point kinds");
}

TEST(Verifier, IndexOpGivingAnotherKind) {
    auto p = tile_ops_program();
    node(*p, OpCode::argmax).type.kind = Kind::I32;
    expect_rejected(*p, "argmax", line(at.argmax), "result kind", "result i32 1 (r) is not i64 (ops.def marks it index_value)");
}

TEST(Verifier, ElementwiseOperandOfOtherDims) {
    auto p = tile_ops_program();
    node(*p, OpCode::exp).operands[0] = constant(*p, f32_tile({{2, 0}, {3, 0}}));
    expect_rejected(*p, "exp", line(at.exp), "elementwise dims", "operand 0 f32 2x3 is neither a scalar nor of the result's dims 1x8 (r, c)");
}

TEST(Verifier, UnaryChangingKind) {
    auto p = tile_ops_program();
    node(*p, OpCode::exp).type.kind = Kind::F64;
    expect_rejected(*p, "exp", line(at.exp), "unary kind", "result f64 1x8 (r, c) is not f32 (the operand's kind)");
}

TEST(Verifier, BinaryOperandsOfTwoKinds) {
    auto p = tile_ops_program();
    node(*p, OpCode::mul).operands[1] = constant(*p, Type{Kind::F64, {}});
    expect_rejected(*p, "mul", line(at.mul), "binary kinds", "operand kinds differ: f32 1x8 (r, c) vs f64 scalar");
}

TEST(Verifier, ComparisonNotGivingBool) {
    auto p = tile_ops_program();
    node(*p, OpCode::gt).type.kind = Kind::F32;
    expect_rejected(*p, "gt", line(at.gt), "compare kinds", "result f32 1x8 (r, c) is not bool (comparisons give bool)");
}

TEST(Verifier, SelectOnANonBoolCondition) {
    auto p = tile_ops_program();
    ir::Node& sel = node(*p, OpCode::select);
    sel.operands[0] = constant(*p, sel.type);
    expect_rejected(*p, "select", line(at.ite), "select kinds", "the condition is f32 1x8 (r, c), not bool");
}

TEST(Verifier, CastToAnotherKindThanItsResult) {
    auto p = tile_ops_program();
    ir::set_cast_to(node(*p, OpCode::cast), Kind::I32);
    expect_rejected(*p, "cast", line(at.cast), "cast kind", "result f32 1 (r) is not i32 (the cast's target kind)");
}

TEST(Verifier, CastToNoKind) {
    auto p = tile_ops_program();
    ir::set_cast_to(node(*p, OpCode::cast), static_cast<Kind>(77));
    expect_rejected(*p, "cast", line(at.cast), "cast kind", "the target kind is not a kind");
}

// ---- attribute ranges

TEST(Verifier, ParamIndexOutOfRange) {
    auto p = tile_ops_program();
    ir::set_param_index(node(*p, OpCode::load), 7);
    expect_rejected(*p, "load", line(at.load), "param", "parameter 7 of a kernel with 4");
}

TEST(Verifier, ScalarParamNamingAView) {
    auto p = tile_ops_program();
    ir::set_param_index(node(*p, OpCode::param), 1);
    expect_rejected(*p, "param", "an unknown location (the kernel is at " + line(at.tile_ops) + ")", "param",
                    "parameter 1 (View<f32, 2>) is a view, not a scalar");
}

TEST(Verifier, ViewDimOutOfRange) {
    auto p = tile_ops_program();
    ir::set_view_dim(node(*p, OpCode::view_extent), 2);
    expect_rejected(*p, "view_extent", "an unknown location (the kernel is at " + line(at.tile_ops) + ")", "view dim",
                    "dim 2 of a rank-2 view (View<const f32, 2>)");
}

TEST(Verifier, TileDimOutOfRange) {
    auto p = tile_ops_program();
    ir::set_tile_dim(node(*p, OpCode::scan_add), 2);
    expect_rejected(*p, "scan_add", line(at.scan), "tile dim", "dim 2 of an operand f32 1x8 (r, c)");
}

TEST(Verifier, ReducedDimsNotAscending) {
    auto p = tile_ops_program();
    ir::set_reduced_dims(node(*p, OpCode::reduce_add), {1, 0});
    expect_rejected(*p, "reduce_add", line(at.reduce), "reduced dims", "dims [1, 0] are not ascending");
}

TEST(Verifier, TopkCountBeyondTheExtent) {
    auto p = tile_ops_program();
    ir::set_topk_count(node(*p, OpCode::topk_values), 9);
    expect_rejected(*p, "topk_values", line(at.topk), "topk count", "count 9 outside 1..8");
}

TEST(Verifier, BoundsPolicyOutsideTheThree) {
    auto p = tile_ops_program();
    ir::set_bounds(node(*p, OpCode::load), static_cast<bounds::Policy>(7), false);
    expect_rejected(*p, "load", line(at.load), "bounds policy", "policy 7 is not zero, check or assume");
}

TEST(Verifier, MemoryLayoutWithTooFewStrides) {
    auto p = memory_program();
    ir::set_mem_layout(node(*p, OpCode::mem_store), {6}, mem::auto_);
    expect_rejected(*p, "mem_store", line(at.mem_store), "memory layout", "[6] strides for a f32 4x6 (r, c) resource");
}

TEST(Verifier, PipelineWindowZero) {
    auto p = gemm_program();
    ir::set_pipeline_window(node(*p, OpCode::loop, 1), 0);
    expect_rejected(*p, "loop", line(at.pipeline), "loop kind", "window 0 < 1");
}

// The one user-facing rule keeps its wording and the user's line.
TEST(Verifier, StoreOutsideTheGridIsAUserError) {
    unsigned store_line = 0;
    auto k = kernel("outside", [&](View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("g", 2)))) (void)nest;
        store_line = __LINE__; y(coord(0), shape(axis("c", 2))).store(zeros<f32>(shape(axis("c2", 2))));
    });
    try {
        detail::specialize(*k.shared_impl(), {view_arg(Kind::F32, {4})}, Loc::here());
        ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "verifier_test.cpp:" + std::to_string(store_line) + ": store: a store outside the parallel nest would be performed by every instance; move it inside");
    }
}
