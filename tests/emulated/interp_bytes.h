// The emulated tests' common check: a kernel on the emulated cuda target writes,
// bit for bit, what the interpreter writes.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cuda_emulator.h"
#include "kiln/detail/identical.h"
#include "tests/unit/cpu_diff.h"

namespace kiln::emulated {

// The first element of `got` that is not the interpreter's `want`, or "".
inline std::string first_difference(const cpu_diff::Buffer& want, const cpu_diff::Buffer& got) {
    const long long e = detail::first_non_identical(want.arg.kind, want.bytes.data(), got.bytes.data(), want.bytes.size());
    return e < 0 ? "" : "element " + std::to_string(e) + " differs";
}

// An output laid out as `like` (its shape and strides: the padding between rows too),
// every byte 0x5a as cpu_diff::output fills: bytes no element covers must keep it.
inline cpu_diff::Buffer output_like(const cpu_diff::Buffer& like) {
    cpu_diff::Buffer y = like;
    std::fill(y.bytes.begin(), y.bytes.end(), 0x5a);
    y.arg.data = y.bytes.data();
    y.arg.read_only = false;
    y.output = true;
    return y;
}

// Runs `k` over `bufs` on the interpreter and the emulated cuda target and expects
// every output identical.
inline void expect_interp_bytes(const Kernel& k, const std::vector<cpu_diff::Buffer>& bufs, Precision precision = Precision::exact) {
    auto want = cpu_diff::run_on(k, interp(), bufs, {.precision = precision});
    auto got = cpu_diff::run_on(k, cuda_emulated(), bufs, {.precision = precision});
    for (std::size_t i = 0; i < bufs.size(); ++i)
        if (bufs[i].output) EXPECT_EQ(first_difference(want[i], got[i]), "") << k.name() << ": argument " << i;
}

}  // namespace kiln::emulated
