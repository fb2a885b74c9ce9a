#include "targets/cuda/nvrtc.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string_view>

#include <kiln/error.h>

#include "support/elf_build_id.h"
#include "support/environment.h"

namespace kiln::cu {

namespace {

using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram*;

struct NvrtcApi {
    const char* (*nvrtcGetErrorString)(nvrtcResult);
    nvrtcResult (*nvrtcVersion)(int* major, int* minor);
    nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram* prog, const char* src, const char* name, int num_headers,
                                      const char* const* headers, const char* const* include_names);
    nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram* prog);
    nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram prog, int num_options, const char* const* options);
    nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram prog, std::size_t* size);
    nvrtcResult (*nvrtcGetPTX)(nvrtcProgram prog, char* ptx);
    nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram prog, std::size_t* size);
    nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram prog, char* cubin);
    nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram prog, std::size_t* size);
    nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram prog, char* log);
};

struct Loaded {
    NvrtcApi api{};
    std::string version;
    std::string why;
    bool has_own_cache = false;  // NVRTC 12.9 and later: see nvrtc_compile
};

constexpr const char* kNames[] = {"libnvrtc.so.13", "libnvrtc.so"};

// KILN_NVRTC=off: this process compiles no CUDA kernel, as on a machine without
// NVRTC (a deployment running from a cache built elsewhere, and its tests).
constexpr const char* kTurnedOff = "NVRTC is turned off (KILN_NVRTC=off)";
bool turned_off() {
    static const bool off = [] {
        const char* v = std::getenv("KILN_NVRTC");
        return v && std::string_view(v) == "off";
    }();
    return off;
}

// The first NVRTC library file in kiln's own search directories, "" if none
// (then the loader's search path is tried). Found once: nvrtc_identity() and
// open_nvrtc() must agree on it.
const std::string& nvrtc_file() {
    static const std::string file = [] {
        std::vector<std::string> dirs;
        if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(std::string(home) + "/lib64/");
        dirs.push_back("/usr/local/cuda/lib64/");
        for (const char* name : kNames)
            for (const auto& dir : dirs)
                if (::access((dir + name).c_str(), R_OK) == 0) return dir + name;
        return std::string();
    }();
    return file;
}

