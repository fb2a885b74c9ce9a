#include "cuda_emulator.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>

#include "cache/sha256.h"
#include "cta_fibers.h"
#include "emulation_header.h"
#include "passes/host_scalars.h"
#include "support/environment.h"
#include "targets/common/target_impl.h"
#include "targets/common/host_compiler.h"
#include "targets/cuda/emit.h"
#include "targets/cuda/launch_args.h"
#include "trace/kernel_trace.h"

namespace kiln::emulated {

namespace {

struct Dim3 {
    unsigned x = 0, y = 0, z = 0;
};
using Bind = void (*)(const CollectiveApi*, Dim3**, Dim3**, Dim3**, Dim3**, unsigned char**);
using Entry = void (*)(void**);

// The parameter types of kernel_signature(p), in order ("const float*", "long long", ...).
std::vector<std::string> parameter_types(const ir::Program& p) {
    std::vector<std::string> types;
    std::string s = cu::kernel_signature(p);
    for (std::size_t at = 0; at < s.size();) {
        std::size_t end = s.find(", ", at);
        if (end == std::string::npos) end = s.size();
        std::string param = s.substr(at, end - at);
        types.push_back(param.substr(0, param.rfind(' ')));
        at = end + 2;
    }
    return types;
}

std::string rewrite(const ir::Program& p, const cu::EmittedKernel& k) {
    std::string src = k.source;
    // The Hopper kernels follow the generic one (emit_gemm.cpp, emit_attention.cpp): cut there.
    for (const char* hopper : {"\n// ---- the Hopper GEMM kernel of this program", "\n// ---- the Hopper FlashAttention kernel of this program"})
        if (std::size_t at = src.find(hopper); at != std::string::npos) src.resize(at);
    std::size_t begin = src.find("namespace kc {"), end = src.find("}  // namespace kc\n");
    if (begin == std::string::npos || end == std::string::npos) throw std::runtime_error("emulator: no prelude helpers in the source");
    // The prelude's helpers written in plain C++ run as they are; the rest are replaced.
    const std::string plain_begin = "// ---- plain C++ from here", plain_end = "// ---- end of plain C++\n";
    std::string helpers = kEmulatedHelpers;
    const std::size_t from = src.find(plain_begin, begin), to = src.find(plain_end, begin);
    if (from < end && to < end && from < to) helpers.insert(helpers.rfind("}  // namespace kc"), src.substr(from, to + plain_end.size() - from));
    src.replace(begin, end + std::strlen("}  // namespace kc\n") - begin, helpers);
    std::string call;
    auto types = parameter_types(p);
    for (std::size_t i = 0; i < types.size(); ++i) call += (i ? ", " : "") + ("*(" + types[i] + "*)p[" + std::to_string(i) + "]");
    return std::string(kEmulationHeader) + src + "\nextern \"C\" __attribute__((visibility(\"default\"))) void kiln_emu_entry(void** p) { " +
           k.entry + "(" + call + "); }\n";
}

struct Module {
    Bind bind = nullptr;
    Entry entry = nullptr;
};

// Compiles (or finds, in this process or in the temporary directory) the shared object for `source`.
Module load(const std::string& source) {
    static std::mutex lock;
    static std::map<std::string, Module> loaded;
    std::lock_guard<std::mutex> hold(lock);
    std::string key = cache::sha256_hex(source);
    if (auto it = loaded.find(key); it != loaded.end()) return it->second;
    std::string why;
    const native::HostCompiler* cxx = native::host_compiler(&why);
    if (!cxx) throw std::runtime_error("emulator: no host compiler: " + why);
    auto dir = std::filesystem::temp_directory_path() / ("kiln-emulated-" + std::to_string(::getuid()));
    std::filesystem::create_directories(dir);
    auto so = dir / (key.substr(0, 32) + ".so");
    if (!std::filesystem::exists(so)) {
        auto cpp = dir / (key.substr(0, 32) + "." + std::to_string(::getpid()) + ".cpp");
        auto tmp = dir / (key.substr(0, 32) + "." + std::to_string(::getpid()) + ".so");
        std::ofstream(cpp) << source;
        // CUDA code moves words through reinterpret_cast'd pointers (16-byte vector
        // accesses to arrays of narrower elements): no strict aliasing, as nvcc.
        std::string command;
        for (const auto& word : cxx->command) command += "'" + word + "' ";
        auto log = dir / (key.substr(0, 32) + "." + std::to_string(::getpid()) + ".log");
        command += "-std=c++20 -O1 -fPIC -shared -fno-strict-aliasing -ffp-contract=off -fvisibility=hidden -w -o '" + tmp.string() + "' '" +
                   cpp.string() + "' >'" + log.string() + "' 2>&1";
        if (std::system(command.c_str()) != 0) {
            std::ifstream in(log);
            std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            throw std::runtime_error("emulator: the host compiler rejected the emulated source (" + cpp.string() + "):\n" + text.substr(0, 4000));
        }
        std::filesystem::remove(log);
        std::filesystem::rename(tmp, so);
        if (!std::getenv("KILN_EMULATED_KEEP")) std::filesystem::remove(cpp);
    }
    void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw std::runtime_error(std::string("emulator: dlopen: ") + dlerror());
    Module m{reinterpret_cast<Bind>(dlsym(h, "kiln_emu_bind")), reinterpret_cast<Entry>(dlsym(h, "kiln_emu_entry"))};
    if (!m.bind || !m.entry) throw std::runtime_error("emulator: the module lacks its entry points");
    return loaded[key] = m;
}

// The emulator runs the program's generic kernel (a device prefers a GEMM or
// attention kernel beside it, which no host can run): always in the module.
// KILN_EMULATED_LAYOUT_SPLIT=2|4|8 lays kernels out as the device's spill feedback
// would (kernel_cache.cpp: each thread holds 1/N of its share of the rows, with its
// loads ahead kept), which the emulator, having no ptxas, never triggers itself.
cu::EmitOptions generic_options(const std::vector<detail::Arg>& args, const CompileOptions& opts) {
    cu::EmitOptions o = cu::emit_options(args, opts);
    o.generic_kernel = true;
    static const int split = static_cast<int>(support::env_integer("KILN_EMULATED_LAYOUT_SPLIT", 1, 8).value_or(1));
    o.layout_split = split;
    return o;
}

class EmulatedCuda final : public detail::TargetImpl {
public:
    const std::string& name() const override { return name_; }

