// A fuzz program's buffers, placed where a target runs. Each view's bytes are
// copied into a Tensor there with the public API (Tensor::to(cuda()) for the cuda
// target, to(host()) for the host targets, so that both paths are the same code),
// the launch's arguments point into those copies, and fetch() brings the bytes
// back with to(host()).
#pragma once

#include <variant>
#include <vector>

#include <kiln/kiln.h>

namespace kiln::fuzz {

struct Launch;

class Placed {
public:
    // Copies every view of `l` to `where`; an Error when it cannot (no device).
    Placed(const Launch& l, Placement where);
    const std::vector<detail::Arg>& args() const { return args_; }
    // Copies each view's bytes back into `into` (the launch placed, or a copy of it).
    void fetch(Launch& into) const;

private:
    // One tensor per view, of the view's element type (bool in i8: Tensor<bool>
    // does not exist, and the bytes are the same); monostate for scalars.
    using AnyTensor = std::variant<std::monostate, Tensor<i8>, Tensor<i32>, Tensor<i64>, Tensor<f16>, Tensor<bf16>, Tensor<f32>, Tensor<f64>>;
    std::vector<AnyTensor> tensors_;
    std::vector<detail::Arg> args_;
};

}  // namespace kiln::fuzz
