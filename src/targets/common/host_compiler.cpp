// Finding, identifying and running the host compiler. Processes are started with
// posix_spawn (safe in a multithreaded program) and their output read through a
// pipe.
#include "targets/common/host_compiler.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "cache/private_files.h"

extern char** environ;

namespace kiln::native {

namespace {

// Flags for every kernel. Bit-exactness needs no FMA contraction and no
// fast-math; -fno-math-errno only lets sqrt be one instruction (it is correctly
// rounded either way). Kernels are built for this machine's vector ISA. -O2, not
// -O3: on the catalog -O3 compiled 1.5-6x slower and ran the GEMM slower (g++ 12).
// -fno-trapping-math lets the compiler evaluate both sides of a float select and
// blend them (kiln_cpu::exp32's loops vectorise only so), which may raise FP
// exception flags that nothing reads; but GCC 12 also changed a value under it (the
// sign of a zero sum, kiln fuzz seed 58008371), so exact kernels turn trapping math
// back on in their source (cpu/emit_cpp.cpp).
const std::vector<std::string> kFlags = {"-std=c++20", "-O2", "-march=native", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math",
                                         "-fno-math-errno", "-fno-trapping-math", "-fvisibility=hidden", "-w"};

// GCC only, on every machine: -fno-tree-vrp. GCC 12.2 gave a loaded value a wrong
// range. VRP rightly gives `x != 0 ? x : -1` the range "not 0"; phiopt rewrote that
// select's only use (`69 < it`) as `69 < x` and x came out of it with the select's
// range (the -fdump-tree-all-alias dumps), so copy propagation took a later
// `x != 0 ? pow(x, x) : 2 pow(x, x)` to be always its first arm: 1 where the contract
// gives 2 for x = 0 (kiln fuzz program 81640822, exact precision;
// tests/fuzz/cpu_regression_test.cpp; with or without -march=native). -fno-ssa-phiopt
// avoids it too but halved the rows benchmark's top-2 router; without VRP the rows
// benchmark, the GEMM, softmax and RMSNorm ran as before
// (bench/results/fuzz-cpu-20261205-s30.md).
const std::vector<std::string> kGnuFlags = {"-fno-tree-vrp"};

// GCC only: its x86 backend (12.2 here) may load a
// 256- or 512-bit constant as one 32- or 64-bit value broadcast to every lane when
// the constant's stored words repeat: it compares the words the wide constant keeps
// and forgets that the missing upper ones are zeros. {1, 1, 1, 1, 1, 1, 0, 0} as
// eight floats, a folded `iota < 6` mask, became eight ones on an AVX-512 host
// (kiln fuzz program 80239140, a loop's carried row initialised from such a mask;
// tests/fuzz/cpu_regression_test.cpp). GCC tries that broadcast only when it may
// move a general register into a vector register directly, a tuning choice this
// turns off (such moves go through memory: the rows benchmark showed no loss,
// bench/results/cpu-20261204.md).
// (x86 hosts only: kernels are built for this machine, -march=native.)
const std::vector<std::string> kGnuX86Flags = {"-mtune-ctrl=^inter_unit_moves_to_vec"};

// Runs argv, returning its exit status (-1 if it could not start) and its
// combined stdout and stderr in *output.
int run_process(const std::vector<std::string>& argv, std::string* output) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid;
    int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return -1;
    }
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        output->append(buf, static_cast<std::size_t>(n));
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The executable a command name runs, or "" when there is none.
std::string resolve(const std::string& name) {
    if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
    const char* path = std::getenv("PATH");
    for (std::string_view dirs = path ? path : ""; !dirs.empty();) {
        std::size_t colon = std::min(dirs.find(':'), dirs.size());
        std::string candidate = std::string(dirs.substr(0, colon)) + "/" + name;
        if (colon > 0 && access(candidate.c_str(), X_OK) == 0) return candidate;
        dirs.remove_prefix(std::min(colon + 1, dirs.size()));
    }
    return "";
}

// The compiler's identity for cache keys: the file its command runs (symlinks
// followed, as /etc/alternatives switches compilers with them), by device, inode,
// size and modification time (ccache's "mtime" check, made stricter). Running
// `--version` costs ~6 ms per process, too much for a warm cache hit; it runs
// only when a message needs the version text. One stat(2): probing is part of a
// fresh process's first launch.
std::string stat_identity(const std::string& path) {
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0) return "";
    return path + " dev=" + std::to_string(st.st_dev) + " ino=" + std::to_string(st.st_ino) + " size=" + std::to_string(st.st_size) +
           " mtime=" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

// The value of the first "<name> : value" line of `text` ("" if none), from after the colon.
std::string cpuinfo_field(std::string_view text, std::string_view name) {
    for (std::size_t at = 0; at < text.size();) {
        std::size_t eol = std::min(text.find('\n', at), text.size());
        std::string_view line = text.substr(at, eol - at);
        if (line.starts_with(name) && line.find(':') != std::string_view::npos) return std::string(line.substr(line.find(':') + 1));
        at = eol + 1;
    }
    return "";
}

// The first processor's model and ISA flags ("Features" and "CPU part" where the
// kernel names them so, as on arm64), read from /proc/cpuinfo with plain read(2)
// calls up to the end of that processor's entry: the kernel generates the file as
// it is read, and on a machine with many processors the rest is long.
std::string cpu_identity() {
    int fd = ::open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "";
    std::string text;
    char buf[8192];
    while (text.find("\n\n") == std::string::npos) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    text.resize(std::min(text.find("\n\n"), text.size()));
    std::string model = cpuinfo_field(text, "model name"), flags = cpuinfo_field(text, "flags");
    if (model.empty()) model = cpuinfo_field(text, "CPU implementer") + cpuinfo_field(text, "CPU part");
    if (flags.empty()) flags = cpuinfo_field(text, "Features");
    return model + " |" + flags;
}

// Compiler wrappers that, run under a compiler's name (a "masquerade" symlink
// such as /usr/lib/ccache/c++), run the next program of that name on PATH.
bool is_wrapper(const std::string& executable) {
    std::error_code ec;
    std::string name = std::filesystem::canonical(executable, ec).filename().string();
    return !ec && (name == "ccache" || name == "sccache" || name == "distcc" || name == "icecc");
}

// The program a masquerading wrapper runs for `name`: the first on PATH that is
// not the wrapper itself ("" if none).
std::string behind_wrapper(const std::string& name, const std::string& wrapper) {
    std::error_code ec;
    const auto self = std::filesystem::canonical(wrapper, ec);
    const char* path = std::getenv("PATH");
    for (std::string_view dirs = path ? path : ""; !dirs.empty();) {
        std::size_t colon = std::min(dirs.find(':'), dirs.size());
        std::string candidate = std::string(dirs.substr(0, colon)) + "/" + name;
        dirs.remove_prefix(std::min(colon + 1, dirs.size()));
        if (colon == 0 || access(candidate.c_str(), X_OK) != 0) continue;
        auto real = std::filesystem::canonical(candidate, ec);
        if (!ec && real != self) return candidate;
    }
    return "";
}

// Everything about the command that can change the code it builds: every word
// (flags such as -O0 or -fsanitize=address included), the file identity of each
// word that names a program (a wrapper's compiler: "ccache g++"), and, when the
// command is a wrapper under a compiler's name, the program behind it.
std::string command_identity(const std::vector<std::string>& command, const std::string& executable) {
    std::string id = "command:";
    for (const auto& w : command) id += " " + w;
    auto program = [&](const std::string& word, const std::string& file) {
        id += "\nprogram: " + stat_identity(file);
        const std::string name = std::filesystem::path(word).filename().string();
        if (is_wrapper(file) && !is_wrapper(name)) id += "\nbehind the wrapper: " + stat_identity(behind_wrapper(name, file));
    };
    program(command[0], executable);
    for (std::size_t k = 1; k < command.size(); ++k)
        if (std::string file = command[k].starts_with("-") ? "" : resolve(command[k]); !file.empty()) program(command[k], file);
    return id;
}

// Whether the command's compiler is GCC, from the name of the file it runs (symlinks
// followed: c++ -> /etc/alternatives/c++ -> x86_64-linux-gnu-g++-12; behind a
// ccache-style wrapper, the program the wrapper runs): "g++" or "gcc" and not
// "clang". Only a name that says neither (another compiler, a script) asks
// `--version`, whose text names the Free Software Foundation for GCC: that costs
// milliseconds of a fresh process's first launch (stat_identity).
bool is_gnu_compiler(const std::vector<std::string>& command, const std::string& executable) {
    std::string program = executable;
    if (is_wrapper(executable)) {
        const std::string name = std::filesystem::path(command[0]).filename().string();
        if (!is_wrapper(name)) program = behind_wrapper(name, executable);                 // masquerading as the compiler
        else if (command.size() > 1 && !command[1].starts_with("-")) program = resolve(command[1]);  // "ccache g++"
    }
    std::error_code ec;
    const std::string name = std::filesystem::canonical(program, ec).filename().string();
    if (!ec && name.find("clang") != std::string::npos) return false;
    if (!ec && (name.find("g++") != std::string::npos || name.find("gcc") != std::string::npos)) return true;
    std::vector<std::string> argv = command;
    argv.push_back("--version");
    std::string out;
    return run_process(argv, &out) == 0 && out.find("Free Software Foundation") != std::string::npos;
}

}  // namespace

