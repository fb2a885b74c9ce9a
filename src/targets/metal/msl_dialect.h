// kiln's runtime headers in the dialect of Metal Shading Language. kround.h and
// kmath.h (the rounding rules and the math every engine shares) are written on
// `double`, which MSL does not have; the metal target pastes them into every
// kernel rewritten token by token onto kf64, kiln's software binary64
// (msl/kiln_kf64.h), which computes the same correctly rounded doubles:
//   double                      -> kf64
//   a double literal (1.0, 0x1p-30, 1.6e6)
//                               -> kf64_from_bits(0x...UL), its exact bits
//   long long, unsigned long long, ULL / LL suffixes
//                               -> long, ulong, UL / L (MSL's 64-bit integers)
//   T& name in a parameter list -> thread T& name (MSL pointers and references
//                                  name their address space)
//   __builtin_bit_cast(T, x)    -> kiln_bit_cast<T>(x); __builtin_sqrt -> kf64_sqrt
//   constexpr double N = v, ... -> inline kf64 N() {...}, and N -> N() after it
//                                  (no program-scope kf64 objects: MSL keeps those
//                                  in the constant address space)
//   static const (in functions) -> const (MSL has no static locals)
// Float literals with an f suffix, comments and preprocessor lines are kept.
// The result is the text a Mac compiles, and what kiln's shim compiles on Linux.
#pragma once

#include <string>
#include <string_view>

namespace kiln::mtl {

std::string msl_dialect(std::string_view cpp);

}  // namespace kiln::mtl
