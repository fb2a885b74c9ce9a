// Programs for the verifier's tests: three small kernels that between them use
// every family of ops, traced through the public API into programs a test may
// corrupt, and the helpers that find a node, add a well-formed constant and
// check the verifier's message.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kiln/kiln.h>

#include "check/verify.h"
#include "ir/attrs.h"
#include "trace/kernel_trace.h"

namespace verifier_test {

using namespace kiln;
using detail::Dim;
using detail::OpCode;
using detail::Type;
using ::testing::HasSubstr;

// Source lines of the ops below, recorded while they are traced.
struct Lines {
    unsigned tile_ops, load, exp, mul, gt, ite, reduce, scan, argmax, sort, topk, gather, permute, slice, reindex, cast, store_y,
        store_idx;
    unsigned zeros, pipeline, stage, mma, serial, half, store_c;
    unsigned mem_store, mem_load;
};
inline Lines at;

inline Kernel tile_ops() {
    at.tile_ops = __LINE__; return kernel("tile_ops", [](View<const f32, 2> x, View<f32, 2> y, View<i64, 2> idx, Scalar<f32> alpha) {
        auto rows = axis("rows", x.extent(0));
        auto r = axis("r", 1), c = axis("c", 8), k = axis("k", 3);
        for (auto& nest : parallel(shape(rows))) {
            at.load = __LINE__; auto v = x[coord(nest.index(), 0), shape(r, c)];
            at.exp = __LINE__; auto e = exp(v);
            at.mul = __LINE__; auto scaled = e * alpha;
            at.gt = __LINE__; auto positive = v > 0.0f;
            at.ite = __LINE__; auto m = ite(positive, scaled, v);
            at.reduce = __LINE__; auto s = m - reduce(m, c, add);
            at.scan = __LINE__; auto sc = scan(s, c, add);
            at.argmax = __LINE__; auto am = argmax(sc, c);
            at.sort = __LINE__; auto sorted = sort(sc, c);
            at.topk = __LINE__; auto best = topk(sc, c, 3);
            at.gather = __LINE__; auto g = gather(sc, am, c);
            at.permute = __LINE__; auto t = transpose(sc);
            at.slice = __LINE__; Tile<f32> w(detail::slice(t.value(), {2, 0}, {4, 1}, Loc::here()));
            at.reindex = __LINE__; auto rx = reindex(sc, shape(r, c), [&](const Nest& p) { return coord(p.index(r), p.index(c)); });
            at.cast = __LINE__; auto am_f = cast<f32>(am);
            at.store_y = __LINE__; y(coord(nest.index(), 0), shape(r, c)).store(rx + sorted.values + g + am_f);
            at.store_idx = __LINE__; idx(coord(nest.index(), 0), shape(r, k)).store(best.indices);
            (void)w;
        }
    });
}

inline Kernel gemm() {
    return kernel("gemm", [](View<const f16, 2> A, View<const f16, 2> B, View<f32, 2> C) {
        auto gm = axis("gm", ceil_div(A.extent(0), 8)), gn = axis("gn", ceil_div(B.extent(1), 8));
        auto kt = axis("kt", ceil_div(A.extent(1), 8));
        auto m = axis("m", 8), n = axis("n", 8), k = axis("k", 8);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 8, n0 = nest.index(gn) * 8;
            at.zeros = __LINE__; auto acc = zeros<f32>(shape(m, n));
            at.pipeline = __LINE__; for (auto& step : nest.pipeline(shape(kt), {.window = 2, .interval = 1})) {
                auto k0 = step.index() * 8;
                at.stage = __LINE__; step.stage("load");
                auto a = A[coord(m0, k0), shape(m, k)];
                auto b = B[coord(k0, n0), shape(k, n)];
                at.mma = __LINE__; acc = mma(a, b, acc);
            }
            at.serial = __LINE__; for (auto& twice : nest.serial(shape(axis("twice", 2)))) {
                (void)twice;
                at.half = __LINE__; acc = acc * 0.5f;
            }
            at.store_c = __LINE__; C(coord(m0, n0), shape(m, n)).store(acc);
        }
    });
}