const std::string& host_cpu_identity() {
    static const std::string id = cpu_identity();
    return id;
}

std::optional<HostCompiler> describe_compiler(std::string_view cxx, std::string* why_not) {
    std::vector<std::string> command;
    std::string executable;
    if (!cxx.empty()) {
        std::stringstream words{std::string(cxx)};
        for (std::string w; words >> w;) command.push_back(w);
        if (!command.empty()) executable = resolve(command[0]);
        if (executable.empty()) {
            *why_not = "CXX='" + std::string(cxx) + "' names no executable";
            return std::nullopt;
        }
    } else {
        for (const char* name : {"c++", "g++"})
            if (!(executable = resolve(name)).empty()) {
                command = {name};
                break;
            }
        if (command.empty()) {
            *why_not = "no host C++ compiler: set CXX, or put c++ or g++ on PATH";
            return std::nullopt;
        }
    }
    if (stat_identity(executable).empty()) {
        *why_not = "cannot stat the host compiler '" + command[0] + "'";
        return std::nullopt;
    }
    HostCompiler c;
    c.command = command;
    c.identity = command_identity(command, executable);
    c.flags = kFlags;
    if (is_gnu_compiler(command, executable)) {
        c.flags.insert(c.flags.end(), kGnuFlags.begin(), kGnuFlags.end());
#if defined(__x86_64__) || defined(__i386__)  // -mtune-ctrl is an x86 option: GCC for other machines rejects it
        c.flags.insert(c.flags.end(), kGnuX86Flags.begin(), kGnuX86Flags.end());
#endif
    }
    c.host_cpu = host_cpu_identity();
    return c;
}

