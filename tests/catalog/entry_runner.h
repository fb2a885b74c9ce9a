// Runs a catalog entry's own kernel on buffers a test chooses (hand-computed inputs,
// edge cases), so that tests check the entries themselves, not copies of them.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "catalog.h"

namespace kiln::catalog::testing {

// A buffer holding exactly these values (rounded to the kind).
inline std::shared_ptr<Buffer> buffer(Kind kind, std::vector<std::int64_t> extents, const std::vector<double>& v) {
    return input(kind, std::move(extents), [&v](std::int64_t i) { return v.at(static_cast<std::size_t>(i)); });
}

// The outputs of entry `name`'s kernel launched on `args` on the interpreter, each as
// doubles. `scalars` gives scalar arguments by position (views: anything).
inline std::vector<std::vector<double>> run_entry(const std::string& name, std::vector<std::shared_ptr<Buffer>> args,
                                                  std::vector<double> scalars = {}) {
    const Entry* e = find(name);
    if (!e) throw std::runtime_error("no catalog entry named " + name);
    Case c = e->cases(Size::small, 1).at(0);
    c.args = std::move(args);
    c.scalars = std::move(scalars);
    std::vector<std::vector<double>> out;
    for (const Buffer& b : run_outputs(c, interp(), {})) out.push_back(values(b));
    return out;
}

}  // namespace kiln::catalog::testing
