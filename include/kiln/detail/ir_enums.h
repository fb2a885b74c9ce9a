// Small vocabulary shared by the public surface and the Tile IR (which must not
// include the whole DSL): bounds policies, loop kinds, memory resources and the
// signature of a kernel parameter.
#pragma once

#include <cstdint>
#include <string>

#include <kiln/kind.h>

namespace kiln {

// Bounds policies for loads and stores.
namespace bounds {
enum class Policy : std::uint8_t { zero = 0, check = 1, assume = 2 };
inline constexpr Policy zero = Policy::zero;      // out-of-range reads give 0 (or the fallback), writes are dropped
inline constexpr Policy check = Policy::check;    // out-of-range raises (CPU engines); refused for the GPU
inline constexpr Policy assume = Policy::assume;  // caller contract; the interpreter verifies it
}  // namespace bounds

namespace mem {
enum class Resource : std::uint8_t { automatic, shared, private_ };
inline constexpr Resource auto_ = Resource::automatic;
inline constexpr Resource shared = Resource::shared;
inline constexpr Resource private_ = Resource::private_;
}  // namespace mem

namespace detail {

enum class LoopKind : std::uint8_t { parallel = 0, serial = 1, pipeline = 2 };

// A kernel parameter as the trace sees it.
struct ParamSig {
    bool is_view = true;
    Kind kind = Kind::F32;
    int rank = 0;
    bool writable = false;
    std::string spelling;  // "View<const f32, 2>"
};

}  // namespace detail
}  // namespace kiln
