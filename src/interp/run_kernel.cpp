#include "interp/run_kernel.h"

#include <cstring>
#include <unordered_map>

#include "interp/eval.h"
#include "interp/semantics.h"
#include "ir/attrs.h"
#include "support/byte_size.h"

namespace kiln::ref {

std::string tile_too_large(std::int64_t elements) {
    return "a tile of " + std::to_string(elements) + " elements (" + support::byte_size(8.0 * static_cast<double>(elements)) +
           " as the interpreter holds it) cannot be allocated";
}

using detail::Arg;
using detail::OpCode;
using ir::EagerData;
using ir::Node;

double read_float(const Arg& a, std::int64_t off) {
    const char* p = static_cast<const char*>(a.data) + off * kind_bytes(a.kind);
    switch (a.kind) {
        case Kind::F32: { float x; std::memcpy(&x, p, 4); return x; }
        case Kind::F64: { double x; std::memcpy(&x, p, 8); return x; }
        case Kind::F16: { f16 x; std::memcpy(&x, p, 2); return x.to_double(); }
        case Kind::BF16: { bf16 x; std::memcpy(&x, p, 2); return x.to_double(); }
        default: internal_fail("read_float on an integer view");
    }
}

std::int64_t read_int(const Arg& a, std::int64_t off) {
    const char* p = static_cast<const char*>(a.data) + off * kind_bytes(a.kind);
    switch (a.kind) {
        case Kind::Bool: { std::uint8_t x; std::memcpy(&x, p, 1); return x != 0; }
        case Kind::I8: { std::int8_t x; std::memcpy(&x, p, 1); return x; }
        case Kind::I32: { std::int32_t x; std::memcpy(&x, p, 4); return x; }
        case Kind::I64: { std::int64_t x; std::memcpy(&x, p, 8); return x; }
        default: internal_fail("read_int on a float view");
    }
}

void write_float(const Arg& a, std::int64_t off, double v) {
    char* p = static_cast<char*>(a.data) + off * kind_bytes(a.kind);
    switch (a.kind) {
        case Kind::F32: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); break; }
        case Kind::F64: std::memcpy(p, &v, 8); break;
        case Kind::F16: { f16 x(v); std::memcpy(p, &x, 2); break; }
        case Kind::BF16: { bf16 x(v); std::memcpy(p, &x, 2); break; }
        default: internal_fail("write_float on an integer view");
    }
}

void write_int(const Arg& a, std::int64_t off, std::int64_t v) {
    char* p = static_cast<char*>(a.data) + off * kind_bytes(a.kind);
    switch (a.kind) {
        case Kind::Bool: case Kind::I8: { std::int8_t x = static_cast<std::int8_t>(v); std::memcpy(p, &x, 1); break; }
        case Kind::I32: { std::int32_t x = static_cast<std::int32_t>(v); std::memcpy(p, &x, 4); break; }
        case Kind::I64: std::memcpy(p, &v, 8); break;
        default: internal_fail("write_int on a float view");
    }
}

namespace {

struct PendingWrite {
    int param;
    std::int64_t offset;
    double f;
    std::int64_t i;
};

// Who touched an element first, for conflict reports.
struct Touch {
    std::int64_t pid;
    int param;
    std::int64_t offset;
};

class Runner {
public:
    Runner(const ir::Program& p, const std::vector<Arg>& args, const RunOptions& o) : p_(p), args_(args), opts_(o) {}

    void run() {
        eval_region(p_.body, /*top=*/true);
        for (auto& w : writes_) {
            const Arg& a = args_[static_cast<std::size_t>(w.param)];
            if (is_float(a.kind)) write_float(a, w.offset, w.f);
            else write_int(a, w.offset, w.i);
        }
    }

private:
    using Values = std::vector<DataPtr>;

    DataPtr scalar_int(std::int64_t v) {
        auto d = std::make_shared<EagerData>();
        d->ints.push_back(v);
        return d;
    }
    std::int64_t int_of(const Node* n) { return env_.at(n)->ints.at(0); }

