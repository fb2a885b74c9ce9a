// ir, plan and source for a kernel a user's shared library exports (kiln/export.h),
// rather than a catalog entry: `kiln plan softmax --library libmine.so --arg 64x128
// --arg 64x128`. Views are given as their extents (row-major), scalars as numbers.
#pragma once

#include <string>
#include <vector>

namespace kiln::cli {

// what: 0 Tile IR, 1 plan, 2 source, 3 PTX (kiln_abi_kernel::describe's codes).
std::string describe_library_kernel(const std::string& library, const std::string& name, const std::vector<std::string>& args, int what,
                                    const std::string& target, const std::string& precision);

}  // namespace kiln::cli
