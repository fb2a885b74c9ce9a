// Small predicates over the IR that the dataflow matchers (gemm_match.h,
// attention_match.h) share: they recognise index arithmetic, constants and tile
// axes the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/attrs.h"
#include "ir/ir.h"

namespace kiln::passes {

inline bool is_scalar(const ir::Node* n) { return n->type.dims.empty(); }

// The value of a scalar integer constant.
std::optional<std::int64_t> int_constant(const ir::Node* n);
// The value of a scalar float constant, or of full() of one.
std::optional<double> float_constant(const ir::Node* n);
// n == index * extent (either operand order).
bool index_times(const ir::Node* n, const ir::Node* index, std::int64_t extent);
// The tile's dims other than unit ones, as axis ids.
std::vector<int> non_unit_axes(const ir::Node* n);
// The dims other than unit ones, in order.
std::vector<detail::Dim> non_unit_dims(const std::vector<detail::Dim>& dims);
// A reshape that only drops or adds unit dims (a [1, m, d] tile of a 3-D view read as
// [m, d], or the output written back as [1, m, dv]): the same elements on the same
// axes, which a kernel addressing elements by axis reads as its operand.
bool unit_reshape(const ir::Node* n);

// The nodes a program needs (passes/dce.h's `live`); a matcher given them passes over
// the rest, so that a value computed and never used (a debugging leftover) does not
// keep a program off a fast path whose kernel would not compute it either.
using LiveNodes = std::unordered_set<const ir::Node*>;

// The parts of a matcher over one program: its verdict and the reason a program
// is not matched ("" when it is), and the view a load or store accesses.
template <class Match> class DataflowMatcher {
public:
    explicit DataflowMatcher(const ir::Program& p, const LiveNodes* live = nullptr) : p_(p), live_(live) {}

protected:
    // A node nothing the program stores or yields reads (false when liveness is unknown).
    bool dead(const ir::Node* n) const { return live_ && live_->count(n) == 0; }
    // The match, or nullopt with `why` set to the first part that differed.
    std::optional<Match> verdict(bool ok, std::string* why) const {
        if (why) *why = ok ? "" : why_;
        if (!ok) return std::nullopt;
        return m_;
    }
    bool no(const std::string& why) {
        why_ = why;
        return false;
    }
    // The view parameter `access` reads or writes, when it is one (of rank `rank`,
    // any when negative; writable when asked).
    const detail::ParamSig* view(const ir::Node* access, int rank, bool writable) const;

    const ir::Program& p_;
    const LiveNodes* live_;
    Match m_;
    std::string why_;
};

template <class Match> const detail::ParamSig* DataflowMatcher<Match>::view(const ir::Node* access, int rank, bool writable) const {
    int i = ir::param_index(*access);
    if (i < 0 || static_cast<std::size_t>(i) >= p_.params.size()) return nullptr;
    const auto& q = p_.params[static_cast<std::size_t>(i)];
    return q.is_view && (rank < 0 || q.rank == rank) && (!writable || q.writable) ? &q : nullptr;
}

}  // namespace kiln::passes
