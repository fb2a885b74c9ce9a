// The host C++ compiler that turns generated kernels into shared objects: found
// once per process ($CXX, else c++ or g++ on PATH), identified by the real path,
// size and modification time of its executable (running it for --version would
// cost milliseconds per process), invoked with fixed flags. Identity, flags and
// the host CPU (the code is built for -march=native) all enter the cache key.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::native {

struct HostCompiler {
    std::vector<std::string> command;  // the compiler and any leading words of $CXX ("ccache g++")
    std::string identity;              // for cache keys: the executable's path, device, inode, size and mtime
    std::string version() const;       // "g++ (Debian 12.2.0-14) 12.2.0" (runs the compiler once)
    std::vector<std::string> flags;
    std::string host_cpu;              // model name and ISA flags of this machine
    std::string flags_text() const;
    std::string command_text() const;  // the command's words, space-separated
};

// The compiler, probed on first use; null with *why_not set when there is none.
const HostCompiler* host_compiler(std::string* why_not);

// Compiles `source` into the shared object `output`. On failure returns false
// and leaves the compiler's output in *log.
bool compile_shared_object(const HostCompiler& c, const std::filesystem::path& source, const std::filesystem::path& output, std::string* log);

// Whether the compiler builds a trivial shared object in `dir` with the kernels'
// flags; its output in *log. One that cannot has failed for reasons of its own or
// of the machine (it does not run, the disk is full), not because of a kernel.
bool builds_trivial_object(const HostCompiler& c, const std::filesystem::path& dir, std::string* log);

}  // namespace kiln::native
