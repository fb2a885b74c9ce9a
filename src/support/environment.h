// kiln's numeric environment knobs (KILN_NUM_THREADS, KILN_CUDA_ELEMENTS_PER_THREAD):
// read one way, so that a value that is not a whole number in range is an error
// naming the variable and what it accepts, never a silent default or a wrap.
#pragma once

#include <cstdint>
#include <optional>

namespace kiln::support {

// The value of `name` when set and non-empty; nullopt when unset or empty. A value
// that is not a decimal integer from `lo` to `hi` throws kiln::Error:
// "KILN_NUM_THREADS='0' is not a whole number from 1 to 4096".
std::optional<std::int64_t> env_integer(const char* name, std::int64_t lo, std::int64_t hi);

}  // namespace kiln::support
