// kiln's environment knobs (KILN_NUM_THREADS, KILN_CUDA_ELEMENTS_PER_THREAD, KILN_METAL_LOWERING):
// read one way, so that a value that is not a whole number in range is an error
// naming the variable and what it accepts, never a silent default or a wrap.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

namespace kiln::support {

// The value of `name` when set and non-empty; nullopt when unset or empty. A value
// that is not a decimal integer from `lo` to `hi` throws kiln::Error:
// "KILN_NUM_THREADS='0' is not a whole number from 1 to 4096".
std::optional<std::int64_t> env_integer(const char* name, std::int64_t lo, std::int64_t hi);

// The value of `name` when set and non-empty, which must be one of `choices`
// (else kiln::Error: "KILN_METAL_LOWERING='warp' is not one of: auto, thread").
std::optional<std::string> env_choice(const char* name, std::initializer_list<const char*> choices);

}  // namespace kiln::support
