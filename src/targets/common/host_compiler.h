// The host C++ compiler that turns generated kernels into shared objects: found
// once per process ($CXX, else c++ or g++ on PATH), identified by every word of
// its command and the file identity (device, inode, size, modification time) of
// each program it names, the one behind a ccache-style wrapper included
// (running it for --version would cost milliseconds per process); invoked with
// fixed flags. Identity, flags and the host CPU (the code is built for
// -march=native) all enter the cache key.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::native {

struct HostCompiler {
    std::vector<std::string> command;  // the words of $CXX ("ccache g++", "c++ -O0"), else c++ or g++
    std::string identity;              // for cache keys: the command, and each program's path, device, inode, size and mtime
    std::string version() const;       // "g++ (Debian 12.2.0-14) 12.2.0" (runs the compiler once)
    std::vector<std::string> flags;
    std::string host_cpu;              // model name and ISA flags of this machine
    std::string flags_text() const;
    std::string command_text() const;  // the command's words, space-separated
};

// This machine's processor model and ISA flags (HostCompiler::host_cpu), read once.
const std::string& host_cpu_identity();

// The compiler, probed on first use; null with *why_not set when there is none.
const HostCompiler* host_compiler(std::string* why_not);

// The compiler a $CXX of `cxx` would give (empty: c++ or g++ on PATH), or nullopt
// with *why_not set. host_compiler() is this for the process's $CXX.
std::optional<HostCompiler> describe_compiler(std::string_view cxx, std::string* why_not);

// Compiles `source` into the shared object `output`, with `extra` flags after the
// compiler's own (a target's: include directories, dialect switches). On failure
// returns false and leaves the compiler's output in *log.
bool compile_shared_object(const HostCompiler& c, const std::filesystem::path& source, const std::filesystem::path& output, std::string* log,
                           const std::vector<std::string>& extra = {});

// Whether the compiler builds a trivial shared object in `dir` with the kernels'
// flags; its output in *log. One that cannot has failed for reasons of its own or
// of the machine (it does not run, the disk is full), not because of a kernel.
bool builds_trivial_object(const HostCompiler& c, const std::filesystem::path& dir, std::string* log);

}  // namespace kiln::native
