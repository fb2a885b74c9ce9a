#include "targets/cuda/kernel_cache.h"

#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <regex>
#include <tuple>

#include "cache/disk_cache.h"
#include "targets/cuda/nvrtc.h"

namespace kiln::cu {

namespace {

// Bumped when the layout of cache entries or the launch ABI changes without the
// generated source changing. The source itself is in the key, so every change
// of the emitter or of the pasted headers already gives new keys.
constexpr const char* kArtifactFormat = "cuda-artifacts-1";
// sm_90's opt-in shared memory per CTA, the limit when compiling with no device.
constexpr std::int64_t kOfflineSharedLimit = 227 * 1024;

std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw Error("cuda: cannot read cached artifact " + p.string());
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::filesystem::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary);
    out << bytes;
    if (!out.good()) throw Error("cuda: cannot write " + p.string());
}

Resources parse_resources(const std::string& log) {
    Resources r;
    std::smatch m;
    if (std::regex_search(log, m, std::regex(R"(Used (\d+) registers)"))) {
        r.known = true;
        r.registers = std::stoi(m[1]);
    }
    if (std::regex_search(log, m, std::regex(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)"))) {
        r.stack_bytes = std::stoi(m[1]);
        r.spill_store_bytes = std::stoi(m[2]);
        r.spill_load_bytes = std::stoi(m[3]);
    }
    return r;
}

int count_tensor_core_instructions(const std::string& ptx) {
    int n = 0;
    for (std::size_t at = 0; (at = ptx.find("mma", at)) != std::string::npos; at += 3) {
        bool sync = ptx.compare(at, 9, "mma.sync.") == 0 && (at == 0 || ptx[at - 1] != 'w');
        bool wgmma = at >= 2 && ptx.compare(at - 2, 15, "wgmma.mma_async") == 0;
        n += sync || wgmma;
    }
    return n;
}

// In-process identity of a compiled kernel. The program's address alone could be
// reused by a later program; with its structural hash a stale match would be the
// same program, which compiles to the same kernel.
using MemoryKey = std::tuple<const ir::Program*, std::uint64_t, int, bool, std::string>;

struct Loaded {
    std::mutex mutex;
    std::map<MemoryKey, std::shared_ptr<const CompiledKernel>> kernels;
};
Loaded& loaded() {
    static auto* l = new Loaded;  // never destroyed: modules stay loaded until exit
    return *l;
}

std::shared_ptr<CompiledKernel> build(const ir::Program& p, const EmitOptions& o, const std::string& arch, std::int64_t shared_limit) {
    auto k = std::make_shared<CompiledKernel>();
    k->kernel = emit_kernel(p, o);
    k->arch = arch;
    if (k->kernel.shared_bytes > shared_limit)
        fail(p.loc, "cuda", "kernel '" + p.name + "': " + k->kernel.shared_site + " stages " + std::to_string(k->kernel.shared_bytes) +
                                " bytes through shared memory, more than the " + std::to_string(shared_limit) +
                                " a CTA can have; use smaller tiles");
    std::string why;
    std::string nvrtc = nvrtc_version(&why);
    if (nvrtc.empty()) throw Error("cuda: cannot compile kernel '" + p.name + "': " + why);
    auto options = nvrtc_options(o, arch);
    std::string joined;
    for (auto& opt : options) joined += opt + "\n";
    cache::KeyBuilder key;
    key.add("kiln", KILN_VERSION);
    key.add("artifacts", kArtifactFormat);
    key.add("target", "cuda");
    key.add("arch", arch);
    key.add("nvrtc", nvrtc);
    key.add("options", joined);
    key.add("index_width", o.index64 ? "64" : "32");
    key.add("source", k->kernel.source);
    k->key = key.hex();
    auto cache = cache::DiskCache::open();
    std::string why_missed;
    std::filesystem::path dir;
    if (auto hit = cache.find(k->key, &why_missed)) {
        dir = *hit;
        k->from_disk = true;
    } else {
        dir = cache.publish(k->key, [&](const std::filesystem::path& staging) {
            NvrtcOutput out = nvrtc_compile(k->kernel.source, k->kernel.entry + ".cu", options);
            write_file(staging / "kernel.cu", k->kernel.source);
            write_file(staging / "kernel.ptx", out.ptx);
            write_file(staging / "kernel.cubin", out.cubin);
            write_file(staging / "nvrtc.log", out.log);
        });
    }
    k->ptx = read_file(dir / "kernel.ptx");
    k->cubin = read_file(dir / "kernel.cubin");
    k->log = read_file(dir / "nvrtc.log");
    k->resources = parse_resources(k->log);
    k->tensor_core_instructions = count_tensor_core_instructions(k->ptx);
    return k;
}

void load(CompiledKernel& k, const ir::Program& p, const Device& d) {
    make_current(d);
    CUmodule module = nullptr;
    check(d, d.api.cuModuleLoadData(&module, k.cubin.data()), "loading kernel '" + p.name + "'");
    check(d, d.api.cuModuleGetFunction(&k.function, module, k.kernel.entry.c_str()), "finding kernel '" + p.name + "'");
    // Above 48 KB of dynamic shared memory a kernel must opt in.
    if (k.kernel.shared_bytes > 48 * 1024)
        check(d, d.api.cuFuncSetAttribute(k.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(k.kernel.shared_bytes)),
              "raising the shared memory limit of kernel '" + p.name + "'");
}

}  // namespace

std::vector<std::string> nvrtc_options(const EmitOptions& o, const std::string& arch) {
    return {"--gpu-architecture=" + arch,
            "--std=c++17",
            // Exact mode forbids contracting a*b+c into one rounding; standard allows it.
            std::string("--fmad=") + (o.precision == Precision::exact ? "false" : "true"),
            // IEEE division and square root, subnormals kept: the contract's rounding.
            "--prec-div=true",
            "--prec-sqrt=true",
            "--ftz=false",
            "--generate-line-info",
            // Values computed but never used (the unused half of sort's pair) are
            // normal in generated code.
            "--diag-suppress=550",
            "--ptxas-options=-v"};
}

std::shared_ptr<const CompiledKernel> compiled_kernel(const ir::Program& p, const EmitOptions& o, const Device* dev) {
    std::string arch = dev ? dev->arch() : "sm_90a";
    MemoryKey key{&p, ir::structural_hash(p), static_cast<int>(o.precision), o.index64, arch};
    Loaded& l = loaded();
    std::lock_guard<std::mutex> guard(l.mutex);
    if (auto it = l.kernels.find(key); it != l.kernels.end() && (!dev || it->second->function)) return it->second;
    EmitOptions eo = o;
    eo.sm = dev ? dev->cc_major * 10 + dev->cc_minor : 90;
    auto k = build(p, eo, arch, dev ? dev->max_shared_bytes : kOfflineSharedLimit);
    if (dev) load(*k, p, *dev);
    l.kernels[key] = k;
    return k;
}

}  // namespace kiln::cu
