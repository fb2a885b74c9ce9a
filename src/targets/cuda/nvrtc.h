// NVRTC, CUDA's run-time compiler, loaded with dlopen so that kiln builds without
// the CUDA toolkit. Searched as libnvrtc.so.13, then libnvrtc.so, in
// $CUDA_HOME/lib64 and /usr/local/cuda/lib64, then on the loader's default path.
// KILN_NVRTC=off makes a process behave as if there were none: kernels then come
// only from the cache (docs/design.md, "Cache": shipping a cache).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cu {

struct NvrtcOutput {
    std::string ptx;
    std::string cubin;  // machine code for the requested sm_ architecture
    std::string log;    // compiler and ptxas messages (ptxas -v resource lines included)
};

// "13.0"; empty when NVRTC is not found (then `why` says so). Loads NVRTC.
std::string nvrtc_version(std::string* why = nullptr);

// Which NVRTC a compile would use, for cache keys, found once per process: the
// library's build ID and its builtins library's (the same on every machine with
// that build), else the library file's path, device, inode, size and modification
// time (nvrtc.cpp says when). Loading NVRTC
// costs ~10 ms, so a launch whose kernel is cached never does: this only stats
// the file, unless NVRTC is left to the loader's search path (then it loads it
// and answers with its version). Empty when there is none (`why` says why).
const std::string& nvrtc_identity(std::string* why = nullptr);

// Compiles one translation unit. A compile error is an internal error (kiln
// generated the source), reported with the log; a missing NVRTC is a kiln::Error.
NvrtcOutput nvrtc_compile(const std::string& source, const std::string& file_name, const std::vector<std::string>& options);

// KILN_CUDA_PTXAS_OPTIONS: extra ptxas options for every kernel compiled (passed as
// --ptxas-options, e.g. "-O1"), for telling a ptxas miscompile from an NVVM one on a
// device; part of each kernel's cache key. Null when unset or empty.
const char* ptxas_options_knob();
// KILN_CUDA_FAST_COMPILE=min|mid|max (NVRTC's -Ofast-compile: NVVM and ptxas trade
// the kernel's speed for compile time), or nullopt when unset; another value is an
// error naming the variable.
std::optional<std::string> fast_compile_knob();

// Translation units nvrtc_compile has compiled in this process (tests count them).
std::size_t nvrtc_compiles();

}  // namespace kiln::cu
