// Typed access to node attributes. Each accessor names one attribute of ops.def's
// schema and checks that the node's op carries it (a mismatch is a kiln bug), so
// code reads `bounds_policy(n)` rather than an untyped field.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "ir/op_traits.h"

namespace kiln::ir {

// Fails with an internal error unless n's op carries attribute a.
void require_attr(const Node& n, Attr a, const char* accessor);
inline void expect(const Node& n, Attr a, const char* accessor) {
    if (!has_attr(n.op, a)) [[unlikely]] require_attr(n, a, accessor);
}

using Ints = std::span<const std::int64_t>;

// ---- param: the kernel parameter an op refers to (param, view_extent, view_stride, load, store)
inline int param_index(const Node& n) { expect(n, attr_param, "param_index"); return static_cast<int>(n.raw.i); }
inline void set_param_index(Node& n, int p) { expect(n, attr_param, "set_param_index"); n.raw.i = p; }

// ---- view_dim: the view's dimension (view_extent, view_stride)
inline int view_dim(const Node& n) { expect(n, attr_view_dim, "view_dim"); return static_cast<int>(n.raw.j); }
inline void set_view_dim(Node& n, int d) { expect(n, attr_view_dim, "set_view_dim"); n.raw.j = d; }

// ---- dim: the one operand dim an op works along (gather, argmax/min, scan, sort, top-k)
inline int tile_dim(const Node& n) { expect(n, attr_dim, "tile_dim"); return static_cast<int>(n.raw.i); }
inline void set_tile_dim(Node& n, int d) { expect(n, attr_dim, "set_tile_dim"); n.raw.i = d; }

// ---- dims: the operand dims a reduction folds, ascending
inline Ints reduced_dims(const Node& n) { expect(n, attr_dims, "reduced_dims"); return n.raw.ints; }
inline void set_reduced_dims(Node& n, std::vector<std::int64_t> d) { expect(n, attr_dims, "set_reduced_dims"); n.raw.ints = std::move(d); }

// ---- count: top-k's k
inline std::int64_t topk_count(const Node& n) { expect(n, attr_count, "topk_count"); return n.raw.j; }
inline void set_topk_count(Node& n, std::int64_t k) { expect(n, attr_count, "set_topk_count"); n.raw.j = k; }

// ---- to_kind: cast's result kind
inline Kind cast_to(const Node& n) { expect(n, attr_to_kind, "cast_to"); return n.raw.kind; }
inline void set_cast_to(Node& n, Kind k) { expect(n, attr_to_kind, "set_cast_to"); n.raw.kind = k; }

// ---- dim_map: broadcast (result dim of each operand dim), permute (operand dim of
// each result dim), mma (mma_dims below)
inline Ints dim_map(const Node& n) { expect(n, attr_dim_map, "dim_map"); return n.raw.ints; }
inline void set_dim_map(Node& n, std::vector<std::int64_t> m) { expect(n, attr_dim_map, "set_dim_map"); n.raw.ints = std::move(m); }

// ---- starts: a slice's first element per dim
inline Ints slice_starts(const Node& n) { expect(n, attr_starts, "slice_starts"); return n.raw.ints; }
inline void set_slice_starts(Node& n, std::vector<std::int64_t> s) { expect(n, attr_starts, "set_slice_starts"); n.raw.ints = std::move(s); }

// ---- mma_options
struct MmaOptions {
    bool allow_reassociation = false;
    bool allow_tf32 = false;
};
inline MmaOptions mma_options(const Node& n) {
    expect(n, attr_mma_options, "mma_options");
    return {n.raw.flag, n.raw.j != 0};
}
inline void set_mma_options(Node& n, MmaOptions o) {
    expect(n, attr_mma_options, "set_mma_options");
    n.raw.flag = o.allow_reassociation;
    n.raw.j = o.allow_tf32;
}
// The mma's dim correspondence, decoded from dim_map = [n_out, (a, b) per output dim,
// n_con, (a, b) per contraction dim] (positions in a and b; -1: the output dim is
// not one of that operand's dims).
struct MmaDims {
    struct Pair {
        int a = -1, b = -1;
        bool operator==(const Pair&) const = default;
    };
    std::vector<Pair> out;       // per output (accumulator) dim
    std::vector<Pair> contract;  // per contraction dim, in contraction order
    // The plain matrix product: out = (a.0, b.1), contraction (a.1, b.0).
    bool is_matmul() const;
    // The product with b transposed: out = (a.0, b.0), contraction (a.1, b.1).
    bool is_matmul_bt() const;
};
MmaDims mma_dims(const Node& n);
std::vector<std::int64_t> encode_mma_dims(const MmaDims& d);

// ---- bounds: a load's or store's bounds policy and whether a load has a fallback operand
inline bounds::Policy bounds_policy(const Node& n) { expect(n, attr_bounds, "bounds_policy"); return static_cast<bounds::Policy>(n.raw.j); }
inline bool has_fallback(const Node& n) { expect(n, attr_bounds, "has_fallback"); return n.raw.flag; }
inline void set_bounds(Node& n, bounds::Policy p, bool fallback) {
    expect(n, attr_bounds, "set_bounds");
    n.raw.j = static_cast<std::int64_t>(p);
    n.raw.flag = fallback;
}
std::string_view policy_name(bounds::Policy p);
// The rank of a load's or store's view: its origin operands.
int access_rank(const Node& n);

// ---- strides: a memory<T> resource's strides, and its resource kind
inline Ints mem_strides(const Node& n) { expect(n, attr_strides, "mem_strides"); return n.raw.ints; }
inline mem::Resource mem_resource(const Node& n) { expect(n, attr_strides, "mem_resource"); return static_cast<mem::Resource>(n.raw.i); }
inline void set_mem_layout(Node& n, std::vector<std::int64_t> strides, mem::Resource r) {
    expect(n, attr_strides, "set_mem_layout");
    n.raw.ints = std::move(strides);
    n.raw.i = static_cast<std::int64_t>(r);
}

// ---- loop: kind, the axis ids of its domain (one per extent operand), pipeline window
inline detail::LoopKind loop_kind(const Node& n) { expect(n, attr_loop, "loop_kind"); return static_cast<detail::LoopKind>(n.raw.i); }
inline Ints loop_axes(const Node& n) { expect(n, attr_loop, "loop_axes"); return n.raw.ints; }
inline int loop_rank(const Node& n) { expect(n, attr_loop, "loop_rank"); return static_cast<int>(n.raw.ints.size()); }
inline int pipeline_window(const Node& n) { expect(n, attr_loop, "pipeline_window"); return static_cast<int>(n.raw.j); }
inline void set_loop(Node& n, detail::LoopKind k, std::vector<std::int64_t> axes) {
    expect(n, attr_loop, "set_loop");
    n.raw.i = static_cast<std::int64_t>(k);
    n.raw.ints = std::move(axes);
}
inline void set_pipeline_window(Node& n, int w) { expect(n, attr_loop, "set_pipeline_window"); n.raw.j = w; }
std::string_view loop_kind_name(detail::LoopKind k);
// A loop's carried values: operands and region args past its rank.
inline std::span<Node* const> loop_extents(const Node& n) { return std::span<Node* const>(n.operands).first(static_cast<std::size_t>(loop_rank(n))); }
inline std::span<Node* const> loop_inits(const Node& n) { return std::span<Node* const>(n.operands).subspan(static_cast<std::size_t>(loop_rank(n))); }

// ---- slot: a loop_result's carried slot; a region_arg's position (indices, then carried)
inline int slot(const Node& n) { expect(n, attr_slot, "slot"); return static_cast<int>(n.raw.i); }
inline void set_slot(Node& n, int s) { expect(n, attr_slot, "set_slot"); n.raw.i = s; }

// ---- label: a stage marker's name
inline const std::string& stage_label(const Node& n) { expect(n, attr_label, "stage_label"); return n.raw.s; }
inline void set_stage_label(Node& n, std::string s) { expect(n, attr_label, "set_stage_label"); n.raw.s = std::move(s); }

}  // namespace kiln::ir
