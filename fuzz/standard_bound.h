// How far a target in precision standard may write from the interpreter's bytes,
// derived from the program itself.
//
// In precision standard a target may differ from the interpreter in four ways
// only (docs/semantics.md): float sums it reassociates (reduce, scan, mma: trees,
// vector lanes, tensor cores, FMA), mma inputs it narrows to tf32 when allowed, its
// own transcendental functions (within 2 ulp), and a product it fuses with the sum
// that consumes it (FMA; the cuda target compiles with --fmad=true). Everything
// else is correctly rounded on every target, so an operation whose operands are
// identical gives identical bits.
//
// The analysis walks the traced program once (each loop body as many times as it
// can run) and gives every value a bound on its difference between the two
// targets, for all of its elements at once:
//
//   |target - interp| <= abs + rel * |interp|      (element by element)
//
// with a bound on its magnitude (|value| <= mag) taken from the launch's actual
// inputs. Values no difference reaches keep abs = rel = 0: the outputs they feed
// must be bit-identical, as in precision exact. Differences propagate by each
// operation's worst case (the error analysis of examples/error_bound.h, here over
// magnitudes rather than per element): sums add them, products scale them by the
// other operand's magnitude, exp turns an absolute difference into a relative one,
// max/min/sort/data movement pass them on, and each rounding of two different
// values adds an ulp. A reassociated sum of n terms of magnitude m differs by at
// most 2 gamma(n) n m (each target within gamma(n) of the exact sum, Higham ch. 3),
// tensor cores counting two roundings per addition. Where no finite bound exists
// (a comparison, a cast to an integer, an index or a division whose operands
// differ, an overflow), the value's bound is infinite and the outputs it reaches
// are left unchecked (and counted as such).
#pragma once

#include <cstdint>
#include <vector>

#include <kiln/target.h>

namespace kiln::ir {
struct Program;
}

namespace kiln::fuzz {

struct DifferenceBound {
    double abs = 0, rel = 0;
    bool exact() const { return abs == 0 && rel == 0; }
    bool bounded() const;
    // Whether `got` is within the bound of `ref` (any two NaNs match).
    bool admits(double ref, double got) const;
};

// One bound per kernel parameter: the join over every store to that view (scalars
// and views never written keep exact()). `max_trips` bounds every serial or
// pipeline loop's trip count.
std::vector<DifferenceBound> standard_bounds(const ir::Program& p, const std::vector<detail::Arg>& args, std::int64_t max_trips);

}  // namespace kiln::fuzz
