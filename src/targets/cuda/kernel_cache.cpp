#include "targets/cuda/kernel_cache.h"

#include "targets/common/dump.h"

#include <charconv>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "cache/disk_cache.h"
#include "targets/cuda/nvrtc.h"
#include "targets/cuda/program_index.h"
#include "targets/cuda/source_override.h"

namespace kiln::cu {

namespace {

// Bumped when the layout of cache entries or the launch ABI changes without the
// generated source changing. The source itself is in the key, so every change
// of the emitter or of the pasted headers already gives new keys.
constexpr const char* kArtifactFormat = "cuda-artifacts-1";
// sm_90's opt-in shared memory per CTA, the limit when compiling with no device.
constexpr std::int64_t kOfflineSharedLimit = 227 * 1024;
const std::string kOfflineArch = "sm_90a";  // what a compile with no device targets

// The numbers of the first place in `log` that reads "N1<text1>N2<text2>...",
// each N a decimal number, preceded by `lead`. (No std::regex: building one
// costs ~0.2 ms, as much as a whole warm cache hit should take.)
std::optional<std::vector<int>> numbers_in(std::string_view log, std::string_view lead, std::initializer_list<std::string_view> texts) {
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    const std::string_view first = *texts.begin();
    for (std::size_t at = log.find(first); at != std::string_view::npos; at = log.find(first, at + 1)) {
        std::size_t begin = at;
        while (begin > 0 && digit(log[begin - 1])) --begin;
        if (begin == at || begin < lead.size() || log.substr(begin - lead.size(), lead.size()) != lead) continue;
        std::vector<int> numbers;
        std::size_t pos = begin;
        for (std::string_view text : texts) {
            std::size_t end = pos;
            while (end < log.size() && digit(log[end])) ++end;
            int v = 0;
            if (end == pos || std::from_chars(log.data() + pos, log.data() + end, v).ec != std::errc() || log.substr(end, text.size()) != text)
                break;
            numbers.push_back(v);
            pos = end + text.size();
        }
        if (numbers.size() == texts.size()) return numbers;
    }
    return std::nullopt;
}

Resources parse_resources(const std::string& log) {
    Resources r;
    if (auto n = numbers_in(log, "Used ", {" registers"})) {
        r.known = true;
        r.registers = (*n)[0];
    }
    if (auto n = numbers_in(log, "", {" bytes stack frame, ", " bytes spill stores, ", " bytes spill loads"})) {
        r.stack_bytes = (*n)[0];
        r.spill_store_bytes = (*n)[1];
        r.spill_load_bytes = (*n)[2];
    }
    return r;
}

// The part of ptxas's log about one entry point (a module can hold two kernels:
// emit_gemm.h); the whole log when the entry is not named in it.
std::string entry_log(const std::string& log, const std::string& entry) {
    std::size_t at = log.find("entry function '" + entry + "'");
    if (at == std::string::npos) return log;
    std::size_t end = log.find("entry function '", at + 1);
    return log.substr(at, end == std::string::npos ? std::string::npos : end - at);
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

// This process's compiled kernels, never unloaded (a kernel may be running).
// Found by program, so that a warm launch is a lookup without printing or
// hashing the program: the program is held weakly, so a later program at a
// recycled address never meets a stale entry. And by cache key, so that a new
// program object with the same source (a kernel traced again) reuses the module
// already loaded rather than loading another copy.
// A variant is what the caller chooses of EmitOptions (a field added there must
// be added here), the architecture, and the device the module is loaded on
// (-1: compiled offline): precision, index width, misaligned rows, the GEMM
// kernel's tile, split-K code and cluster, the generic kernel beside a specialised
// one (EmitOptions::generic_kernel), the CTA size of a row spanning a cluster and
// the inline and fast divisions, the spill tolerances, the NaN minimum beside
// loads ahead, the index facts and the elements a thread holds (process-wide knobs
// that tests set per compile), arch, device.
using Variant = std::tuple<int, bool, bool, int, int, bool, int, int, int, bool, int, bool, bool, int, int, int, bool, bool, bool, bool, bool, int, std::string, int>;
struct ProgramKernels {
    std::weak_ptr<const ir::Program> program;
    std::vector<std::pair<Variant, std::shared_ptr<const CompiledKernel>>> variants;
};
struct Loaded {
    std::mutex mutex;
    std::unordered_map<const ir::Program*, ProgramKernels> by_program;
    // By cache key and device: a module is loaded into each device's context once.
    std::map<std::pair<std::string, int>, std::shared_ptr<const CompiledKernel>> by_key;
};
Loaded& loaded() {
    static auto* l = new Loaded;  // never destroyed: modules stay loaded until exit
    return *l;
}

// `k` as the kernel of program `p` under `variant` (at: p's entry, or end).
void remember(Loaded& l, std::unordered_map<const ir::Program*, ProgramKernels>::iterator at, const ir::Program& p,
              const std::weak_ptr<const ir::Program>& owner, const Variant& variant, const std::shared_ptr<const CompiledKernel>& k) {
    if (owner.expired()) return;  // a program not shared-owned is not remembered by address
    if (at == l.by_program.end()) {
        std::erase_if(l.by_program, [](const auto& e) { return e.second.program.expired(); });
        at = l.by_program.emplace(&p, ProgramKernels{owner, {}}).first;
    }
    std::erase_if(at->second.variants, [&](const auto& e) { return e.first == variant; });
    at->second.variants.emplace_back(variant, k);
}

// The disk cache key of a kernel's artifacts: everything that determines them (the
// source, NVRTC's identity and options).
std::string artifacts_key(const std::string& source, const EmitOptions& o, const std::string& arch, const std::string& nvrtc) {
    std::string joined;
    for (auto& opt : nvrtc_options(o, arch)) joined += opt + "\n";
    cache::KeyBuilder key;
    key.add("artifacts", kArtifactFormat);
    key.add("target", "cuda");
    key.add("arch", arch);
    key.add("nvrtc", nvrtc);
    key.add("options", joined);
    key.add("index_width", o.index64 ? "64" : "32");
    key.add("source", source);
    return key.hex();
}

// The kernel emitted for `p` under `o`, with its cache key.
std::shared_ptr<CompiledKernel> emit(const ir::Program& p, const EmitOptions& o, const std::string& arch, std::int64_t shared_limit, Loc launch) {
    auto k = std::make_shared<CompiledKernel>();
    k->kernel = emit_kernel(p, o);
    k->arch = arch;
    // Named at the op that needs the most (the user's line), else at the kernel. Only
    // where the module holds the generic kernel: a program the attention or GEMM
    // kernel takes (a key block of 256, say) may stage more than the generic kernel
    // could, and needs it only for a launch the specialised kernel refuses.
    if (k->kernel.generic && k->kernel.shared_bytes > shared_limit) {
        const bool at_op = k->kernel.shared_loc.known();
        // A program that missed the GEMM or attention kernel, which would not have
        // staged it so, hears why it missed (the fix may be there, not in the tiles).
        const std::string& missed = k->kernel.specialised_why;
        fail(at_op ? k->kernel.shared_loc : p.loc, at_op ? k->kernel.shared_op : "cuda",
             (at_op ? "" : "kernel '" + p.name + "': ") + "stages " + std::to_string(k->kernel.shared_bytes) +
                 " bytes through shared memory on cuda, more than the " + std::to_string(shared_limit) + " a CTA can have; use smaller tiles" +
                 (missed.empty() ? "" : " (the program is " + missed + ")"));
    }
    std::string why;
    std::string nvrtc = nvrtc_identity(&why);
    if (nvrtc.empty()) {
        const std::string msg = "cannot compile kernel '" + p.name + "': " + why +
                                "; a cache filled on a machine with NVRTC (KILN_CACHE_DIR) runs only the kernels compiled there, "
                                "for these shapes and options";
        if (launch.known()) fail(launch, "cuda", msg);  // named at the launch that needs it
        throw Error("cuda: " + msg);
    }
    k->key = artifacts_key(k->kernel.source, o, arch, nvrtc);
    targets::dump_source(p.name, k->key, k->kernel.source, "cu");
    return k;
}

// The files of a cache entry a launch reads (the PTX and source beside them are
// read only by kiln plan and kiln source), and what is derived from them.
const std::string_view kArtifactFiles[] = {"kernel.cubin", "nvrtc.log"};
void take_artifacts(CompiledKernel& k, std::vector<std::string> files) {
    k.cubin = std::move(files[0]);
    k.log = std::move(files[1]);
    if (k.kernel.generic) k.resources = parse_resources(entry_log(k.log, k.kernel.entry));
    if (!k.kernel.gemm.entry.empty()) k.gemm_resources = parse_resources(entry_log(k.log, k.kernel.gemm.entry));
    if (!k.kernel.attention.entry.empty()) k.attention_resources = parse_resources(entry_log(k.log, k.kernel.attention.entry));
}

// The compiled artifacts of `k`: the disk cache's verified bytes, or NVRTC's
// output, published first. Only a miss loads NVRTC. A cache that cannot be used
// or cannot take the entry (read-only, full) costs only the caching: NVRTC's
// output is then used as it is (DiskCache warns once).
void fetch_artifacts(CompiledKernel& k, const EmitOptions& o) {
    auto cache = cache::DiskCache::open_or_warn();
    const auto& names = kArtifactFiles;
    std::optional<std::vector<std::string>> files;
    if (cache) files = cache->read(k.key, names);
    k.from_disk = files.has_value();
    if (!files) {
        std::optional<NvrtcOutput> out;
        auto compile = [&] {
            if (!out) out = nvrtc_compile(k.kernel.source, k.kernel.entry + ".cu", nvrtc_options(o, k.arch));
        };
        std::optional<std::filesystem::path> published;
        if (cache)
            published = cache->try_publish(k.key, [&](const std::filesystem::path& staging) {
                compile();
                cache::write_new_file(staging / "kernel.cu", k.kernel.source);
                cache::write_new_file(staging / "kernel.ptx", out->ptx);
                cache::write_new_file(staging / "kernel.cubin", out->cubin);
                cache::write_new_file(staging / "nvrtc.log", out->log);
            });
        if (published) {
            std::string why;
            files = cache->read(k.key, names, &why);
            if (!files) throw Error("cuda: the cache entry just published for kernel '" + k.kernel.entry + "' cannot be read: " + why);
        } else {
            compile();
            files = std::vector<std::string>{std::move(out->cubin), std::move(out->log)};
        }
        if (out) k.ptx = std::move(out->ptx);
    }
    take_artifacts(k, std::move(*files));
}

// The kept kernel compiled again from its edited source (source_override.h), which
// must still define the entry points the launch calls: the rest of the launch (the
// threads, grid, shared memory and arguments) is the kept kernel's, so the file is
// that kernel's KILN_DUMP_DIR dump, edited.
std::shared_ptr<CompiledKernel> edited_kernel(const CompiledKernel& kept, SourceOverride edited, const EmitOptions& o) {
    std::vector<std::string> entries;
    if (kept.kernel.generic) entries.push_back(kept.kernel.entry);
    if (!kept.kernel.gemm.entry.empty()) entries.push_back(kept.kernel.gemm.entry);
    if (!kept.kernel.attention.entry.empty()) entries.push_back(kept.kernel.attention.entry);
    for (const std::string& entry : entries)
        if (edited.text.find(" " + entry + "(") == std::string::npos)
            throw Error("KILN_CUDA_SOURCE_DIR: " + edited.path + " has no kernel " + entry + ", which the launch calls (edit a KILN_DUMP_DIR dump of it)");
    auto k = std::make_shared<CompiledKernel>();
    k->kernel = kept.kernel;
    k->kernel.source = std::move(edited.text);
    k->arch = kept.arch;
    k->key = artifacts_key(k->kernel.source, o, k->arch, nvrtc_identity());
    k->source_override = std::move(edited.path);
    fetch_artifacts(*k, o);
    return k;
}

// k's artifacts from the disk cache alone (a kernel found through the program
// index has no source to compile); false when the cache does not hold them.
bool read_cached_artifacts(CompiledKernel& k, const cache::DiskCache* disk) {
    auto files = disk ? disk->read(k.key, kArtifactFiles) : std::nullopt;
    if (!files) return false;
    k.from_disk = true;
    take_artifacts(k, std::move(*files));
    return true;
}

void load(CompiledKernel& k, const ir::Program& p, const Device& d) {
    make_current(d);
    CUmodule module = nullptr;
    check(d, d.api.cuModuleLoadData(&module, k.cubin.data()), "loading kernel '" + p.name + "'");
    if (k.kernel.generic) check(d, d.api.cuModuleGetFunction(&k.function, module, k.kernel.entry.c_str()), "finding kernel '" + p.name + "'");
    // Above 48 KB of dynamic shared memory a kernel must opt in.
    if (k.kernel.generic && k.kernel.shared_bytes > 48 * 1024)
        check(d, d.api.cuFuncSetAttribute(k.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(k.kernel.shared_bytes)),
              "raising the shared memory limit of kernel '" + p.name + "'");
    // A cluster's CTAs run together, on one GPC: how many clusters fit at once is the
    // driver's to say (the GPCs' sizes differ), not a product of per-SM occupancy.
    if (k.function && k.kernel.cluster > 1 && d.api.cuOccupancyMaxActiveClusters) {
        LaunchConfig c;
        c.grid_x = static_cast<unsigned>(k.kernel.cluster);
        c.block_x = static_cast<unsigned>(k.kernel.threads);
        c.shared_bytes = static_cast<unsigned>(k.kernel.shared_bytes);
        int clusters = 0;
        if (d.api.cuOccupancyMaxActiveClusters(&clusters, k.function, &c) == CUDA_SUCCESS) k.active_clusters = clusters;
    }
    const GemmKernel& g = k.kernel.gemm;
    if (!g.entry.empty()) {
        check(d, d.api.cuModuleGetFunction(&k.gemm_function, module, g.entry.c_str()), "finding kernel '" + p.name + "' (GEMM)");
        check(d, d.api.cuFuncSetAttribute(k.gemm_function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(g.shared_bytes)),
              "raising the shared memory limit of kernel '" + p.name + "' (GEMM)");
    }
    const AttentionKernel& a = k.kernel.attention;
    if (!a.entry.empty()) {
        check(d, d.api.cuModuleGetFunction(&k.attention_function, module, a.entry.c_str()), "finding kernel '" + p.name + "' (attention)");
        check(d, d.api.cuFuncSetAttribute(k.attention_function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(a.shared_bytes)),
              "raising the shared memory limit of kernel '" + p.name + "' (attention)");
    }
}

}  // namespace

namespace {
// 16 hex digits of the source's digest.
std::string source_digest_prefix(const std::string& source) { return cache::KeyBuilder().add("source", source).hex().substr(0, 16); }

// The index record of a module (compiled_module) under any NVRTC: its source is
// kiln's own text, so the source and the architecture name it. What a process
// without NVRTC finds, as it finds programs' kernels (program_index.h: kAnyNvrtc).
std::string module_index_key(const std::string& source, const std::string& arch) {
    cache::KeyBuilder key;
    key.add("module index", "1");
    key.add("arch", arch);
    key.add("nvrtc", kAnyNvrtc);
    key.add("source", source);
    return key.hex();
}
}  // namespace

std::shared_ptr<const CompiledKernel> compiled_module(const std::string& name, const std::string& source, const std::string& arch) {
    auto k = std::make_shared<CompiledKernel>();
    k->kernel.source = source;
    // (An identifier: the name of NVRTC's file and of the index record's entry.)
    k->kernel.entry = "kiln_module_" + source_digest_prefix(source);
    k->kernel.generic = false;
    k->kernel.threads = 1;  // (its kernels' launches are the caller's; a record holds a positive count)
    k->arch = arch;
    const EmitOptions o;
    auto disk = cache::DiskCache::open_or_warn();
    const cache::DiskCache* store = disk ? &*disk : nullptr;
    const std::string any = module_index_key(source, arch);
    std::string why;
    const std::string nvrtc = nvrtc_identity(&why);
    if (nvrtc.empty()) {
        // A cache filled where NVRTC is (and shipped) holds it.
        if (auto r = find_in_index(store, any)) {
            k->key = r->kernel_key;
            if (read_cached_artifacts(*k, store)) return k;
        }
        throw Error("cuda: cannot compile " + name + ": " + why + "; a cache filled on a machine with NVRTC (KILN_CACHE_DIR) would hold it");
    }
    k->key = artifacts_key(source, o, arch, nvrtc);
    fetch_artifacts(*k, o);
    add_to_index(store, any, IndexRecord{k->key, launch_shape(k->kernel)});
    return k;
}

std::string kernel_ptx(const CompiledKernel& k) {
    if (!k.ptx.empty()) return k.ptx;
    auto cache = cache::DiskCache::open_or_warn();
    const std::string_view ptx[] = {"kernel.ptx"};
    auto files = cache ? cache->read(k.key, ptx) : std::nullopt;
    return files ? std::move((*files)[0]) : std::string();
}

int tensor_core_instructions(const CompiledKernel& k) { return count_tensor_core_instructions(kernel_ptx(k)); }

std::vector<std::string> nvrtc_options(const EmitOptions& o, const std::string& arch) {
    std::vector<std::string> options{"--gpu-architecture=" + arch,
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
            // Generated kernels use no texture, surface or runtime API types: leaving
            // them out took a third off NVVM's time on the attention kernel (its
            // cold compile 1.6 s -> 1.3 s on the development machine).
            "--minimal",
            "--ptxas-options=-v"};
    if (const char* extra = ptxas_options_knob()) options.push_back(std::string("--ptxas-options=") + extra);
    if (auto level = fast_compile_knob()) options.push_back("--Ofast-compile=" + *level);
    return options;
}

namespace {

Variant variant_of(const EmitOptions& o, const std::string& arch, int device) {
    return {static_cast<int>(o.precision), o.index64, o.misaligned_rows, o.gemm_bm, o.gemm_bn, o.gemm_split_k, o.gemm_cluster, o.gemm_cp_async, o.gemm_flipped,
            o.generic_kernel, o.cluster_cta_threads, o.inline_division, o.fast_division, o.spill_tolerance, o.layout_spill_tolerance, o.coalesced_elements, o.whole_rows, o.aligned_slots, o.nan_by_minimum_ahead, o.index_facts, o.narrow_index_compares, o.elements_per_thread, arch, device};
}

// p's entry in l.by_program (end when none, or when the entry belongs to a dead
// program whose address p reuses: that entry is dropped). l.mutex held.
std::unordered_map<const ir::Program*, ProgramKernels>::iterator program_entry(Loaded& l, const ir::Program& p) {
    auto at = l.by_program.find(&p);
    if (at != l.by_program.end() && at->second.program.lock().get() != &p) {
        l.by_program.erase(at);  // a dead program's address, reused
        at = l.by_program.end();
    }
    return at;
}

// Files `k` in the program index under `key` (the key a lookup used, or this
// NVRTC's) and under any NVRTC's: a cache filled here (offline too, for a device of
// this architecture) serves a machine without NVRTC.
void record_in_index(const ir::Program& p, const EmitOptions& o_for_index, const std::string& arch, std::int64_t shared_limit,
                     const std::string& key, const CompiledKernel& k) {
    auto disk = cache::DiskCache::open_or_warn();
    const IndexRecord record{k.key, launch_shape(k.kernel)};
    if (!key.empty()) add_to_index(disk ? &*disk : nullptr, key, record);
    add_to_index(disk ? &*disk : nullptr, index_key(p, o_for_index, arch, shared_limit, kAnyNvrtc), record);
}

// compiled_kernel, or with `probe` (probe_kernel) the emitter's output alone where
// the kernel would have to be compiled.
std::shared_ptr<const CompiledKernel> find_or_compile(const ir::Program& p, const EmitOptions& o, const Device* dev, bool need_text, Loc launch,
                                                      bool probe) {
    const std::string& arch = dev ? dev->arch_name : kOfflineArch;
    const int device = dev ? dev->ordinal : -1;
    const Variant variant = variant_of(o, arch, device);
    auto usable = [&](const std::shared_ptr<const CompiledKernel>& k) { return (!dev || k->loaded()) && (!need_text || k->has_text); };
    std::weak_ptr<const ir::Program> owner = p.weak_from_this();
    Loaded& l = loaded();
    // l.mutex guards the maps only: emitting, NVRTC (0.2-1 s a module) and loading
    // run without it, so threads compiling different kernels compile at once (a
    // fuzz campaign's 16 jobs ran one NVRTC at a time, 3 programs a second on an
    // H200's host). Two threads compiling the same kernel both compile; the first
    // to file it is the one both use.
    {
        std::lock_guard<std::mutex> guard(l.mutex);
        auto at = program_entry(l, p);
        if (at != l.by_program.end())
            for (auto& [v, k] : at->second.variants)
                if (v == variant && usable(k)) return k;
    }
    // `k`, filed under (key, device); or the kernel another thread filed there
    // meanwhile, when that one serves as well (loaded, on a device; with text when k has).
    auto file = [&](const std::shared_ptr<const CompiledKernel>& k) {
        std::lock_guard<std::mutex> guard(l.mutex);
        auto [it, inserted] = l.by_key.try_emplace({k->key, device}, k);
        const auto& there = it->second;
        if (!inserted && ((dev && !there->loaded()) || (k->has_text && !there->has_text))) it->second = k;
        return it->second;
    };
    auto filed = [&](const std::string& key) -> std::shared_ptr<const CompiledKernel> {
        std::lock_guard<std::mutex> guard(l.mutex);
        auto same = l.by_key.find({key, device});
        return same == l.by_key.end() || (dev && !same->second->loaded()) ? nullptr : same->second;
    };
    auto remember_now = [&](const std::shared_ptr<const CompiledKernel>& k) {
        std::lock_guard<std::mutex> guard(l.mutex);
        remember(l, program_entry(l, p), p, owner, variant, k);
    };
    EmitOptions eo = o;
    eo.sm = dev ? dev->cc_major * 10 + dev->cc_minor : 90;
    const std::int64_t shared_limit = dev ? dev->max_shared_bytes : kOfflineSharedLimit;
    const EmitOptions o_for_index = eo;  // as a lookup sees them (a recompile for spills changes eo)
    // A launch in a fresh process: through the program index when it knows the
    // program, the kernel's artifacts then come from the disk cache without
    // lowering or emitting (program_index.h). KILN_DUMP_DIR wants the source.
    // Without NVRTC, the record any NVRTC wrote is the one to find.
    const bool indexed = !need_text && !targets::dump_dir_set() && !source_override_set();
    const std::string& nvrtc = nvrtc_identity();
    std::string ikey;  // the key looked up: this NVRTC's (then also the one a compile here records), else any's
    if (dev && indexed) {
        auto disk = cache::DiskCache::open_or_warn();
        ikey = index_key(p, o_for_index, arch, shared_limit, nvrtc.empty() ? kAnyNvrtc : std::string_view(nvrtc));
        if (auto r = find_in_index(disk ? &*disk : nullptr, ikey)) {
            std::shared_ptr<const CompiledKernel> found = filed(r->kernel_key);
            if (!found) {
                auto fresh = std::make_shared<CompiledKernel>();
                fresh->kernel = r->launch;
                fresh->arch = arch;
                fresh->key = r->kernel_key;
                fresh->has_text = false;
                if (read_cached_artifacts(*fresh, disk ? &*disk : nullptr)) {
                    load(*fresh, p, *dev);
                    found = file(fresh);
                }
            }
            if (found) {
                remember_now(found);
                return found;
            }
        }
    }
    std::shared_ptr<const CompiledKernel> k;
    std::vector<std::string> gave_up;  // what each recompile for spills changed (CompiledKernel::spill_feedback)
    int split_threads = -1;  // threads per instance of the last compile (a split that adds none stops splitting)
    // The half-share try (EmitOptions::split_before_dropping): where giving up the
    // shifted runs of misaligned rows alone made the kernel fit, `fitted` holds that
    // compile while the kernel is compiled once more with the shifted runs and each
    // thread holding half its share of the row; the try keeps whichever fits with
    // the shifted runs, else `fitted`.
    struct Fitted {
        std::shared_ptr<CompiledKernel> kernel;
        int instance_threads;
        std::string spilled;  // how much the first compile spilled with the shifted runs
    };
    std::optional<Fitted> split_probe;  // (the compile after it ends the ladder: at most one try)
    std::string shifted_spilled;  // set when the first compile gave up the shifted runs for spills
    // Giving up, for spills, the shifted runs of misaligned rows or the loads ahead of
    // their instance, and saying why (`why`: how much spilled).
    auto drop_shifted_runs = [&](const std::string& why) {
        eo.misaligned_rows = false;
        gave_up.push_back("misaligned rows moved element by element, not as shifted aligned vectors, whose code spilled" + why +
                          (eo.coalesced_elements ? ", and dealt to the threads one element at a time in turn" : ""));
    };
    bool loads_ahead_dropped = false;
    auto drop_loads_ahead = [&](const std::string& why) {
        eo.grid_prefetch = 0;
        loads_ahead_dropped = true;
        gave_up.push_back("no loads ahead of their instance or iteration (grid_prefetch, loop_prefetch): holding them spilled" + why);
    };
    // The ladder's end: the kernel kept, with what was given up for it and the
    // tolerances it was judged under, loaded and filed.
    auto keep = [&](std::shared_ptr<CompiledKernel> kept) {
        if (auto edited = source_override(p.name)) kept = edited_kernel(*kept, std::move(*edited), eo);
        kept->spill_feedback = gave_up;
        kept->ladder_spill_tolerance = eo.spill_tolerance;
        kept->ladder_layout_spill_tolerance = eo.layout_spill_tolerance;
        if (dev && !kept->loaded()) load(*kept, p, *dev);
        // The kernel filed under its key serves where its ladder said the same.
        const std::shared_ptr<const CompiledKernel> filed_one = file(kept);
        k = filed_one->spill_feedback == kept->spill_feedback ? filed_one : kept;
    };
    for (;;) {
        std::shared_ptr<CompiledKernel> fresh = emit(p, eo, arch, shared_limit, launch);
        if (probe) {
            std::lock_guard<std::mutex> guard(l.mutex);
            if (l.by_key.find({fresh->key, device}) == l.by_key.end()) {
                fresh->compiled = false;  // not loaded, not remembered: the caller compiles what it decides on
                return fresh;
            }
        }
        // The same source compiled earlier in the process (another launch's ladder, or
        // shapes of this program it had): its artifacts, without reading them again, but
        // judged by this ladder, whose steps (and what the plan says of them) must not
        // depend on what compiled before.
        if (auto same = filed(fresh->key)) {
            auto reused = std::make_shared<CompiledKernel>(*same);
            reused->kernel = fresh->kernel;  // the emitter's text (a kernel found through the index has none)
            reused->has_text = true;
            reused->spill_feedback.clear();
            reused->ladder_spill_tolerance = reused->ladder_layout_spill_tolerance = -1;
            fresh = std::move(reused);
        } else {
            fetch_artifacts(*fresh, eo);
        }
        // A register cap that makes ptxas spill costs more than the occupancy it buys
        // (local memory traffic in a kernel bound by memory traffic). The code that
        // moves misaligned rows as shifted vectors (emit.h: misaligned_rows) goes
        // first, then the registers holding loads ahead of their instance
        // (passes/grid_prefetch.h), then the NaN canonicalisation by a 16-bit
        // minimum (emit.h: nan_by_minimum); then each thread holds a smaller share of the
        // rows (more threads per instance, up to 8 times as many); then ask for
        // half the resident threads (twice the registers) until it fits or none is asked.
        // A module with a GEMM or attention kernel launches that kernel; its generic
        // kernel is the fallback for launches the specialised one refuses, and is
        // not compiled again for its spills (each recompile is a second NVRTC run of
        // the whole module, 0.5-1 s, for a kernel that rarely runs).
        const Resources& r = fresh->resources;
        const bool specialised = !fresh->kernel.gemm.entry.empty() || !fresh->kernel.attention.entry.empty();
        // (EmitOptions::spill_tolerance: spills of at most that many bytes, stored and
        // loaded, are kept rather than what the ladder would give up for them.)
        const int spill_bytes = !specialised && r.known ? r.spill_store_bytes + r.spill_load_bytes : 0;
        const bool spills = spill_bytes > eo.spill_tolerance;
        // (EmitOptions::layout_spill_tolerance: for the steps after the loads ahead, a
        // little more is kept rather than change the layout.)
        const bool spills_for_layout = spill_bytes > std::max(eo.spill_tolerance, eo.layout_spill_tolerance);
        const std::string spilled =
            " (" + std::to_string(r.spill_store_bytes) + " bytes stored, " + std::to_string(r.spill_load_bytes) + " loaded in local memory)";
        const int instance_threads = fresh->kernel.threads / std::max(1, fresh->kernel.instances_per_cta);
        // The shifted runs of misaligned rows are worth more than a thread's share of
        // the row: where giving them up alone made the kernel fit, it is tried once
        // more with them and each thread holding half as much (twice the threads an
        // instance, the same resident threads). Not where the loads ahead of the
        // instance had to go too, nor for the loads ahead alone: measured on an H200
        // (bench/results/gpu-20261205-s24/), halving the share to keep loads ahead
        // lost as often as it won (geomean 0.99 over 48 row problems; bf16 SwiGLU at
        // 4000 columns 0.66x, softmax at 8192 0.84x, f32 residual LayerNorm at 5123,
        // which gave up both, 0.82x), while keeping the shifted runs alone won 1.5x
        // and 1.9x (bf16 LayerNorm and residual LayerNorm at 5123 columns).
        if (split_probe) {
            Fitted fitted = std::move(*split_probe);
            split_probe.reset();
            std::string& shifted_entry = gave_up.front();  // the shifted runs given up (then, maybe, the loads ahead)
            // Kept: no spill, more threads an instance, the same cluster and the same
            // persistence (loads ahead of the instance kept).
            const bool kept = instance_threads > fitted.instance_threads && fresh->kernel.cluster == fitted.kernel->kernel.cluster &&
                              fresh->kernel.persistent == fitted.kernel->kernel.persistent;
            if (spills || !kept) {
                const std::string half = !kept ? ", and half the share a thread kept nothing (" + std::to_string(instance_threads) + " threads an instance" +
                                                     (fresh->kernel.cluster > 1 ? " over a cluster)" : ")")
                                               : ", and at half the share a thread" + spilled;
                shifted_entry += half;
                eo.misaligned_rows = false;
                eo.layout_split = 1;
                fresh = std::move(fitted.kernel);
            } else {
                shifted_entry = "each thread holds 1/2 of its share of the rows, keeping the shifted runs of misaligned rows, which spilled at the whole share" +
                                fitted.spilled;
            }
            keep(fresh);
            break;
        }
        // Not where a row one warp holds would span two: its reductions, shuffles
        // alone today, would exchange partials through shared memory at barriers.
        const bool leaves_its_warp = instance_threads <= 32 && 2 * instance_threads > 32;
        // (gave_up holds the shifted runs given up, the first compile's change, and at
        // split_before_dropping 2 maybe the loads ahead given up after them.)
        const bool shifted_alone = gave_up.size() == 1, then_loads_ahead = gave_up.size() == 2 && loads_ahead_dropped;
        if (!spills && !shifted_spilled.empty() && (shifted_alone || (then_loads_ahead && eo.split_before_dropping >= 2)) &&
            eo.split_before_dropping >= 1 && fresh->kernel.min_ctas > 1 && !leaves_its_warp) {
            split_probe = Fitted{fresh, instance_threads, shifted_spilled};
            eo.misaligned_rows = true;
            eo.layout_split = 2;
            continue;
        }
        if (spills && eo.misaligned_rows && gave_up.empty()) shifted_spilled = spilled;
        if (spills && eo.misaligned_rows) {
            drop_shifted_runs(spilled);
            continue;
        }
        // A loop's loads an iteration ahead (passes/loop_prefetch.h) keep their registers
        // while each thread's share of the rows halves: a chunked row's loop otherwise
        // waits out a load every iteration. (Not measured yet on a device: see
        // loop_prefetch.h.) So do the loads ahead of their instance of rows dealt an
        // element a thread in turn (EmitOptions::coalesced_elements 2): each element a
        // thread loads is a load of its own, latency it cannot hide by width. Measured
        // on an H100 at 26000 x 5123 bf16 (bench/results/gpu-20261206-s35, call 2):
        // LayerNorm 0.35 -> 0.50 of copy, residual LayerNorm 0.54 -> 0.62, SwiGLU the
        // same (0.62). Not for rows spread over a cluster: halving their share to keep
        // loads ahead lost at 2048 x 65536 bf16 (call 1: softmax 0.60 -> 0.42,
        // cross-entropy 0.29 -> 0.15, residual LayerNorm 0.58 -> 0.35; SwiGLU alone
        // won, 0.77 -> 0.86). Then, as for the grid prefetch's, they go.
        const bool loop_ahead = fresh->kernel.loads_ahead_in_loops && !fresh->kernel.persistent;
        // (Aligned slots, EmitOptions::aligned_slots, come with these rows' options: the same step.)
        const bool dealt_ahead = fresh->kernel.persistent && eo.coalesced_elements >= 2 && !eo.misaligned_rows && fresh->kernel.cluster == 1;
        if (spills && (loop_ahead || dealt_ahead) && eo.grid_prefetch != 0 && fresh->kernel.min_ctas > 1 && eo.layout_split < 8 &&
            instance_threads != split_threads) {
            split_threads = instance_threads;
            eo.layout_split *= 2;
            gave_up.push_back("each thread holds 1/" + std::to_string(eo.layout_split) + " of its share of the rows, keeping " +
                              (loop_ahead ? "a loop's loads an iteration ahead" : "the loads ahead of their instance") + spilled);
            continue;
        }
        // A kernel holding loads ahead uses the 16-bit minimum only under
        // EmitOptions::nan_by_minimum_ahead; there the minimum, three instructions an
        // element pair fewer, goes before the loads ahead, worth more. Only beside them:
        // where the loads ahead go next, the kernel without them takes the minimum again,
        // so the ladder ends where it would have without the option.
        if (spills && fresh->kernel.nan_by_minimum && (fresh->kernel.persistent || fresh->kernel.loads_ahead_in_loops)) {
            eo.nan_by_minimum_ahead = false;
            gave_up.push_back("NaNs of f16/bf16 pairs canonicalised by tests, not by the 16-bit minimum, which spilled beside the loads ahead" + spilled);
            continue;
        }
        if (spills && (fresh->kernel.persistent || fresh->kernel.loads_ahead_in_loops) && eo.grid_prefetch != 0) {
            drop_loads_ahead(spilled);
            continue;
        }
        if (spills_for_layout && fresh->kernel.nan_by_minimum) {
            eo.nan_by_minimum = false;
            gave_up.push_back("NaNs of f16/bf16 pairs canonicalised by tests, not by the 16-bit minimum, which spilled" + spilled);
            continue;
        }
        const bool split_helped = instance_threads != split_threads;  // the last split gave each instance more threads
        split_threads = instance_threads;
        if (spills_for_layout && fresh->kernel.min_ctas > 1 && eo.layout_split < 8 && split_helped) {
            eo.layout_split *= 2;
            gave_up.push_back("each thread holds 1/" + std::to_string(eo.layout_split) + " of its share of the rows" + spilled);
            continue;
        }
        if (spills_for_layout && fresh->kernel.min_ctas > 1) {
            eo.resident_threads = fresh->kernel.min_ctas / 2 * fresh->kernel.threads;
            gave_up.push_back("registers for " + std::to_string(eo.resident_threads) + " resident threads per SM, not " +
                              std::to_string(fresh->kernel.min_ctas * fresh->kernel.threads) + spilled);
            continue;
        }
        // Spills within a tolerance are kept and said so; beyond both, the ladder had
        // nothing left to give up (the plan says the values are not register-resident).
        if (spill_bytes > 0 && !spills_for_layout)
            gave_up.push_back(std::string(kKeptSpills) + spilled +
                              (!spills ? ", within EmitOptions::spill_tolerance (" + std::to_string(eo.spill_tolerance) + " bytes, KILN_CUDA_SPILL_TOLERANCE)"
                                       : ", not worth a change of layout: within EmitOptions::layout_spill_tolerance (" +
                                             std::to_string(eo.layout_spill_tolerance) + " bytes, KILN_CUDA_LAYOUT_SPILL_TOLERANCE)"));
        keep(fresh);
        break;
    }
    // (Reaching here, NVRTC compiled the kernel: a lookup key is this NVRTC's.)
    if (indexed) record_in_index(p, o_for_index, arch, shared_limit, ikey.empty() ? index_key(p, o_for_index, arch, shared_limit, nvrtc) : ikey, *k);
    remember_now(k);
    return k;
}

}  // namespace

std::shared_ptr<const CompiledKernel> compiled_kernel(const ir::Program& p, const EmitOptions& o, const Device* dev, bool need_text, Loc launch) {
    return find_or_compile(p, o, dev, need_text, launch, /*probe=*/false);
}

std::shared_ptr<const CompiledKernel> probe_kernel(const ir::Program& p, const EmitOptions& o, const Device* dev, bool need_text, Loc launch) {
    return find_or_compile(p, o, dev, need_text, launch, /*probe=*/true);
}

void alias_kernel(const ir::Program& p, const EmitOptions& o, const Device* dev, const std::shared_ptr<const CompiledKernel>& k) {
    const std::string& arch = dev ? dev->arch_name : kOfflineArch;
    Loaded& l = loaded();
    {
        std::lock_guard<std::mutex> guard(l.mutex);
        remember(l, program_entry(l, p), p, p.weak_from_this(), variant_of(o, arch, dev ? dev->ordinal : -1), k);
    }
    if (!dev || targets::dump_dir_set()) return;  // recorded where compiled_kernel records (a launch on a device)
    EmitOptions eo = o;
    eo.sm = dev->cc_major * 10 + dev->cc_minor;
    const std::string& nvrtc = nvrtc_identity();
    record_in_index(p, eo, arch, dev->max_shared_bytes, nvrtc.empty() ? std::string() : index_key(p, eo, arch, dev->max_shared_bytes, nvrtc), *k);
}

}  // namespace kiln::cu
