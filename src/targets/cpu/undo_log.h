// The contract says a launch's writes land only when every instance has
// succeeded (the interpreter applies them after the last instance). Generated
// kernels write in place as they go, so a kernel that can fail (a bounds::check
// or bounds::assume access) first copies the elements of the views it writes,
// and a failed launch puts them back: the caller sees its buffers as they were.
// Kernels that cannot fail pay nothing.
#pragma once

#include <vector>

#include <kiln/target.h>

#include "ir/ir.h"

namespace kiln::native {

// The parameters whose views `p` stores to, when one of its accesses can raise
// (bounds::check, bounds::assume); empty otherwise.
std::vector<int> views_to_restore_on_failure(const ir::Program& p);

class UndoLog {
public:
    // Copies the elements of view `a` (every element its extents and strides
    // reach, nothing between them).
    void save(const detail::Arg& a);
    // Writes the copies back.
    void restore() const;

private:
    struct Saved {
        detail::Arg view;
        std::vector<unsigned char> bytes;
    };
    std::vector<Saved> saved_;
};

}  // namespace kiln::native
