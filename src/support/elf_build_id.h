// The GNU build ID of an ELF file: the linker's hash of the file's contents, kept in
// a note (NT_GNU_BUILD_ID). It names one build of a library on every machine that
// has it, where a file's device, inode and modification time name one copy on one
// machine: the CUDA kernel cache keys NVRTC's output by it, so that kernels compiled
// on one machine serve another with the same NVRTC (targets/cuda/nvrtc.cpp).
#pragma once

#include <string>

namespace kiln::support {

// The build ID of the 64-bit little-endian ELF file at `path` in lower-case hex,
// or "" when the file cannot be read, is not such a file, or has no build ID note.
// Reads only the ELF header, the program headers and the note segments.
std::string elf_build_id(const std::string& path);

}  // namespace kiln::support
