#include "targets/metal/harness.h"

#include <cstring>
#include <sstream>

#include "cache/private_files.h"
#include "passes/host_scalars.h"
#include "passes/index_width.h"
#include "targets/common/embedded_text.h"
#include "targets/metal/emit_msl.h"
#include "targets/metal/launch_block.h"
#include "targets/metal/metal_target.h"
#include "targets/metal/shim_module.h"

namespace kiln::mtl {

namespace {

std::string bytes_of(const void* p, std::size_t n) { return std::string(static_cast<const char*>(p), n); }

std::string doubles(const std::vector<double>& v) { return bytes_of(v.data(), v.size() * sizeof(double)); }

std::string quoted(const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') q += '\\';
        q += c;
    }
    return q + "\"";
}

// Writes dir/name (name may hold a subfolder: "data/arg0.bin").
void write(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
    const std::filesystem::path file = dir / name;
    try {
        cache::replace_file(file.parent_path(), file.filename().string(), text);
    } catch (const cache::IoError& e) {
        throw Error("metal-harness: cannot write " + (dir / name).string() + ": " + e.detail());
    }
}

// Builds shim/kernel.so from shim/kernel.cpp (which includes kernel.metal) with the
// float flags of kiln's own shim builds (host_compiler.cpp, shim_module.cpp), but
// for the build machine's generic ISA.
std::string build_shim_script() {
    std::string extra;
    for (const auto& f : shim_flags()) extra += " " + f;
    return "#!/bin/sh\n"
           "# Compiles kernel.metal as C++ against kiln's Metal shim (shim/metal_stdlib); then\n"
           "# `python3 run.py --shim shim/kernel.so` checks its outputs bit for bit.\n"
           "set -e\ncd \"$(dirname \"$0\")\"\n"
           "${CXX:-c++} -std=c++20 -O2 -fPIC -shared -ffp-contract=off -fno-fast-math -fno-math-errno -fno-trapping-math -w" + extra +
           " -I shim -I . shim/kernel.cpp -o shim/kernel.so\n";
}

}  // namespace

