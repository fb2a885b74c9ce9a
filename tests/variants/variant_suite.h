// The regression suite over kernels written the way users write them
// (gemm_variants.h, attention_variants.h): each variant is a kernel, the arguments
// it takes for a problem's sizes, the sizes to trace it at with the outcome the
// cuda target's plan must give there (the Hopper kernel, "fast", or the exact
// reason it gives for missing it), and a small ragged problem to run.
//
//   VariantPlan    traces the kernel and lowers it for cuda sm_90 in precision
//                  standard (no NVRTC, no device): the outcome must be the table's.
//   VariantCpu     runs it on the interpreter and on the cpu target in precision
//                  exact: every output bit-identical.
//   VariantDevice  (fast variants; skips without a device) runs it on cuda in
//                  precision standard: every output within the bound derived from
//                  the program (fuzz/standard_bound.h), or, where none is finite,
//                  within a relative L2 error of 2e-2 of the interpreter's.
//
// gemm_variants_test.cpp and attention_variants_test.cpp hold the tables and
// instantiate the suites; variants_test.cpp holds the tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "tests/unit/cpu_diff.h"

namespace kiln::variants {

enum class Family { gemm, attention };

// A problem's sizes. GEMM: C [m, n] = A [m, k] B [k, n] (batch for batched forms).
// Attention: q [batch, heads, queries, d], k [batch, kv_heads, keys, d],
// v [batch, kv_heads, keys, dv], o [batch, heads, queries, dv].
struct Dims {
    std::int64_t m = 0, n = 0, k = 0;
    std::int64_t batch = 1, heads = 0, kv_heads = 0, queries = 0, keys = 0, d = 0, dv = 0;
};

// One launch argument, described: a view read (random floats in [lo, hi), or
// integers in [lo, hi) for integer kinds), written, or both, or a number.
struct ArgSpec {
    enum Role { in, out, inout, number } role = in;
    Kind kind = Kind::F32;
    std::vector<std::int64_t> extents;
    double lo = -1, hi = 1;  // in, inout: the values' range; number: lo is the value
};

inline ArgSpec In(Kind kind, std::vector<std::int64_t> extents) { return {ArgSpec::in, kind, std::move(extents)}; }
inline ArgSpec Out(Kind kind, std::vector<std::int64_t> extents) { return {ArgSpec::out, kind, std::move(extents)}; }
inline ArgSpec InOut(Kind kind, std::vector<std::int64_t> extents) { return {ArgSpec::inout, kind, std::move(extents)}; }
// Integers in [lo, hi] (lengths, i8 operands).
inline ArgSpec Ints(Kind kind, std::vector<std::int64_t> extents, std::int64_t lo, std::int64_t hi) {
    return {ArgSpec::in, kind, std::move(extents), static_cast<double>(lo), static_cast<double>(hi + 1)};
}
inline ArgSpec Number(Kind kind, double value) { return {ArgSpec::number, kind, {}, value, value}; }

using ArgsFor = std::vector<ArgSpec> (*)(const Dims&);

// The outcome the plan gives at one problem: "fast", or why not (gemm_why, attention_why).
struct Trace {
    Dims dims;
    std::string expected;
};

inline const std::string fast = "fast";

struct Variant {
    std::string name;  // the kernel's name (and the test's)
    Family family = Family::gemm;
    Kernel (*make)() = nullptr;
    ArgsFor args = nullptr;
    std::vector<Trace> traces;  // VariantPlan at each; VariantDevice at each "fast" one
    Dims cpu;                   // VariantCpu's small ragged problem
    bool reaches_fast_path() const {
        for (const auto& t : traces)
            if (t.expected == fast) return true;
        return false;
    }
};

inline std::string describe(Family f, const Dims& d) {
    auto s = [](std::int64_t x) { return std::to_string(x); };
    if (f == Family::gemm) return "m " + s(d.m) + " n " + s(d.n) + " k " + s(d.k) + (d.batch > 1 ? " batch " + s(d.batch) : "");
    return "batch " + s(d.batch) + " heads " + s(d.heads) + "/" + s(d.kv_heads) + " queries " + s(d.queries) + " keys " + s(d.keys) + " d " +
           s(d.d) + "/" + s(d.dv);
}

// Host buffers for the arguments, seeded: the same specs and seed give the same bytes.
inline std::vector<cpu_diff::Buffer> buffers(const std::vector<ArgSpec>& specs, unsigned seed) {
    std::vector<cpu_diff::Buffer> bufs;
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const ArgSpec& s = specs[i];
        const unsigned at = seed * 1000u + static_cast<unsigned>(i) + 1u;
        switch (s.role) {
            case ArgSpec::in: bufs.push_back(cpu_diff::input(s.kind, s.extents, at, s.lo, s.hi)); break;
            case ArgSpec::out: bufs.push_back(cpu_diff::output(s.kind, s.extents)); break;
            case ArgSpec::inout: bufs.push_back(cpu_diff::inout(s.kind, s.extents, at, s.lo, s.hi)); break;
            case ArgSpec::number:
                bufs.push_back(is_float(s.kind) ? cpu_diff::scalar(s.kind, s.lo) : cpu_diff::scalar(s.kind, 0, static_cast<std::int64_t>(s.lo)));
                break;
        }
    }
    return bufs;
}

inline std::vector<detail::Arg> args_of(std::vector<cpu_diff::Buffer>& bufs) { return cpu_diff::buffer_args(bufs); }

class VariantPlan : public ::testing::TestWithParam<Variant> {};
class VariantCpu : public ::testing::TestWithParam<Variant> {};
class VariantDevice : public ::testing::TestWithParam<Variant> {};

// gtest prints a failing instance's parameter by its name (not its bytes).
inline void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

inline std::string variant_name(const ::testing::TestParamInfo<Variant>& info) { return info.param.name; }

inline std::vector<Variant> fast_only(const std::vector<Variant>& all) {
    std::vector<Variant> r;
    for (const auto& v : all)
        if (v.reaches_fast_path()) r.push_back(v);
    return r;
}

}  // namespace kiln::variants