    void run(const ir::Program& p, const std::vector<detail::Arg>& args, const CompileOptions& opts, Loc) override {
        cu::EmittedKernel k = cu::emit_kernel(p, generic_options(args, opts));
        // CTAs run here one after another: a cluster's CTAs, which wait for each other, cannot.
        if (k.cluster > 1) throw Error("cuda-emulated: kernel '" + p.name + "' spans clusters of " + std::to_string(k.cluster) + " CTAs; only a device runs it");
        Module m = load(rewrite(p, k));
        std::int64_t instances = passes::grid_instances(p, args);
        if (instances == 0) return;
        std::int64_t per_cta = std::max(1, k.instances_per_cta);
        auto ctas = static_cast<unsigned>((instances + per_cta - 1) / per_cta);
        // A persistent kernel (it loads its next instance ahead) gets a grid of a few
        // CTAs, as on the device, where it has one per resident slot: each CTA then runs
        // several instances in turn, with the values its previous instance prefetched.
        if (k.persistent) ctas = std::min(ctas, 3u);
        auto params = cu::pack_params(p, args);
        Dim3 *thread = nullptr, *block = nullptr, *grid = nullptr, *dim = nullptr;
        unsigned char* smem = nullptr;
        m.bind(&collective_api(), &thread, &block, &grid, &dim, &smem);
        grid->x = ctas;
        dim->x = static_cast<unsigned>(k.threads);
        CtaRun run;
        run.threads = k.threads;
        run.body = [&] { m.entry(params.pointers.data()); };
        run.set_thread = [&](unsigned t) { thread->x = t; };
        for (unsigned b = 0; b < ctas; ++b) {
            block->x = b;
            // Shared memory starts with garbage, as on the device: a read before a write shows.
            std::memset(smem, 0xa5, static_cast<std::size_t>(k.shared_bytes) + 16);
            run_cta(run);
        }
    }

    std::string plan(const ir::Program& p, const std::vector<detail::Arg>& args, const CompileOptions& opts) override {
        std::string s;
        const cu::EmittedKernel k = cu::emit_kernel(p, generic_options(args, opts));
        if (!k.aligned_slots.empty()) s += k.aligned_slots + "\n";
        for (const auto& v : k.values) s += v + "\n";
        return s;
    }

    std::string source(const ir::Program& p, const std::vector<detail::Arg>& args, const CompileOptions& opts, bool) override {
        return rewrite(p, cu::emit_kernel(p, generic_options(args, opts)));
    }

private:
    std::string name_ = "cuda-emulated";
};

}  // namespace

Target cuda_emulated() {
    static const Target t(std::make_shared<EmulatedCuda>());
    return t;
}

std::string emulated_source(const Kernel& k, const std::vector<detail::Arg>& args, Precision precision) {
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    return cuda_emulated().impl().source(*program, args, {.precision = precision}, false);
}

}  // namespace kiln::emulated
