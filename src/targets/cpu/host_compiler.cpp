// Finding, identifying and running the host compiler. Processes are started with
// posix_spawn (safe in a multithreaded program) and their output read through a
// pipe.
#include "targets/cpu/host_compiler.h"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

extern char** environ;

namespace kiln::native {

namespace {

// Flags for every kernel. Bit-exactness needs no FMA contraction and no
// fast-math; -fno-math-errno only lets sqrt be one instruction (it is correctly
// rounded either way). Kernels are built for this machine's vector ISA. -O2, not
// -O3: on the catalog -O3 compiled 1.5-6x slower and ran the GEMM slower (g++ 12).
const std::vector<std::string> kFlags = {"-std=c++20", "-O2", "-march=native", "-fPIC", "-shared", "-ffp-contract=off",
                                         "-fno-fast-math", "-fno-math-errno", "-fvisibility=hidden", "-w"};

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
    std::stringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');)
        if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return dir + "/" + name;
    return "";
}
bool on_path(const std::string& name) { return !resolve(name).empty(); }

// The compiler's identity for cache keys: its real path, size and modification
// time (ccache's "mtime" check). Running `--version` costs ~6 ms per process, too
// much for a warm cache hit; it runs only when a message needs the version text.
std::string stat_identity(const std::string& name) {
    std::string path = resolve(name);
    std::error_code ec;
    auto real = std::filesystem::canonical(path, ec);
    struct stat st {};
    if (ec || ::stat(real.c_str(), &st) != 0) return "";
    return real.string() + " size=" + std::to_string(st.st_size) + " mtime=" + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
}

std::string cpu_identity() {
    std::ifstream in("/proc/cpuinfo");
    std::string model, flags;
    for (std::string line; std::getline(in, line) && (model.empty() || flags.empty());) {
        if (model.empty() && line.rfind("model name", 0) == 0) model = line.substr(line.find(':') + 1);
        if (flags.empty() && line.rfind("flags", 0) == 0) flags = line.substr(line.find(':') + 1);
    }
    return model + " |" + flags;
}

struct Probe {
    HostCompiler compiler;
    std::string why_not;
};

Probe probe() {
    Probe p;
    std::vector<std::string> command;
    if (const char* cxx = std::getenv("CXX"); cxx && *cxx) {
        std::stringstream words(cxx);
        for (std::string w; words >> w;) command.push_back(w);
        if (command.empty() || !on_path(command[0])) {
            p.why_not = "CXX='" + std::string(cxx) + "' names no executable";
            return p;
        }
    } else {
        for (const char* name : {"c++", "g++"})
            if (on_path(name)) {
                command = {name};
                break;
            }
        if (command.empty()) {
            p.why_not = "no host C++ compiler: set CXX, or put c++ or g++ on PATH";
            return p;
        }
    }
    p.compiler.command = command;
    p.compiler.identity = stat_identity(command[0]);
    if (p.compiler.identity.empty()) {
        p.why_not = "cannot stat the host compiler '" + command[0] + "'";
        return p;
    }
    p.compiler.flags = kFlags;
    p.compiler.host_cpu = cpu_identity();
    return p;
}

}  // namespace

std::string HostCompiler::version() const {
    static std::once_flag once;
    static std::string text;
    std::call_once(once, [&] {
        std::vector<std::string> argv = command;
        argv.push_back("--version");
        std::string out;
        text = run_process(argv, &out) == 0 ? out.substr(0, out.find('\n')) : "'" + command[0] + " --version' failed";
    });
    return text;
}

std::string HostCompiler::flags_text() const {
    std::string s;
    for (auto& f : flags) s += (s.empty() ? "" : " ") + f;
    return s;
}

const HostCompiler* host_compiler(std::string* why_not) {
    static const Probe p = probe();
    if (!p.why_not.empty()) {
        if (why_not) *why_not = p.why_not;
        return nullptr;
    }
    return &p.compiler;
}

bool compile_shared_object(const HostCompiler& c, const std::filesystem::path& source, const std::filesystem::path& output, std::string* log) {
    std::vector<std::string> argv = c.command;
    argv.insert(argv.end(), c.flags.begin(), c.flags.end());
    argv.insert(argv.end(), {"-o", output.string(), source.string()});
    int rc = run_process(argv, log);
    if (rc == -1 && log->empty()) *log = "could not run " + c.command[0];
    return rc == 0;
}

}  // namespace kiln::native
