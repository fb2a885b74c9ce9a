// GELU in its two common forms, elementwise on tiles and scalars of a float kind.
// Every constant and intermediate rounds to the operand's kind (the narrow-mode rule).
#pragma once

#include <type_traits>

#include <kiln/ops.h>

namespace kiln {

namespace detail {
template <class X> concept FloatValue = is_value_v<std::remove_cvref_t<X>> && FloatElement<value_kind_t<X>>;
}  // namespace detail

// The tanh approximation (GPT-2, BERT): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
template <detail::FloatValue X> X gelu(const X& x, Loc loc = Loc::here()) {
    constexpr double sqrt_2_over_pi = 0.7978845608028654;
    auto inner = mul(add(x, mul(mul(mul(x, x, loc), x, loc), 0.044715, loc), loc), sqrt_2_over_pi, loc);
    return mul(mul(x, 0.5, loc), add(tanh(inner, loc), 1.0, loc), loc);
}

// The exact form: x Phi(x) = 0.5 x (1 + erf(x / sqrt(2))).
template <detail::FloatValue X> X gelu_erf(const X& x, Loc loc = Loc::here()) {
    constexpr double sqrt_half = 0.7071067811865476;
    return mul(mul(x, 0.5, loc), add(erf(mul(x, sqrt_half, loc), loc), 1.0, loc), loc);
}

}  // namespace kiln