    // Runs a region's nodes; returns the yielded values, if it ends with a yield.
    Values eval_region(const ir::Region& r, bool top = false) {
        for (const Node* n : r.nodes) {
            switch (ir::category(n->op)) {
                case ir::OpCategory::control:
                    if (n->op == OpCode::loop) {
                        if (top && n == p_.grid) run_grid(*n);
                        else run_loop(*n);
                    } else if (n->op == OpCode::yield) {
                        Values out;
                        for (const Node* o : n->operands) out.push_back(env_.at(o));
                        return out;
                    } else if (n->op == OpCode::loop_result) {
                        env_[n] = results_.at(n->operands[0]).at(static_cast<std::size_t>(ir::slot(*n)));
                    }
                    break;  // stage markers have no semantics
                case ir::OpCategory::leaf:
                    if (n->op == OpCode::param) env_[n] = param(*n);
                    else if (n->op == OpCode::view_extent) env_[n] = scalar_int(args_[static_cast<std::size_t>(ir::param_index(*n))].extents[static_cast<std::size_t>(ir::view_dim(*n))]);
                    else if (n->op == OpCode::view_stride) env_[n] = scalar_int(args_[static_cast<std::size_t>(ir::param_index(*n))].strides[static_cast<std::size_t>(ir::view_dim(*n))]);
                    else evaluate(*n);
                    break;
                case ir::OpCategory::memory:
                    if (n->op == OpCode::load) env_[n] = allocating(*n, [&] { return load(*n); });
                    else if (n->op == OpCode::store) store(*n);
                    else evaluate(*n);
                    break;
                case ir::OpCategory::unary: case ir::OpCategory::binary: case ir::OpCategory::compare: case ir::OpCategory::select:
                case ir::OpCategory::cast: case ir::OpCategory::shape: case ir::OpCategory::reduction: case ir::OpCategory::arg_reduction:
                case ir::OpCategory::scan: case ir::OpCategory::contraction: case ir::OpCategory::movement: case ir::OpCategory::sort:
                    evaluate(*n);
                    break;
            }
        }
        return {};
    }

    void evaluate(const Node& n) {
        std::vector<const EagerData*> in;
        for (const Node* o : n.operands) in.push_back(env_.at(o).get());
        env_[&n] = allocating(n, [&] { return eval(n, in); });
    }
    // A value made by make(), or the user's error naming n when it cannot be allocated.
    template <class F> DataPtr allocating(const Node& n, F make) {
        try {
            return make();
        } catch (const std::bad_alloc&) {
            too_large(n);
        }
    }

    DataPtr param(const Node& n) {
        const Arg& a = args_[static_cast<std::size_t>(ir::param_index(n))];
        auto d = std::make_shared<EagerData>();
        if (is_float(n.type.kind)) d->floats.push_back(round_to(n.type.kind, a.f));
        else d->ints.push_back(wrap_to(n.type.kind, a.i));
        return d;
    }

    // The interpreter holds each element in 8 bytes; a tile it cannot allocate is
    // the user's tile, named where it is made.
    [[noreturn]] void too_large(const Node& n) {
        fail(n.loc, detail::op_name(n.op), tile_too_large(n.type.count()));
    }

    // The grid: one instance per domain point, row-major pid order.
    void run_grid(const Node& loop) {
        int rank = ir::loop_rank(loop);
        std::vector<std::int64_t> ext;
        std::int64_t total = 1;
        for (int k = 0; k < rank; ++k) {
            ext.push_back(int_of(loop.operands[static_cast<std::size_t>(k)]));
            if (ext.back() < 0) fail(loop.loc, "parallel", "negative grid extent " + std::to_string(ext.back()));
            // As the cpu and cuda targets do: a product that wrapped would run some other grid.
            if (__builtin_mul_overflow(total, ext.back(), &total)) fail(loop.loc, "parallel", "the grid has more than 2^63 instances");
        }
        auto saved = env_;
        for (std::int64_t pid = 0; pid < total; ++pid) {
            pid_ = pid;
            std::int64_t r = pid;
            for (int k = rank - 1; k >= 0; --k) {
                env_[loop.body->args[static_cast<std::size_t>(k)]] = scalar_int(r % ext[static_cast<std::size_t>(k)]);
                r /= ext[static_cast<std::size_t>(k)];
            }
            eval_region(*loop.body);
            env_ = saved;  // instances share nothing
        }
        pid_ = -1;
    }

