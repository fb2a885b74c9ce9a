// A 1-D grid's tile map: the block indices a program computes from its pid (Triton's
// grouped order for L2 reuse, a swizzle, a reversed walk), evaluated on the host for
// every pid of one launch. A target whose kernel orders the tiles its own way (the
// Hopper GEMM's persistent scheduler) may ignore the program's order only where the
// map visits each tile of a rectangle exactly once: then every tile is computed once
// whatever the order, as the program computes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/ir.h"
#include "passes/host_scalars.h"

namespace kiln::passes {

// The rectangle of blocks a tile map covers: rows (the m-block index's range) and
// columns (the n-block index's).
struct TileMapGrid {
    std::int64_t rows = 0, cols = 0;
};

// The ops a tile map may use besides the nest's index and host scalars: integer
// + - * / % min max, evaluated with the interpreter's semantics (interp/semantics.h).
bool tile_map_op(detail::OpCode op);

// Whether x is a tile map's value in the 1-D nest whose index is `pid`: pid, a host
// scalar, or tile_map_op of such values (integer scalars throughout). The matcher
// asks it; tile_map_grid compiles exactly what it accepts.
bool tile_map_value(const ir::Node& x, const ir::Node* pid);

// Evaluates the block indices `m_index` and `n_index` (integer scalars of the 1-D
// nest `grid`, of its index and of host scalars through tile_map_op's ops) for every
// pid of this launch. Returns the rectangle when the pairs are each tile of
// [0, rows) x [0, cols) once, with rows * cols = the grid's extent; else nullopt,
// saying why in `why`. Memoised by the map's values: a warm launch of the same map
// and extents evaluates nothing.
std::optional<TileMapGrid> tile_map_grid(const ir::Node& grid, const ir::Node* m_index, const ir::Node* n_index, HostScalars& scalars,
                                         std::string* why);

}  // namespace kiln::passes
