// KILN_CUDA_SOURCE_DIR: a directory of edited kernel sources, for bisecting a
// compiler bug on a device. A file <kernel>.cu there (the kernel's name as
// KILN_DUMP_DIR writes it, without the key) is compiled in place of the source the
// emitter generates for that kernel, once the kernel cache's spill ladder has
// chosen the kernel (kernel_cache.cpp: edited_kernel); everything else about the
// launch (entry points, threads, grid, shared memory, arguments) stays the chosen
// kernel's, so the file should be its dump (KILN_DUMP_DIR's <kernel>-<key>.cu whose
// key the plan's cache line names), edited. Each kernel compiled so warns once;
// `kiln plan` names the file. Kernels without a file there are generated as usual.
#pragma once

#include <optional>
#include <string>

namespace kiln::cu {

struct SourceOverride {
    std::string path;  // the file read
    std::string text;  // its contents
};

// Whether KILN_CUDA_SOURCE_DIR is set (launches then skip the program index, which
// maps a program to the kernel generated for it).
bool source_override_set();

// The edited source of kernel `name`, if KILN_CUDA_SOURCE_DIR holds one. A file
// that exists but cannot be read is a kiln::Error naming it.
std::optional<SourceOverride> source_override(const std::string& name);

}  // namespace kiln::cu