namespace {

struct Probe {
    std::optional<HostCompiler> compiler;
    std::string why_not;
};

Probe probe() {
    Probe p;
    const char* cxx = std::getenv("CXX");
    p.compiler = describe_compiler(cxx ? cxx : "", &p.why_not);
    return p;
}

}  // namespace

std::string HostCompiler::version() const {
    static std::mutex mutex;
    static std::unordered_map<std::string, std::string> texts;  // by identity: each compiler runs once
    std::lock_guard<std::mutex> g(mutex);
    auto [it, fresh] = texts.try_emplace(identity);
    if (fresh) {
        std::vector<std::string> argv = command;
        argv.push_back("--version");
        std::string out;
        it->second = run_process(argv, &out) == 0 ? out.substr(0, out.find('\n')) : "'" + command_text() + " --version' failed";
    }
    return it->second;
}

std::string HostCompiler::command_text() const {
    std::string s;
    for (auto& w : command) s += (s.empty() ? "" : " ") + w;
    return s;
}

std::string HostCompiler::flags_text() const {
    std::string s;
    for (auto& f : flags) s += (s.empty() ? "" : " ") + f;
    return s;
}

const HostCompiler* host_compiler(std::string* why_not) {
    static const Probe p = probe();
    if (!p.compiler) {
        if (why_not) *why_not = p.why_not;
        return nullptr;
    }
    return &*p.compiler;
}

bool compile_shared_object(const HostCompiler& c, const std::filesystem::path& source, const std::filesystem::path& output, std::string* log,
                           const std::vector<std::string>& extra) {
    std::vector<std::string> argv = c.command;
    argv.insert(argv.end(), c.flags.begin(), c.flags.end());
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), {"-o", output.string(), source.string()});
    int rc = run_process(argv, log);
    if (rc == -1 && log->empty()) *log = "could not run " + c.command[0] + " (or it was killed by a signal)";
    else if (rc > 0 && log->empty()) *log = c.command[0] + " exited with status " + std::to_string(rc) + " and printed nothing";
    return rc == 0;
}

bool builds_trivial_object(const HostCompiler& c, const std::filesystem::path& dir, std::string* log) {
    const auto source = dir / "kiln-probe.cpp";
    std::error_code ec;
    std::filesystem::remove(source, ec);
    try {
        cache::write_new_file(source, "extern \"C\" int kiln_probe() { return 0; }\n");
    } catch (const cache::IoError& e) {
        *log = e.detail();
        return false;
    }
    const bool ok = compile_shared_object(c, source, dir / "kiln-probe.so", log);
    std::filesystem::remove(source, ec);
    std::filesystem::remove(dir / "kiln-probe.so", ec);
    return ok;
}

}  // namespace kiln::native
