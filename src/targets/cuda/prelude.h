// The text every generated CUDA translation unit starts with. NVRTC has no
// standard headers, so kiln's runtime (kround.h, kmath.h) is pasted in verbatim,
// followed by the device helpers of prelude.cpp.
#pragma once

#include <string>

namespace kiln::cu {

// kround.h (rounding, integer rules) and the device helpers; with_math adds
// kmath.h (kiln's deterministic f64 math), needed only by exact-mode math calls
// and by f64 math, and costly to compile.
std::string prelude(bool with_math);

}  // namespace kiln::cu