    void run_loop(const Node& loop) {
        int rank = ir::loop_rank(loop);
        std::vector<std::int64_t> ext;
        std::int64_t total = 1;
        for (int k = 0; k < rank; ++k) {
            ext.push_back(int_of(loop.operands[static_cast<std::size_t>(k)]));
            total *= std::max<std::int64_t>(ext.back(), 0);
        }
        Values carried;
        for (std::size_t k = static_cast<std::size_t>(rank); k < loop.operands.size(); ++k) carried.push_back(env_.at(loop.operands[k]));
        for (std::int64_t it = 0; it < total; ++it) {
            std::int64_t r = it;
            for (int k = rank - 1; k >= 0; --k) {
                env_[loop.body->args[static_cast<std::size_t>(k)]] = scalar_int(r % ext[static_cast<std::size_t>(k)]);
                r /= ext[static_cast<std::size_t>(k)];
            }
            for (std::size_t c = 0; c < carried.size(); ++c) env_[loop.body->args[static_cast<std::size_t>(rank) + c]] = carried[c];
            carried = eval_region(*loop.body);
        }
        results_[&loop] = carried;
    }

    std::string describe(int param, std::int64_t offset) const {
        // The element's index, recovered from the offset for a row-major-like view.
        const Arg& a = args_[static_cast<std::size_t>(param)];
        std::string s = "(";
        std::int64_t rest = offset;
        std::vector<std::int64_t> idx(a.extents.size(), 0);
        // Strides may be arbitrary; walk dims from the largest stride down.
        std::vector<std::size_t> order(a.extents.size());
        for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::sort(order.begin(), order.end(), [&](auto x, auto y) { return a.strides[x] > a.strides[y]; });
        for (auto d : order)
            if (a.strides[d] > 0) {
                idx[d] = rest / a.strides[d];
                rest -= idx[d] * a.strides[d];
            }
        for (std::size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : "") + std::to_string(idx[k]);
        return s + ") of argument " + std::to_string(param) + " (" + p_.params[static_cast<std::size_t>(param)].spelling + ")";
    }

    std::string instance(std::int64_t pid) const { return "instance " + std::to_string(pid); }

    // Checked mode: reads see the buffers at launch entry, so reading an element that
    // any instance writes in the same launch (after the reader's own read, for its
    // own writes) is outside the contract.
    void note_read(int param, std::int64_t offset, Loc loc) {
        if (!opts_.checked || pid_ < 0) return;
        const void* addr = static_cast<const char*>(args_[static_cast<std::size_t>(param)].data) + offset * kind_bytes(args_[static_cast<std::size_t>(param)].kind);
        auto w = writers_.find(addr);
        if (w != writers_.end()) {
            if (w->second.pid != pid_)
                fail(loc, "load", instance(pid_) + " reads element " + describe(param, offset) + " that " + instance(w->second.pid) +
                                      " writes in the same launch (instances read buffers as at launch entry)");
            fail(loc, "load", instance(pid_) + " reads element " + describe(param, offset) +
                                  " after writing it; reads see the buffer as at launch entry");
        }
        readers_.emplace(addr, Touch{pid_, param, offset});
    }

    void note_write(int param, std::int64_t offset, Loc loc) {
        if (!opts_.checked) return;
        const void* addr = static_cast<const char*>(args_[static_cast<std::size_t>(param)].data) + offset * kind_bytes(args_[static_cast<std::size_t>(param)].kind);
        auto w = writers_.find(addr);
        if (w != writers_.end() && w->second.pid != pid_)
            fail(loc, "store", instance(w->second.pid) + " and " + instance(pid_) + " both write element " + describe(param, offset));
        auto r = readers_.find(addr);
        if (r != readers_.end() && r->second.pid != pid_)
            fail(loc, "store", instance(pid_) + " writes element " + describe(param, offset) + " that " + instance(r->second.pid) +
                                   " read in the same launch (instances read buffers as at launch entry)");
        writers_.emplace(addr, Touch{pid_, param, offset});
    }