void* open_nvrtc() {
    if (!nvrtc_file().empty()) return dlopen(nvrtc_file().c_str(), RTLD_NOW | RTLD_LOCAL);
    for (const char* name : kNames)
        if (void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return lib;
    return nullptr;
}

// Loaded once and never closed (compiled code may be in use until exit).
const Loaded& loaded() {
    static const Loaded* l = [] {
        auto* l = new Loaded;
        if (turned_off()) {
            l->why = kTurnedOff;
            return l;
        }
        void* lib = open_nvrtc();
        if (!lib && !nvrtc_file().empty()) {
            l->why = "cannot load " + nvrtc_file() + ": " + dlerror();
            return l;
        }
        if (!lib) {
            l->why = "no NVRTC (libnvrtc.so.13 not found in $CUDA_HOME/lib64, /usr/local/cuda/lib64 or the library path)";
            return l;
        }
        std::string missing;
        auto sym = [&](auto& slot, const char* name) {
            void* p = dlsym(lib, name);
            if (!p && missing.empty()) missing = name;
            slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(p);
        };
        NvrtcApi& a = l->api;
        sym(a.nvrtcGetErrorString, "nvrtcGetErrorString");
        sym(a.nvrtcVersion, "nvrtcVersion");
        sym(a.nvrtcCreateProgram, "nvrtcCreateProgram");
        sym(a.nvrtcDestroyProgram, "nvrtcDestroyProgram");
        sym(a.nvrtcCompileProgram, "nvrtcCompileProgram");
        sym(a.nvrtcGetPTXSize, "nvrtcGetPTXSize");
        sym(a.nvrtcGetPTX, "nvrtcGetPTX");
        sym(a.nvrtcGetCUBINSize, "nvrtcGetCUBINSize");
        sym(a.nvrtcGetCUBIN, "nvrtcGetCUBIN");
        sym(a.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize");
        sym(a.nvrtcGetProgramLog, "nvrtcGetProgramLog");
        if (!missing.empty()) {
            l->why = "NVRTC is too old (it lacks " + missing + ")";
            return l;
        }
        int major = 0, minor = 0;
        a.nvrtcVersion(&major, &minor);
        l->version = std::to_string(major) + "." + std::to_string(minor);
        l->has_own_cache = major > 12 || (major == 12 && minor >= 9);
        return l;
    }();
    return *l;
}

}  // namespace

std::string nvrtc_version(std::string* why) {
    const Loaded& l = loaded();
    if (why) *why = l.why;
    return l.version;
}

// The identity keys the disk cache's kernels by the NVRTC that compiled them. A
// library's GNU build ID names its build wherever it is installed, so a cache
// filled on one machine (a development machine without a GPU compiles offline
// for sm_90a) serves another with the same NVRTC: a fuzz campaign's compiles done
// ahead, a build farm's. NVRTC loads its builtins library from beside it at the
// first compile; that build counts too. A library without a build ID (or found
// only through the loader's path) is named by its file's device, inode, size and
// time instead, which is one copy on one machine. (Reading the notes of two ELF
// files costs microseconds; NVRTC itself is not loaded.)
const std::string& nvrtc_identity(std::string* why) {
    static const std::string identity = [] {
        if (turned_off()) return std::string();
        struct stat st {};
        if (nvrtc_file().empty() || ::stat(nvrtc_file().c_str(), &st) != 0) {
            const std::string& version = loaded().version;
            return version.empty() ? std::string() : "NVRTC " + version + " from the loader's search path";
        }
        if (const std::string id = support::elf_build_id(nvrtc_file()); !id.empty()) {
            const std::string dir = nvrtc_file().substr(0, nvrtc_file().rfind('/') + 1);
            std::string builtins;
            for (const char* name : {"libnvrtc-builtins.so.13.0", "libnvrtc-builtins.so"})
                if (builtins.empty()) builtins = support::elf_build_id(dir + name);
            return "NVRTC build " + id + (builtins.empty() ? "" : " builtins " + builtins);
        }
        return nvrtc_file() + " dev=" + std::to_string(st.st_dev) + " ino=" + std::to_string(st.st_ino) + " size=" +
               std::to_string(st.st_size) + " mtime=" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
    }();
    if (why) *why = identity.empty() ? loaded().why : "";
    return identity;
}

namespace {
std::atomic<std::size_t> g_compiles{0};
}  // namespace

std::size_t nvrtc_compiles() { return g_compiles.load(); }

const char* ptxas_options_knob() {
    const char* extra = std::getenv("KILN_CUDA_PTXAS_OPTIONS");
    return extra && *extra ? extra : nullptr;
}

std::optional<std::string> fast_compile_knob() { return support::env_choice("KILN_CUDA_FAST_COMPILE", {"min", "mid", "max"}); }

NvrtcOutput nvrtc_compile(const std::string& source, const std::string& file_name, const std::vector<std::string>& options) {
    ++g_compiles;
    const Loaded& l = loaded();
    if (l.version.empty()) throw Error("cuda: cannot compile kernels: " + l.why);
    const NvrtcApi& a = l.api;
    nvrtcProgram prog = nullptr;
    if (nvrtcResult r = a.nvrtcCreateProgram(&prog, source.c_str(), file_name.c_str(), 0, nullptr, nullptr))
        throw Error(std::string("cuda: nvrtcCreateProgram: ") + a.nvrtcGetErrorString(r));
    struct Destroy {
        const NvrtcApi& a;
        nvrtcProgram& p;
        ~Destroy() { a.nvrtcDestroyProgram(&p); }
    } destroy{a, prog};
    std::vector<const char*> opts;
    for (const auto& o : options) opts.push_back(o.c_str());
    // NVRTC 12.9 and later keep their own cache of compiled code (in the driver's
    // compute cache, shared by every process of the user): on a hit ptxas does not
    // run, and its report (--ptxas-options=-v: registers, spills), which the spill
    // feedback and kiln plan read, is missing from the log. kiln caches what it
    // compiles itself (KILN_CACHE_DIR), so NVRTC's is only in the way: a test
    // process compiling beside another one that had compiled the same kernels got
    // plans without registers and kernels the spill feedback never saw (NVIDIA
    // Fuser met the same: its PR 4694; bench/results/gpu-20261203-s14, call 5).
    // Not among the key's options: the code is the same either way.
    if (l.has_own_cache) opts.push_back("--no-cache");
    nvrtcResult r = a.nvrtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
    NvrtcOutput out;
    std::size_t size = 0;
    a.nvrtcGetProgramLogSize(prog, &size);
    out.log.assign(size, '\0');
    a.nvrtcGetProgramLog(prog, out.log.data());
    while (!out.log.empty() && out.log.back() == '\0') out.log.pop_back();
    if (r != 0) {
        if (const char* extra = ptxas_options_knob())
            throw Error(std::string("cuda: NVRTC failed with KILN_CUDA_PTXAS_OPTIONS=") + extra + " (" + a.nvrtcGetErrorString(r) + "):\n" +
                        out.log.substr(0, 4000));
        // kiln wrote the source, so a rejection is kiln's bug: show where.
        internal_fail("cuda: NVRTC rejected the generated source " + file_name + " (" + a.nvrtcGetErrorString(r) + "):\n" +
                      out.log.substr(0, 4000));
    }
    if (a.nvrtcGetPTXSize(prog, &size) == 0 && size > 0) {
        out.ptx.assign(size, '\0');
        a.nvrtcGetPTX(prog, out.ptx.data());
        while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
    }
    if (a.nvrtcGetCUBINSize(prog, &size) == 0 && size > 0) {
        out.cubin.assign(size, '\0');
        a.nvrtcGetCUBIN(prog, out.cubin.data());
    }
    return out;
}

}  // namespace kiln::cu