std::string write_harness(const std::filesystem::path& dir, const HarnessLaunch& h) {
    const ir::Program& p = *h.program;
    const Emitted e = emit_msl(p, emit_options(h.args, h.options));
    const std::int64_t instances = passes::grid_instances(p, h.args);
    const std::int64_t groups = dispatch_groups(e.simdgroup, e.threads_per_group, instances);
    const std::string lowering = e.simdgroup ? "simdgroup" : "per-thread";
    std::error_code ec;
    std::filesystem::create_directories(dir / "data", ec);
    if (ec) throw Error("metal-harness: cannot create " + (dir / "data").string() + ": " + ec.message());

    std::ostringstream m;
    m << "{\n  \"name\": " << quoted(h.name) << ",\n  \"entry\": " << quoted(e.entry) << ",\n  \"lowering\": " << quoted(lowering)
      << ",\n  \"precision\": " << quoted(std::string(precision_name(h.options.precision))) << ",\n  \"threads_per_group\": "
      << e.threads_per_group << ",\n  \"groups\": " << groups << ",\n  \"instances\": " << instances << ",\n  \"launch_index\": " << p.params.size()
      << ",\n  \"shim_stack_bytes\": " << shim_stack_bytes(e) << ",\n  \"buffers\": [\n";
    bool first = true;
    for (std::size_t k = 0; k < h.args.size(); ++k) {
        const detail::Arg& a = h.args[k];
        if (!a.is_view) continue;
        bool empty = false;
        for (auto x : a.extents) empty = empty || x == 0;
        const std::int64_t elements = empty ? 0 : passes::view_span(a) + 1;  // from the view's first element to its last
        const std::size_t n = static_cast<std::size_t>(elements * kind_bytes(a.kind));
        const std::string file = "data/arg" + std::to_string(k) + ".bin";
        write(dir, file, bytes_of(a.data, n));
        m << (first ? "" : ",\n") << "    {\"index\": " << k << ", \"file\": " << quoted(file) << ", \"kind\": " << quoted(std::string(kind_name(a.kind)))
          << ", \"bytes\": " << n << ", \"writable\": " << (p.params[k].writable ? "true" : "false") << "}";
        first = false;
    }
    const std::vector<std::int64_t> block = launch_block(p, h.args, instances);
    write(dir, "data/launch.bin", bytes_of(block.data(), block.size() * 8));
    m << (first ? "" : ",\n") << "    {\"index\": " << p.params.size() << ", \"file\": \"data/launch.bin\", \"kind\": \"i64\", \"bytes\": " << block.size() * 8
      << ", \"writable\": false}\n  ],\n  \"outputs\": [\n";
    for (std::size_t o = 0; o < h.outputs.size(); ++o) {
        const HarnessOutput& out = h.outputs[o];
        const Kind kind = h.args.at(static_cast<std::size_t>(out.index)).kind;
        const bool bounded = e.simdgroup && is_float(kind) && !out.reference.empty();
        const std::string stem = "data/out" + std::to_string(out.index);
        write(dir, stem + ".expected.bin", bytes_of(out.expected.data(), out.expected.size()));
        m << "    {\"index\": " << out.index << ", \"kind\": " << quoted(std::string(kind_name(kind))) << ", \"bytes\": " << out.expected.size()
          << ", \"check\": " << quoted(bounded ? "bound" : "bitwise") << ", \"expected\": " << quoted(stem + ".expected.bin");
        if (bounded) {
            write(dir, stem + ".reference.f64", doubles(out.reference));
            write(dir, stem + ".bound.f64", doubles(out.bound));
            m << ", \"reference\": " << quoted(stem + ".reference.f64") << ", \"bound\": " << quoted(stem + ".bound.f64");
        }
        m << "}" << (o + 1 < h.outputs.size() ? "," : "") << "\n";
    }
    m << "  ]\n}\n";
    write(dir, "manifest.json", m.str());
    write(dir, "kernel.metal", e.source);
    write(dir, "run.py", std::string(embedded::run_py()));
    // The same kernel.metal through kiln's C++ shim, on any machine (build_shim.sh, then run.py --shim).
    std::filesystem::create_directories(dir / "shim", ec);
    if (ec) throw Error("metal-harness: cannot create " + (dir / "shim").string() + ": " + ec.message());
    write(dir, "shim/kernel.cpp", shim_glue(p, e));
    write(dir, "shim/metal_stdlib", std::string(embedded::metal_stdlib()));
    write(dir, "build_shim.sh", build_shim_script());
    std::ostringstream readme;
    readme << "# kiln Metal harness: " << h.name << "\n\n"
           << "Written by `kiln metal-harness`. On a Mac with Python 3:\n\n"
           << "    pip install pyobjc-framework-Metal\n    python3 run.py\n\n"
           << "`run.py` compiles `kernel.metal` (kiln's generated MSL, function `" << e.entry << "`) with fast math off, binds\n"
           << "the buffers of `data/` by index (`manifest.json`), dispatches " << groups << " threadgroup(s) of " << e.threads_per_group
           << " threads and compares the\noutputs with the interpreter's: it exits 0 on a match, 1 on a mismatch, 2 if it cannot run.\n\n"
           << "Without a Mac, `sh build_shim.sh && python3 run.py --shim shim/kernel.so` runs the same `kernel.metal`\n"
           << "through kiln's C++ shim (`shim/metal_stdlib`), where every output must match bit for bit.\n\n"
           << "Lowering: " << e.lowering << ".\n"
           << (e.simdgroup ? "The matrix units round each 8x8 block in their own order, so float outputs must lie within the\n"
                             "error bound of the f64 reference (`*.bound.f64`, the catalog's error analysis).\n"
                           : "The per-thread lowering is bit-exact: every output byte must equal the interpreter's.\n");
    write(dir, "README.md", readme.str());
    return lowering;
}

}  // namespace kiln::mtl
