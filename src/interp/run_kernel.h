// The reference interpreter for kernels: instances in pid order, each reading the
// buffers as they were at launch entry; writes are applied when all are done.
#pragma once

#include <kiln/target.h>

#include "ir/ir.h"

namespace kiln::ref {

struct RunOptions {
    bool checked = true;  // bounds (check/assume) and cross-instance conflicts
};

void run_program(const ir::Program& p, const std::vector<detail::Arg>& args, const RunOptions& opts);

// The message for a tile of `elements` that cannot be allocated (std::bad_alloc).
std::string tile_too_large(std::int64_t elements);

// Element access on a launch argument (shared with other host targets' tests).
double read_float(const detail::Arg& a, std::int64_t offset);
std::int64_t read_int(const detail::Arg& a, std::int64_t offset);
void write_float(const detail::Arg& a, std::int64_t offset, double v);
void write_int(const detail::Arg& a, std::int64_t offset, std::int64_t v);

}  // namespace kiln::ref