inline Kernel memory_kernel() {
    return kernel("memory", [](View<const f32, 2> x, View<f32, 2> y) {
        auto g = axis("g", ceil_div(x.extent(0), 4));
        auto r = axis("r", 4), c = axis("c", 6);
        for (auto& nest : parallel(shape(g))) {
            auto buf = memory<f32>(layout(shape(r, c), stride(6, 1)));
            auto v = x[coord(nest.index() * 4, 0), shape(r, c)];
            at.mem_store = __LINE__; buf.store(v);
            at.mem_load = __LINE__; auto back = buf.load();
            y(coord(nest.index() * 4, 0), shape(r, c)).store(back);
        }
    });
}

inline detail::Arg view_arg(Kind k, std::vector<std::int64_t> extents) {
    detail::Arg a;
    a.kind = k;
    a.strides = detail::row_major_strides(extents);
    a.extents = std::move(extents);
    return a;
}

// The program a launch would trace and verify, handed out mutable: specialize
// creates it non-const, and each test traces its own kernel, so corrupting this
// one program touches nothing another test sees.
inline std::shared_ptr<ir::Program> traced(const Kernel& k, const std::vector<detail::Arg>& args) {
    return std::const_pointer_cast<ir::Program>(detail::specialize(*k.shared_impl(), args, Loc::here()));
}
inline std::shared_ptr<ir::Program> tile_ops_program() {
    detail::Arg alpha;
    alpha.is_view = false;
    alpha.kind = Kind::F32;
    alpha.f = 2.0;
    return traced(tile_ops(), {view_arg(Kind::F32, {5, 8}), view_arg(Kind::F32, {5, 8}), view_arg(Kind::I64, {5, 3}), alpha});
}
inline std::shared_ptr<ir::Program> gemm_program() {
    return traced(gemm(), {view_arg(Kind::F16, {16, 16}), view_arg(Kind::F16, {16, 16}), view_arg(Kind::F32, {16, 16})});
}
inline std::shared_ptr<ir::Program> memory_program() { return traced(memory_kernel(), {view_arg(Kind::F32, {8, 6}), view_arg(Kind::F32, {8, 6})}); }

// The k-th node (program order) of an op.
inline ir::Node& node(ir::Program& p, OpCode op, int k = 0) {
    ir::Node* found = nullptr;
    ir::walk(p.body, [&](ir::Node& n) {
        if (n.op == op && k-- == 0 && !found) found = &n;
    });
    if (!found) throw std::runtime_error("no such node: " + std::string(detail::op_name(op)));
    return *found;
}

// A well-formed constant of type t (zeros) at the top of the kernel's body, where
// every node can use it.
inline ir::Node* constant(ir::Program& p, Type t) {
    ir::Node* n = p.make(OpCode::constant);
    auto data = std::make_shared<detail::EagerData>();
    if (is_float(t.kind)) data->floats.assign(static_cast<std::size_t>(t.count()), 0.0);
    else data->ints.assign(static_cast<std::size_t>(t.count()), 0);
    n->type = std::move(t);
    n->data = std::move(data);
    n->parent = &p.body;
    p.body.nodes.insert(p.body.nodes.begin(), n);
    return n;
}

inline std::string line(unsigned l) { return "verifier_programs.h:" + std::to_string(l); }

// The verifier's message for p, which must be an internal error.
inline std::string rejection(const ir::Program& p) {
    try {
        check::verify(p);
    } catch (const InternalError& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("not an internal error: ") + e.what();
    }
    return "(the verifier accepted the program)";
}

// "<op> at <where> breaks the rule '<rule>': <what>..."
inline void expect_rejected(const ir::Program& p, std::string_view op, const std::string& where, std::string_view rule, std::string_view what) {
    std::string msg = rejection(p);
    EXPECT_THAT(msg, HasSubstr("kiln internal error"));
    EXPECT_THAT(msg, HasSubstr("kernel '" + p.name + "': " + std::string(op) + " at " + where + " breaks the rule '" + std::string(rule) + "': " +
                               std::string(what)));
}

inline Type f32_tile(std::vector<Dim> dims) { return Type{Kind::F32, std::move(dims)}; }

}  // namespace verifier_test