    // Walks the tile's elements: for each, its view offset or -1 when out of range.
    template <class F> void for_each_element(const Node& n, std::size_t n_origin, F&& f) {
        const Arg& a = args_[static_cast<std::size_t>(ir::param_index(n))];
        const auto& dims = n.op == OpCode::store ? n.operands.back()->type.dims : n.type.dims;
        std::vector<std::int64_t> origin;
        for (std::size_t k = 0; k < n_origin; ++k) origin.push_back(int_of(n.operands[k]));
        std::int64_t count = 1;
        for (auto& d : dims) count *= d.extent;
        std::vector<std::int64_t> idx(dims.size());
        for (std::int64_t e = 0; e < count; ++e) {
            std::int64_t r = e, off = 0;
            bool in = true;
            for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
                auto ku = static_cast<std::size_t>(k);
                idx[ku] = r % dims[ku].extent;
                r /= dims[ku].extent;
                std::int64_t c = origin[ku] + idx[ku];
                if (c < 0 || c >= a.extents[ku]) in = false;
                off += c * a.strides[ku];
            }
            if (!in && ir::bounds_policy(n) != bounds::zero) out_of_range(n, origin, idx);
            f(e, in ? off : -1);
        }
    }

    [[noreturn]] void out_of_range(const Node& n, const std::vector<std::int64_t>& origin, const std::vector<std::int64_t>& idx) {
        const Arg& a = args_[static_cast<std::size_t>(ir::param_index(n))];
        std::string at = "(", ext;
        for (std::size_t k = 0; k < idx.size(); ++k) {
            at += (k ? ", " : "") + std::to_string(origin[k] + idx[k]);
            ext += (k ? "x" : "") + std::to_string(a.extents[k]);
        }
        at += ")";
        std::string op = n.op == OpCode::load ? "load" : "store";
        std::string what = "index " + at + " is out of range for argument " + std::to_string(ir::param_index(n)) + " of extent " + ext;
        if (ir::bounds_policy(n) == bounds::assume) what += " (bounds::assume was violated)";
        if (pid_ >= 0) what += " in " + instance(pid_);
        fail(n.loc, op, what);
    }

    DataPtr load(const Node& n) {
        const Arg& a = args_[static_cast<std::size_t>(ir::param_index(n))];
        std::size_t rank = a.extents.size();
        auto out = std::make_shared<EagerData>();
        bool fl = is_float(n.type.kind);
        std::int64_t count = n.type.count();
        if (fl) out->floats.assign(static_cast<std::size_t>(count), 0.0);
        else out->ints.assign(static_cast<std::size_t>(count), 0);
        double ffill = 0;
        std::int64_t ifill = 0;
        if (ir::has_fallback(n)) {
            const auto& fb = *env_.at(n.operands[rank]);
            if (fl) ffill = fb.floats[0];
            else ifill = fb.ints[0];
        }
        for_each_element(n, rank, [&](std::int64_t e, std::int64_t off) {
            auto eu = static_cast<std::size_t>(e);
            if (off < 0) {
                if (fl) out->floats[eu] = ffill;
                else out->ints[eu] = ifill;
                return;
            }
            note_read(ir::param_index(n), off, n.loc);
            if (fl) out->floats[eu] = read_float(a, off);
            else out->ints[eu] = read_int(a, off);
        });
        return out;
    }

    void store(const Node& n) {
        std::size_t rank = n.operands.size() - 1;
        const auto& v = *env_.at(n.operands.back());
        bool fl = !v.floats.empty();
        for_each_element(n, rank, [&](std::int64_t e, std::int64_t off) {
            if (off < 0) return;  // bounds::zero drops it
            note_write(ir::param_index(n), off, n.loc);
            auto eu = static_cast<std::size_t>(e);
            writes_.push_back(PendingWrite{ir::param_index(n), off, fl ? v.floats[eu] : 0.0, fl ? 0 : v.ints[eu]});
        });
    }

    const ir::Program& p_;
    const std::vector<Arg>& args_;
    RunOptions opts_;
    std::unordered_map<const Node*, DataPtr> env_;
    std::unordered_map<const Node*, Values> results_;
    std::vector<PendingWrite> writes_;
    std::unordered_map<const void*, Touch> writers_, readers_;
    std::int64_t pid_ = -1;
};

}  // namespace

void run_program(const ir::Program& p, const std::vector<Arg>& args, const RunOptions& opts) {
    for (const Arg& a : args)
        if (a.is_view && a.device != Device::host)
            fail(p.loc, "interp", "kernel '" + p.name + "': the interpreter runs on host memory; copy device tensors back with .to(host())");
    Runner(p, args, opts).run();
}

}  // namespace kiln::ref
