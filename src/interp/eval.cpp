#include "interp/eval.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "interp/semantics.h"
#include "ir/attrs.h"
#include "ir/tile_geometry.h"

namespace kiln::ref {

using detail::OpCode;
using ir::EagerData;
using ir::Node;


namespace {

std::shared_ptr<EagerData> make(Kind k, std::int64_t count) {
    auto d = std::make_shared<EagerData>();
    if (is_float(k)) d->floats.assign(static_cast<std::size_t>(count), 0.0);
    else d->ints.assign(static_cast<std::size_t>(count), 0);
    return d;
}

// Element k of an operand that is either full-size or a scalar.
double fget(const EagerData& d, std::int64_t k) { return d.floats.size() == 1 ? d.floats[0] : d.floats[static_cast<std::size_t>(k)]; }
std::int64_t iget(const EagerData& d, std::int64_t k) { return d.ints.size() == 1 ? d.ints[0] : d.ints[static_cast<std::size_t>(k)]; }

// Unflattens a row-major position into per-dim indices.
void unflatten(std::int64_t pos, const std::vector<ir::Dim>& dims, std::vector<std::int64_t>& idx) {
    idx.resize(dims.size());
    for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
        auto e = dims[static_cast<std::size_t>(k)].extent;
        idx[static_cast<std::size_t>(k)] = pos % e;
        pos /= e;
    }
}

// Copies element `from` of src into element `to` of dst (same storage class).
void copy_elem(const EagerData& src, std::int64_t from, EagerData& dst, std::int64_t to) {
    if (!dst.floats.empty()) dst.floats[static_cast<std::size_t>(to)] = src.floats[static_cast<std::size_t>(from)];
    else dst.ints[static_cast<std::size_t>(to)] = src.ints[static_cast<std::size_t>(from)];
}

// Lines along one dim: for each position of the other dims, the base offset and stride.
struct Lines {
    std::vector<std::int64_t> bases;
    std::int64_t stride = 1;
    std::int64_t length = 1;
};
Lines lines_along(const std::vector<ir::Dim>& dims, int axis) {
    Lines l;
    auto st = ir::strides_of(dims);
    l.stride = st[static_cast<std::size_t>(axis)];
    l.length = dims[static_cast<std::size_t>(axis)].extent;
    std::int64_t total = 1;
    for (auto& d : dims) total *= d.extent;
    for (std::int64_t p = 0; p < total; ++p) {
        std::vector<std::int64_t> idx;
        unflatten(p, dims, idx);
        if (idx[static_cast<std::size_t>(axis)] == 0) l.bases.push_back(p);
    }
    return l;
}

bool float_less_nan_last(double a, double b) { return (!std::isnan(a) && std::isnan(b)) || a < b; }

DataPtr eval_reduce(const Node& n, const EagerData& x) {
    const auto& xd = n.operands[0]->type.dims;
    Kind k = n.type.kind;
    std::vector<bool> reduced(xd.size(), false);
    for (auto a : ir::reduced_dims(n)) reduced[static_cast<std::size_t>(a)] = true;
    // Output dims = kept dims (in order); reduced dims folded row-major.
    std::vector<ir::Dim> kept, red;
    for (std::size_t d = 0; d < xd.size(); ++d) (reduced[d] ? red : kept).push_back(xd[d]);
    auto xs = ir::strides_of(xd);
    std::int64_t out_count = 1, red_count = 1;
    for (auto& d : kept) out_count *= d.extent;
    for (auto& d : red) red_count *= d.extent;
    auto out = make(k, out_count);
    std::vector<std::int64_t> oi, ri;
    for (std::int64_t o = 0; o < out_count; ++o) {
        unflatten(o, kept, oi);
        std::int64_t base = 0;
        std::size_t ko = 0;
        for (std::size_t d = 0; d < xd.size(); ++d)
            if (!reduced[d]) base += oi[ko++] * xs[d];
        auto offset = [&](std::int64_t r) {
            unflatten(r, red, ri);
            std::int64_t off = base;
            std::size_t kr = 0;
            for (std::size_t d = 0; d < xd.size(); ++d)
                if (reduced[d]) off += ri[kr++] * xs[d];
            return off;
        };
        OpCode comb = *ir::combiner_of(n.op);
        if (is_float(k)) {
            double acc = x.floats[static_cast<std::size_t>(offset(0))];
            for (std::int64_t r = 1; r < red_count; ++r) acc = float_binary(comb, k, acc, x.floats[static_cast<std::size_t>(offset(r))]);
            out->floats[static_cast<std::size_t>(o)] = acc;
        } else {
            std::int64_t acc = x.ints[static_cast<std::size_t>(offset(0))];
            for (std::int64_t r = 1; r < red_count; ++r) acc = int_binary(comb, k, acc, x.ints[static_cast<std::size_t>(offset(r))]);
            out->ints[static_cast<std::size_t>(o)] = acc;
        }
    }
    return out;
}

DataPtr eval_mma(const Node& n, const EagerData& a, const EagerData& b, const EagerData& acc) {
    const auto& ad = n.operands[0]->type.dims;
    const auto& bd = n.operands[1]->type.dims;
    const auto& od = n.type.dims;
    Kind k = n.type.kind;
    auto m = ir::dim_map(n);
    std::size_t n_out = static_cast<std::size_t>(m[0]);
    std::size_t n_con = static_cast<std::size_t>(m[1 + 2 * n_out]);
    auto as = ir::strides_of(ad), bs = ir::strides_of(bd);
    std::vector<ir::Dim> cdims;
    for (std::size_t c = 0; c < n_con; ++c) cdims.push_back(ad[static_cast<std::size_t>(m[2 + 2 * n_out + 2 * c])]);
    std::int64_t out_count = n.type.count(), con_count = 1;
    for (auto& d : cdims) con_count *= d.extent;
    auto out = make(k, out_count);
    std::vector<std::int64_t> oi, ci;
    for (std::int64_t o = 0; o < out_count; ++o) {
        unflatten(o, od, oi);
        std::int64_t abase = 0, bbase = 0;
        for (std::size_t d = 0; d < n_out; ++d) {
            auto pa = m[1 + 2 * d], pb = m[2 + 2 * d];
            if (pa >= 0) abase += oi[d] * as[static_cast<std::size_t>(pa)];
            if (pb >= 0) bbase += oi[d] * bs[static_cast<std::size_t>(pb)];
        }
        double facc = is_float(k) ? acc.floats[static_cast<std::size_t>(o)] : 0;
        std::int64_t iacc = is_float(k) ? 0 : acc.ints[static_cast<std::size_t>(o)];
        for (std::int64_t c = 0; c < con_count; ++c) {
            unflatten(c, cdims, ci);
            std::int64_t ao = abase, bo = bbase;
            for (std::size_t d = 0; d < n_con; ++d) {
                ao += ci[d] * as[static_cast<std::size_t>(m[2 + 2 * n_out + 2 * d])];
                bo += ci[d] * bs[static_cast<std::size_t>(m[3 + 2 * n_out + 2 * d])];
            }
            if (is_float(k)) {
                double p = round_to(k, a.floats[static_cast<std::size_t>(ao)] * b.floats[static_cast<std::size_t>(bo)]);
                facc = round_to(k, facc + p);
            } else {
                std::int64_t p = int_binary(OpCode::mul, k, a.ints[static_cast<std::size_t>(ao)], b.ints[static_cast<std::size_t>(bo)]);
                iacc = int_binary(OpCode::add, k, iacc, p);
            }
        }
        if (is_float(k)) out->floats[static_cast<std::size_t>(o)] = facc;
        else out->ints[static_cast<std::size_t>(o)] = iacc;
    }
    return out;
}

DataPtr eval_line_op(const Node& n, const EagerData& x) {
    const auto& xd = n.operands[0]->type.dims;
    Kind xk = n.operands[0]->type.kind;
    int axis = ir::tile_dim(n);
    Lines l = lines_along(xd, axis);
    auto out = make(n.type.kind, n.type.count());
    auto od = n.type.dims;
    auto os = ir::strides_of(od);
    std::int64_t ostride = od.empty() ? 1 : os[static_cast<std::size_t>(std::min<std::int64_t>(axis, static_cast<std::int64_t>(od.size()) - 1))];
    bool fl = is_float(xk);
    std::vector<std::int64_t> idx;
    for (std::int64_t base : l.bases) {
        auto at = [&](std::int64_t j) { return base + j * l.stride; };
        // Output base: the same position with the axis index at 0 (argmax drops the axis).
        unflatten(base, xd, idx);
        std::int64_t obase = 0;
        for (std::size_t d = 0, od_i = 0; d < xd.size(); ++d) {
            if (static_cast<int>(d) == axis && ir::category(n.op) == ir::OpCategory::arg_reduction) continue;
            obase += idx[d] * os[od_i++];
        }
        switch (ir::category(n.op)) {
            case ir::OpCategory::arg_reduction: {
                std::int64_t best = 0;
                for (std::int64_t j = 1; j < l.length; ++j) {
                    bool better;
                    if (fl) {
                        double v = x.floats[static_cast<std::size_t>(at(j))], bv = x.floats[static_cast<std::size_t>(at(best))];
                        if (std::isnan(bv)) better = false;
                        else if (std::isnan(v)) better = true;
                        else better = n.op == OpCode::argmax ? v > bv : v < bv;
                    } else {
                        auto v = x.ints[static_cast<std::size_t>(at(j))], bv = x.ints[static_cast<std::size_t>(at(best))];
                        better = n.op == OpCode::argmax ? v > bv : v < bv;
                    }
                    if (better) best = j;
                }
                out->ints[static_cast<std::size_t>(obase)] = best;
                break;
            }
            case ir::OpCategory::scan: {
                OpCode comb = *ir::combiner_of(n.op);
                if (fl) {
                    double acc = x.floats[static_cast<std::size_t>(at(0))];
                    out->floats[static_cast<std::size_t>(at(0))] = acc;
                    for (std::int64_t j = 1; j < l.length; ++j) {
                        acc = float_binary(comb, xk, acc, x.floats[static_cast<std::size_t>(at(j))]);
                        out->floats[static_cast<std::size_t>(at(j))] = acc;
                    }
                } else {
                    std::int64_t acc = x.ints[static_cast<std::size_t>(at(0))];
                    out->ints[static_cast<std::size_t>(at(0))] = acc;
                    for (std::int64_t j = 1; j < l.length; ++j) {
                        acc = int_binary(comb, xk, acc, x.ints[static_cast<std::size_t>(at(j))]);
                        out->ints[static_cast<std::size_t>(at(j))] = acc;
                    }
                }
                break;
            }
            default: {  // sort: sort / topk, values or indices
                std::vector<std::int64_t> order(static_cast<std::size_t>(l.length));
                std::iota(order.begin(), order.end(), 0);
                bool descending = n.op == OpCode::topk_values || n.op == OpCode::topk_indices;
                auto less = [&](std::int64_t p, std::int64_t q) {
                    if (fl) {
                        double a = x.floats[static_cast<std::size_t>(at(p))], b = x.floats[static_cast<std::size_t>(at(q))];
                        return descending ? float_less_nan_last(b, a) : float_less_nan_last(a, b);
                    }
                    auto a = x.ints[static_cast<std::size_t>(at(p))], b = x.ints[static_cast<std::size_t>(at(q))];
                    return descending ? b < a : a < b;
                };
                std::stable_sort(order.begin(), order.end(), less);
                std::int64_t count = (n.op == OpCode::topk_values || n.op == OpCode::topk_indices) ? ir::topk_count(n) : l.length;
                bool want_index = n.op == OpCode::sort_indices || n.op == OpCode::topk_indices;
                for (std::int64_t j = 0; j < count; ++j) {
                    std::int64_t o = obase + j * ostride;
                    if (want_index) out->ints[static_cast<std::size_t>(o)] = order[static_cast<std::size_t>(j)];
                    else if (fl) out->floats[static_cast<std::size_t>(o)] = x.floats[static_cast<std::size_t>(at(order[static_cast<std::size_t>(j)]))];
                    else out->ints[static_cast<std::size_t>(o)] = x.ints[static_cast<std::size_t>(at(order[static_cast<std::size_t>(j)]))];
                }
            }
        }
    }
    return out;
}

DataPtr eval_shape(const Node& n, const std::vector<const EagerData*>& in) {
    Kind k = n.type.kind;
    std::int64_t count = n.type.count();
    if (n.op == OpCode::full) {
        auto out = make(k, count);
        if (is_float(k)) std::fill(out->floats.begin(), out->floats.end(), in[0]->floats[0]);
        else std::fill(out->ints.begin(), out->ints.end(), in[0]->ints[0]);
        return out;
    }
    if (n.op == OpCode::reshape) return std::make_shared<EagerData>(*in[0]);
    // broadcast, permute, slice: each result element is one operand element.
    const auto& from = n.operands[0]->type.dims;
    auto fs = ir::strides_of(from);
    auto out = make(k, count);
    std::vector<std::int64_t> idx;
    for (std::int64_t e = 0; e < count; ++e) {
        unflatten(e, n.type.dims, idx);
        std::int64_t src = 0;
        switch (n.op) {
            case OpCode::broadcast: {
                auto map = ir::dim_map(n);
                for (std::size_t d = 0; d < from.size(); ++d)
                    if (from[d].extent != 1) src += idx[static_cast<std::size_t>(map[d])] * fs[d];
                break;
            }
            case OpCode::permute: {
                auto map = ir::dim_map(n);
                for (std::size_t d = 0; d < idx.size(); ++d) src += idx[d] * fs[static_cast<std::size_t>(map[d])];
                break;
            }
            case OpCode::slice: {
                auto starts = ir::slice_starts(n);
                for (std::size_t d = 0; d < idx.size(); ++d) src += (idx[d] + starts[d]) * fs[d];
                break;
            }
            default: internal_fail("eval: shape op '" + std::string(detail::op_name(n.op)) + "'");
        }
        copy_elem(*in[0], src, *out, e);
    }
    return out;
}

DataPtr eval_movement(const Node& n, const std::vector<const EagerData*>& in) {
    Kind k = n.type.kind;
    std::int64_t count = n.type.count();
    const auto& xd = n.operands[0]->type.dims;
    auto xs = ir::strides_of(xd);
    auto out = make(k, count);
    if (n.op == OpCode::gather) {
        int axis = ir::tile_dim(n);
        std::vector<std::int64_t> idx;
        for (std::int64_t e = 0; e < count; ++e) {
            unflatten(e, n.type.dims, idx);
            std::int64_t j = iget(*in[1], e);
            if (j < 0 || j >= xd[static_cast<std::size_t>(axis)].extent) continue;  // zero
            std::int64_t src = 0;
            for (std::size_t d = 0, o = 0; d < xd.size(); ++d) src += (static_cast<int>(d) == axis ? j : idx[o++]) * xs[d];
            copy_elem(*in[0], src, *out, e);
        }
        return out;
    }
    // reindex
    for (std::int64_t e = 0; e < count; ++e) {
        std::int64_t src = 0;
        bool ok = true;
        for (std::size_t d = 0; d < xd.size(); ++d) {
            std::int64_t c = iget(*in[d + 1], e);
            if (c < 0 || c >= xd[d].extent) ok = false;
            src += c * xs[d];
        }
        if (ok) copy_elem(*in[0], src, *out, e);
    }
    return out;
}

}  // namespace

