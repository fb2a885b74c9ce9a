#include "targets/cuda/launch_args.h"

#include <cstring>
#include <limits>
#include <unordered_map>

#include "interp/eval.h"
#include "interp/semantics.h"

namespace kiln::cu {

using detail::Arg;
using detail::OpCode;
using ir::Node;

bool needs_64bit_offsets(const std::vector<Arg>& args) {
    for (const Arg& a : args) {
        if (!a.is_view) continue;
        // check_host_view has ruled out negative values and overflow of the span.
        std::int64_t last = 0;
        bool empty = false;
        for (std::size_t d = 0; d < a.extents.size(); ++d) {
            if (a.extents[d] == 0) empty = true;
            else last += (a.extents[d] - 1) * a.strides[d];
        }
        if (!empty && last > std::numeric_limits<std::int32_t>::max() - 1) return true;
    }
    return false;
}

namespace {

// A scalar of the program evaluated on the host: parameters, view extents and
// strides, constants, and the interpreter's eval for the arithmetic on them.
ref::DataPtr host_value(const Node* n, const std::vector<Arg>& args, const Node& grid,
                        std::unordered_map<const Node*, ref::DataPtr>& memo) {
    if (auto it = memo.find(n); it != memo.end()) return it->second;
    auto scalar_int = [](std::int64_t v) {
        auto d = std::make_shared<ir::EagerData>();
        d->ints.push_back(v);
        return ref::DataPtr(d);
    };
    ref::DataPtr v;
    switch (n->op) {
        case OpCode::constant: v = n->data; break;
        case OpCode::view_extent: v = scalar_int(args[static_cast<std::size_t>(n->i)].extents[static_cast<std::size_t>(n->j)]); break;
        case OpCode::view_stride: v = scalar_int(args[static_cast<std::size_t>(n->i)].strides[static_cast<std::size_t>(n->j)]); break;
        case OpCode::param: {
            const Arg& a = args[static_cast<std::size_t>(n->i)];
            auto d = std::make_shared<ir::EagerData>();
            if (is_float(n->type.kind)) d->floats.push_back(ref::round_to(n->type.kind, a.f));
            else d->ints.push_back(ref::wrap_to(n->type.kind, a.i));
            v = d;
            break;
        }
        case OpCode::load: case OpCode::store: case OpCode::loop: case OpCode::loop_result: case OpCode::region_arg:
        case OpCode::yield: case OpCode::stage:
            fail(grid.loc, "parallel", "not supported on cuda: the grid's extent depends on a " + std::string(detail::op_name(n->op)) +
                                           ", which the host cannot evaluate before the launch");
        default: {
            std::vector<ref::DataPtr> keep;
            std::vector<const ir::EagerData*> in;
            for (const Node* o : n->operands) {
                keep.push_back(host_value(o, args, grid, memo));
                in.push_back(keep.back().get());
            }
            v = ref::eval(*n, in);
        }
    }
    memo[n] = v;
    return v;
}

}  // namespace

std::int64_t grid_instances(const ir::Program& p, const std::vector<Arg>& args) {
    if (!p.grid) return 1;
    std::unordered_map<const Node*, ref::DataPtr> memo;
    std::int64_t total = 1;
    for (int k = 0; k < ir::loop_rank(*p.grid); ++k) {
        std::int64_t e = host_value(p.grid->operands[static_cast<std::size_t>(k)], args, *p.grid, memo)->ints.at(0);
        if (e < 0) fail(p.grid->loc, "parallel", "negative grid extent " + std::to_string(e));
        if (e != 0 && total > std::numeric_limits<std::int64_t>::max() / e)
            fail(p.grid->loc, "parallel", "the grid has more than 2^63 instances");
        total *= e;
    }
    return total;
}

PackedParams pack_params(const ir::Program& p, const std::vector<Arg>& args) {
    PackedParams out;
    auto push = [&](const auto& value) {
        std::uint64_t slot = 0;
        static_assert(sizeof value <= sizeof slot);
        std::memcpy(&slot, &value, sizeof value);
        out.slots.push_back(slot);
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const Arg& a = args[i];
        if (!a.is_view) {
            // The register type of the kind, holding the value the interpreter would (rounded / wrapped).
            switch (p.params[i].kind) {
                case Kind::F64: push(a.f); break;
                case Kind::F32: case Kind::F16: case Kind::BF16: push(static_cast<float>(ref::round_to(p.params[i].kind, a.f))); break;
                case Kind::I64: push(a.i); break;
                default: push(static_cast<std::int32_t>(ref::wrap_to(p.params[i].kind, a.i)));
            }
            continue;
        }
        push(a.data);
        for (auto e : a.extents) push(e);
        for (auto s : a.strides) push(s);
    }
    for (auto& s : out.slots) out.pointers.push_back(&s);
    return out;
}

}  // namespace kiln::cu
