// reduce_add / reduce_max / reduce_min. The interpreter folds each output's
// elements left to right in row-major order over the reduced dims, starting from
// the first, rounding after each step. That order is kept except where no
// result can tell:
//   - integer sums wrap, so any order gives the same sum;
//   - max and min of floats without NaN are the largest / smallest in one total
//     order (-0 below +0: kiln_rt::k_max picks +0 from either order), so lanes
//     of partial extremes give the same element; a line holding a NaN is folded
//     again in order, which decides which NaN comes out;
//   - in Precision::standard, f32 and f64 sums may be reassociated
//     (docs/semantics.md "Orders"): lanes of partial sums, then a tree.
// Every other case folds in the pinned order.
#include <algorithm>

#include "targets/cpu/emit_expr.h"
#include "targets/cpu/emitter.h"

namespace kiln::native {

namespace {

// Partial results per line: 256 bytes of them, four AVX-512 registers, enough
// independent chains to hide the add latency. Shorter lines than two rounds of
// lanes fold in order.
std::int64_t lanes_of(Kind k) { return 256 / ctype_bytes(k); }

// The order key of a float kind's tile values (cpu_lines.h order_key).
std::string key_type(Kind k) { return k == Kind::F32 ? "int" : "long long"; }

}  // namespace

void Emitter::emit_reduce(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const Kind k = n.type.kind;
    auto xs = ir::strides_of(xd);
    std::vector<std::size_t> kept, red;
    auto reduced = ir::reduced_dims(n);
    for (std::size_t d = 0; d < xd.size(); ++d)
        (std::find(reduced.begin(), reduced.end(), static_cast<std::int64_t>(d)) != reduced.end() ? red : kept).push_back(d);
    std::vector<ir::Dim> red_dims;
    for (auto d : red) red_dims.push_back(xd[d]);
    std::int64_t count = 1;
    for (auto& d : red_dims) count *= d.extent;
    // The reduced dims are the innermost ones: reduced position r is offset r.
    const bool suffix = red.back() == xd.size() - 1 && red.back() - red.front() + 1 == red.size();
    // Offset in x of reduced position r (row-major over the reduced dims).
    // r may be an expression ("r + l"): it is parenthesised before / % and *.
    auto red_offset = [&](const std::string& r) {
        if (suffix) return r;
        if (red.size() == 1) return paren(r) + " * " + std::to_string(xs[red[0]]);
        auto rs = ir::strides_of(red_dims);
        std::string s;
        for (std::size_t j = 0; j < red.size(); ++j)
            s += (j ? " + " : "") + paren(paren(r) + " / " + std::to_string(rs[j]) + " % " + std::to_string(red_dims[j].extent)) + " * " + std::to_string(xs[red[j]]);
        return paren(s);
    };
    // Element of x at kept coordinates `vars` and reduced position r, with its
    // coordinates (strided loads and broadcasts read by them).
    auto x_at = [&](const std::vector<std::string>& vars, const std::string& base, const std::string& r) {
        std::vector<std::string> c(xd.size());
        for (std::size_t j = 0; j < kept.size(); ++j) c[kept[j]] = vars[j];
        auto rs = ir::strides_of(red_dims);
        for (std::size_t j = 0; j < red.size(); ++j)
            c[red[j]] = red.size() == 1 ? r : paren(paren(r) + " / " + std::to_string(rs[j]) + " % " + std::to_string(red_dims[j].extent));
        return at(x, Index(base + " + " + red_offset(r), c, extents_of(xd)));
    };
    auto kept_extents = pick(extents_of(xd), kept);
    auto os = ir::strides_of(pick(xd, kept));
    const std::string T = ctype(k), C = std::to_string(count);
    const bool integer_sum = n.op == OpCode::reduce_add && !is_float(k) && k != Kind::Bool;
    // Integer sums accumulate in an unsigned type and convert once at the end
    // (modular, so the same sum). GCC 12.2 at -O2 -march=native vectorised the
    // fold `acc = (T)((U)acc + (U)x)`, whose accumulator changes signedness
    // inside the reduction cycle, into a loop that kept one lane of the partial
    // sums (fuzz seed 301, cpu_fuzz_regression_test.cpp); with the accumulator
    // unsigned throughout the cycle has no conversion and it compiles correctly.
    const std::string U = k == Kind::I64 ? "unsigned long long" : "unsigned";

    if (kept.empty() || kept.back() != xd.size() - 1) {
        // One accumulator per output, the reduced elements in the inner loop.
        const std::int64_t L = lanes_of(k);
        const bool lanes = suffix && count >= 2 * L && (k == Kind::F32 || k == Kind::F64 || k == Kind::F16 || k == Kind::BF16) &&
                           (n.op != OpCode::reduce_add || (!opts_.exact && (k == Kind::F32 || k == Kind::F64)));
        // A line of f32 elements stored contiguously (not computed in the loop).
        const Storage& xs_storage = storage(x);
        const bool contiguous_f32 = lanes && k == Kind::F32 && xs_storage.array && !xs_storage.fused && xs_storage.convert.empty() &&
                                    xs_storage.strides.empty() && x->type.kind == Kind::F32;
        if (lanes) note(n, n.op == OpCode::reduce_add ? "vector lanes and a tree (standard precision: reassociated)"
                                                    : "vector lanes on order keys; a line holding a NaN again in order");
        else note(n, "each output folded in order along its line");
        with_fast_math([&] {
            auto vars = open_loops(kept_extents, "k");
            const std::string base = linear(vars, pick(xs, kept)), out = at(&n, linear(vars, os));
            auto elem = [&](const std::string& r) { return x_at(vars, base, r); };
            auto ordered = [&] {
                line(T + " acc = " + elem("0") + ";");
                line("for (int r = 1; r < " + C + "; ++r) acc = " + combine(n.op, k, "acc", elem("r")) + ";");
                line(out + " = acc;");
            };
            if (integer_sum) {
                line(U + " acc = (" + U + ")" + elem("0") + ";");
                line("for (int r = 1; r < " + C + "; ++r) acc += (" + U + ")" + elem("r") + ";");
                line(out + " = (" + T + ")acc;");
            } else if (lanes && contiguous_f32) {
                // The line is a run of floats in an array: kiln_cpu's vector forms (cpu_lines.h).
                const std::string line_at = storage(x).name + " + " + paren(base);
                if (n.op == OpCode::reduce_add) {
                    line(out + " = kiln_cpu::c32(kiln_cpu::lane_sum64(" + line_at + ", " + C + "));");
                } else {
                    open("");
                    line("int hi, lo;");
                    line("kiln_cpu::order_key_extremes(" + line_at + ", " + C + ", hi, lo);");
                    open("if (kiln_cpu::order_key_is_nan(hi) || kiln_cpu::order_key_is_nan(lo))");
                    ordered();
                    open_else();
                    line(out + " = kiln_cpu::from_order_key(" + std::string(n.op == OpCode::reduce_max ? "hi" : "lo") + ");");
                    close();
                    close();
                }
            } else if (lanes) {
                // Lane l takes elements l, l + L, ...; the tail goes to the first lanes.
                const std::string Ls = std::to_string(L), full = std::to_string(count - count % L), tail = std::to_string(count % L);
                const bool sum = n.op == OpCode::reduce_add;
                const std::string A = sum ? T : key_type(k);
                // Lane l's step with the element at reduced position r. Max and min
                // keep both extreme keys of a lane: the answer is one of them, and a
                // NaN (keys beyond those of +-inf) shows in one of them.
                auto step = [&](const std::string& r) {
                    if (sum) return "acc[l] = acc[l] + " + elem(r) + ";";
                    return "{ const " + A + " key = kiln_cpu::order_key(" + elem(r) +
                           "); hi[l] = key > hi[l] ? key : hi[l]; lo[l] = key < lo[l] ? key : lo[l]; }";
                };
                open("");
                frame_bytes_ += 3 * L * 8;
                // The lane loops fully unrolled: only then does GCC keep the lanes in
                // vector registers across the loop over r; as loops it loads and stores
                // them every step (an f32 row maximum of 4096 elements ran 2.7x slower,
                // 2026-12-04, g++ 12, AVX-512).
                const std::string unroll = "_Pragma(\"GCC unroll " + Ls + "\") ";
                if (sum) {
                    // A chunk of the line computed into a buffer, then added to the
                    // lanes as vectors (cpu_lines.h lanes_add: GCC 12 lost lanes of
                    // the scalar form when the element held a select).
                    line("typename kiln_cpu::LaneVectors<" + A + ">::type lanes[4];");
                    line("alignas(64) " + A + " acc[" + Ls + "];");
                    line(unroll + "for (int l = 0; l < " + Ls + "; ++l) acc[l] = " + elem("l") + ";");
                    line("__builtin_memcpy(lanes, acc, sizeof lanes);");
                    open("for (int r = " + Ls + "; r < " + full + "; r += " + Ls + ")");
                    line(unroll + "for (int l = 0; l < " + Ls + "; ++l) acc[l] = " + elem("r + l") + ";");
                    line("kiln_cpu::lanes_add(lanes, acc);");
                    close();
                    line("__builtin_memcpy(acc, lanes, sizeof lanes);");
                } else {
                    line(A + " hi[" + Ls + "], lo[" + Ls + "];");
                    line(unroll + "for (int l = 0; l < " + Ls + "; ++l) hi[l] = lo[l] = kiln_cpu::order_key(" + elem("l") + ");");
                    line("for (int r = " + Ls + "; r < " + full + "; r += " + Ls + ")");
                    line("    " + unroll + "for (int l = 0; l < " + Ls + "; ++l) " + step("r + l"));
                }
                if (count % L) line("for (int l = 0; l < " + tail + "; ++l) " + step(full + " + l"));
                for (std::int64_t w = L / 2; w >= 1; w /= 2) {
                    const std::string W = std::to_string(w);
                    if (sum) line("for (int l = 0; l < " + W + "; ++l) acc[l] = acc[l] + acc[l + " + W + "];");
                    else line("for (int l = 0; l < " + W + "; ++l) { hi[l] = hi[l + " + W + "] > hi[l] ? hi[l + " + W + "] : hi[l]; lo[l] = lo[l + " + W +
                              "] < lo[l] ? lo[l + " + W + "] : lo[l]; }");
                }
                if (sum) {
                    line(out + " = " + (k == Kind::F32 ? "kiln_cpu::c32(acc[0])" : "acc[0]") + ";");
                } else {
                    open("if (kiln_cpu::order_key_is_nan(hi[0]) || kiln_cpu::order_key_is_nan(lo[0]))");
                    ordered();
                    open_else();
                    line(out + " = kiln_cpu::from_order_key(" + std::string(n.op == OpCode::reduce_max ? "hi[0]" : "lo[0]") + ");");
                    close();
                }
                close();
            } else {
                ordered();
            }
            close_loops(vars);
        });
        return;
    }
    // The innermost dim is kept: the fold steps run as the outer loop and the
    // outputs as the inner one, the same order per output, vectorised across
    // outputs.
    note(n, "vectorised across its " + std::to_string(n.type.count()) + " outputs (the innermost dim kept), each folded in order");
    with_fast_math([&] {
        std::vector<std::string> vars;  // loop_nest(kept_extents, "k") names them so
        for (std::size_t d = 0; d < kept.size(); ++d) vars.push_back("k" + std::to_string(d));
        const std::string base = linear(vars, pick(xs, kept)), e = linear(vars, os);
        const std::string o = integer_sum ? "acc[" + e + "]" : at(&n, e);
        auto nest = [&](const std::string& statement) { loop_nest(kept_extents, "k", [&](const auto&) { line(statement); }); };
        const std::string next = x_at(vars, base, "r"), first = x_at(vars, base, "0");
        if (integer_sum) {
            line(U + " acc[" + std::to_string(n.type.count()) + "];");
            frame_bytes_ += n.type.count() * 8;
            nest(o + " = (" + U + ")" + first + ";");
        } else {
            nest(o + " = " + first + ";");
        }
        open("for (int r = 1; r < " + C + "; ++r)");
        // A fold step reads a row of the operand: one step of the next iteration's
        // prefetches (emit_prefetch.cpp) beside it.
        if (!prefetch_step_.empty()) line(prefetch_step_), ++prefetch_chunks_;
        nest(integer_sum ? o + " += (" + U + ")" + next + ";" : o + " = " + combine(n.op, k, o, next) + ";");
        close();
        if (integer_sum) line("for (int e = 0; e < " + std::to_string(n.type.count()) + "; ++e) " + at(&n, "e") + " = (" + T + ")acc[e];");
    });
}

}  // namespace kiln::native
