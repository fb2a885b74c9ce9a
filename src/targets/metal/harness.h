// A Mac harness for one metal launch (`kiln metal-harness`): a self-contained
// folder with the kernel's MSL, its inputs and launch block, the interpreter's
// outputs (and, for the simdgroup lowering, the f64 reference and each element's
// error bound), a manifest, and run.py, a host program on the Metal API (PyObjC)
// that compiles kernel.metal, runs the launch and exits 0 only when the outputs
// match: bit for bit in the per-thread lowering, within the bounds in the
// simdgroup lowering (the matrix units fuse and reorder each 8x8 block's sums).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <kiln/target.h>

#include "ir/ir.h"

namespace kiln::mtl {

struct HarnessOutput {
    int index = 0;                    // the view parameter
    std::vector<std::byte> expected;  // the interpreter's bytes
    std::vector<double> reference;    // the f64 reference, per element (empty: none)
    std::vector<double> bound;        // |device - reference| <= bound, per element
};

struct HarnessLaunch {
    std::string name;                 // for messages ("gemm, case 0 (13x10x11)")
    const ir::Program* program = nullptr;
    std::vector<detail::Arg> args;    // views hold the launch's initial contents
    CompileOptions options;
    std::vector<HarnessOutput> outputs;
};

// Writes the folder (created if missing; its files replaced). Returns the lowering.
std::string write_harness(const std::filesystem::path& dir, const HarnessLaunch& h);

}  // namespace kiln::mtl