DataPtr eval(const Node& n, const std::vector<const EagerData*>& in) {
    Kind k = n.type.kind;
    std::int64_t count = n.type.count();
    auto in_kind = [&](std::size_t i) { return n.operands[i]->type.kind; };
    switch (ir::category(n.op)) {
        case ir::OpCategory::leaf:
            if (n.op == OpCode::constant) return n.data;
            if (n.op == OpCode::iota) {
                auto out = make(Kind::I64, count);
                std::iota(out->ints.begin(), out->ints.end(), std::int64_t{0});
                return out;
            }
            break;  // parameters and view extents: run_kernel's
        case ir::OpCategory::unary: {
            auto out = make(k, count);
            for (std::int64_t e = 0; e < count; ++e) {
                if (is_float(k)) out->floats[static_cast<std::size_t>(e)] = float_unary(n.op, k, fget(*in[0], e));
                else out->ints[static_cast<std::size_t>(e)] = int_unary(n.op, k, iget(*in[0], e));
            }
            return out;
        }
        case ir::OpCategory::cast: {
            Kind from = in_kind(0);
            auto out = make(k, count);
            for (std::int64_t e = 0; e < count; ++e) {
                double f = is_float(from) ? fget(*in[0], e) : 0;
                std::int64_t i = is_float(from) ? 0 : iget(*in[0], e);
                if (is_float(k)) out->floats[static_cast<std::size_t>(e)] = cast_to_float(from, f, i, k);
                else out->ints[static_cast<std::size_t>(e)] = cast_to_int(from, f, i, k);
            }
            return out;
        }
        case ir::OpCategory::binary: {
            auto out = make(k, count);
            for (std::int64_t e = 0; e < count; ++e) {
                if (is_float(k)) out->floats[static_cast<std::size_t>(e)] = float_binary(n.op, k, fget(*in[0], e), fget(*in[1], e));
                else out->ints[static_cast<std::size_t>(e)] = int_binary(n.op, k, iget(*in[0], e), iget(*in[1], e));
            }
            return out;
        }
        case ir::OpCategory::compare: {
            Kind ok = in_kind(0);
            auto out = make(Kind::Bool, count);
            for (std::int64_t e = 0; e < count; ++e)
                out->ints[static_cast<std::size_t>(e)] = is_float(ok) ? float_compare(n.op, fget(*in[0], e), fget(*in[1], e))
                                                                      : int_compare(n.op, iget(*in[0], e), iget(*in[1], e));
            return out;
        }
        case ir::OpCategory::select: {
            auto out = make(k, count);
            for (std::int64_t e = 0; e < count; ++e) {
                bool c = iget(*in[0], e) != 0;
                if (is_float(k)) out->floats[static_cast<std::size_t>(e)] = c ? fget(*in[1], e) : fget(*in[2], e);
                else out->ints[static_cast<std::size_t>(e)] = c ? iget(*in[1], e) : iget(*in[2], e);
            }
            return out;
        }
        case ir::OpCategory::shape: return eval_shape(n, in);
        case ir::OpCategory::reduction: return eval_reduce(n, *in[0]);
        case ir::OpCategory::arg_reduction:
        case ir::OpCategory::scan:
        case ir::OpCategory::sort: return eval_line_op(n, *in[0]);
        case ir::OpCategory::contraction: return eval_mma(n, *in[0], *in[1], *in[2]);
        case ir::OpCategory::movement: return eval_movement(n, in);
        case ir::OpCategory::memory:
            if (n.op == OpCode::mem_store || n.op == OpCode::mem_load) return std::make_shared<EagerData>(*in[0]);
            break;  // loads and stores: run_kernel's
        case ir::OpCategory::control: break;
    }
    internal_fail("eval: op '" + std::string(detail::op_name(n.op)) + "' is not an eager operation");
}

}  // namespace kiln::ref
