// What a cpu launch compiles to: the specialisation its arguments select (index
// width, unit inner strides), the generated source and its cache key, and the
// plan text `kiln plan` shows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <kiln/target.h>

#include "passes/host_scalars.h"
#include "targets/cpu/emit_cpp.h"
#include "targets/common/host_compiler.h"

namespace kiln::native {

// Every field enters program_index.cpp's index_key() (the source depends on it).
struct LaunchSpec {
    EmitOptions emit;
    Precision precision = Precision::standard;
    bool operator==(const LaunchSpec& o) const {
        return emit.index64 == o.emit.index64 && emit.unit_inner == o.emit.unit_inner && emit.stream_stores == o.emit.stream_stores &&
               emit.stream_every_store == o.emit.stream_every_store &&
               precision == o.precision;
    }
};

LaunchSpec launch_spec(const ir::Program& p, const std::vector<detail::Arg>& args, const CompileOptions& opts);

// SHA-256 over everything that determines the shared object.
std::string cache_key(const Emitted& e, const LaunchSpec& spec, const HostCompiler& compiler);


using passes::grid_extents;

// Chunking of a grid over threads: `chunks` calls of `per_chunk` instances.
struct Chunking {
    std::int64_t chunks = 1;
    std::int64_t per_chunk = 1;
};
Chunking chunking(std::int64_t instances, int threads);

std::string plan_text(const ir::Program& p, const std::vector<detail::Arg>& args, const LaunchSpec& spec, const Emitted& e,
                      const std::string& key, const HostCompiler* compiler, const std::string& why_no_compiler);

}  // namespace kiln::native
