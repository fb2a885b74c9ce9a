// The op codes of the Tile IR, from the one list of ops (ops.def). Public because
// the templates users instantiate name ops; their traits live in src/ir/op_traits.h.
#pragma once

#include <cstdint>
#include <string_view>

namespace kiln::detail {

enum class OpCode : std::uint8_t {
#define KILN_OP(name, ...) name,
#include <kiln/detail/ops.def>
#undef KILN_OP
};

inline constexpr int op_count = 0
#define KILN_OP(name, ...) +1
#include <kiln/detail/ops.def>
#undef KILN_OP
    ;

constexpr std::string_view op_name(OpCode op) {
    constexpr std::string_view names[] = {
#define KILN_OP(name, ...) #name,
#include <kiln/detail/ops.def>
#undef KILN_OP
    };
    auto i = static_cast<int>(op);
    return i < op_count ? names[i] : std::string_view("?");
}

}  // namespace kiln::detail
