// The view side of a global access in generated CUDA: the coordinates of a tile
// element in its view, the in-range test of one coordinate, and the element offset.
// Views arrive as kernel arguments a<P> (pointer), a<P>_e<d> (extents) and
// a<P>_s<d> (strides); origins are i64 scalars, so coordinates are 64-bit.
#pragma once

#include <string>
#include <vector>

#include "targets/cuda/emitter.h"

namespace kiln::cu::view_access {

// The kernel arguments holding the extent and the stride of the access's view along dim d.
std::string extent(const Node& access, std::size_t d);
std::string stride(const Node& access, std::size_t d);

// The kernel argument a param, view_extent or view_stride node reads, as an
// expression (a bool parameter arrives as a byte: compared with 0).
std::string argument(const Node& leaf);

// Whether the access checks its coordinates (any bounds policy but bounds::assume).
bool checked(const Node& access);

// The view coordinates of tile element e: one 64-bit variable per dim, declared here.
std::vector<std::string> coordinates(Emitter& E, const Node& access, const std::vector<Dim>& dims, const std::string& e);

// Coordinate c of dim d is inside the view (one unsigned compare covers c < 0).
std::string in_range(const Node& access, std::size_t d, const std::string& c);

// The element offset of coordinates c (dims first..last), in kiln_idx.
std::string offset(const Node& access, const std::vector<std::string>& c);

}  // namespace kiln::cu::view_access
