// Launch specialisation, cache keys and the inspectable plan of the cpu target.
#include "targets/cpu/launch_plan.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cache/disk_cache.h"
#include "passes/index_width.h"
#include "support/environment.h"
#include "support/names.h"
#include "support/warnings.h"
#include "targets/common/thread_pool.h"

namespace kiln::native {

namespace {

// What the plan says of the stores to a view that may take streaming stores.
std::string streaming_note(const ir::Program& p, int param, const EmitOptions& o) {
    std::string streamed, ordinary;
    ir::walk(p.body, [&](const ir::Node& n) {
        if (n.op != detail::OpCode::store || ir::param_index(n) != param) return;
        const std::string at = n.loc.known() ? n.loc.str() : "a store";
        switch (store_streaming(n, o)) {
        case StoreStreaming::streams: streamed += (streamed.empty() ? "" : ", ") + at; break;
        case StoreStreaming::rows_under_a_line: ordinary += (ordinary.empty() ? "" : "; ") + at + ": rows shorter than a 64-byte line"; break;
        case StoreStreaming::value_not_one_pass:
            ordinary += (ordinary.empty() ? "" : "; ") + at + ": its value is not computed in one pass over loads (a reduction or a scan feeds it, so its rows are in the caches)";
            break;
        case StoreStreaming::view_not_eligible: break;
        }
    });
    if (streamed.empty() && ordinary.empty()) return "";  // read only
    std::string note = o.stream_every_store ? "; every store may stream ($KILN_CPU_STREAM_STORES=2)" : "; spans the last-level cache";
    if (!streamed.empty()) note += "; streaming stores around the caches at " + streamed + " ($KILN_CPU_STREAM_STORES=0: ordinary)";
    if (!ordinary.empty()) note += "; ordinary stores at " + ordinary;
    return note;
}

}  // namespace

// The cache of the highest level that holds data, as the kernel sees it: the sysfs
// entry of the instance cpu0 shares ("32768K"). Not sysconf: on a virtual machine
// of this project's it gave the host's 320 MiB of L3 across ten complexes where one
// core's complex has 32 MiB.
std::int64_t last_level_cache_bytes() {
    static const std::int64_t bytes = [] {
        std::int64_t best = 0;
        for (int i = 0; i < 8; ++i) {
            const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
            std::ifstream type(dir + "type"), size(dir + "size");
            std::string t, z;
            if (!(type >> t) || !(size >> z) || t == "Instruction" || z.empty()) continue;
            std::int64_t n = 0;
            std::size_t k = 0;
            while (k < z.size() && z[k] >= '0' && z[k] <= '9') n = n * 10 + (z[k++] - '0');
            const char unit = k < z.size() ? z[k] : ' ';
            n <<= unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
            best = std::max(best, n);
        }
        return best > 0 ? best : std::int64_t{32} << 20;
    }();
    return bytes;
}

LaunchSpec launch_spec(const ir::Program& p, const std::vector<detail::Arg>& args, const CompileOptions& opts) {
    LaunchSpec s;
    s.precision = opts.precision;
    s.emit.exact = opts.precision == Precision::exact;
    s.emit.unit_inner.assign(p.params.size(), false);
    s.emit.index64 = opts.index_width == IndexWidth::wide || passes::needs_64bit_offsets(args);
    static const bool prefetch = support::env_integer("KILN_CPU_PREFETCH", 0, 1).value_or(1) != 0;
    s.emit.prefetch = prefetch;
    // KILN_CPU_STREAM_STORES: 0 never, 1 (the default) views spanning the last-level
    // cache, 2 every view with a unit innermost stride (tests: any launch takes the path).
    static const int stream = static_cast<int>(support::env_integer("KILN_CPU_STREAM_STORES", 0, 2).value_or(1));
    s.emit.stream_stores.assign(p.params.size(), false);
    s.emit.stream_every_store = stream == 2;
    for (std::size_t k = 0; k < args.size(); ++k) {
        const auto& a = args[k];
        if (!a.is_view) continue;
        s.emit.unit_inner[k] = a.strides.back() == 1;
        s.emit.stream_stores[k] = s.emit.unit_inner[k] && (stream == 2 || (stream == 1 && (passes::view_span(a) + 1) * static_cast<std::int64_t>(kind_bytes(a.kind)) >= last_level_cache_bytes()));
    }
    return s;
}

std::string cache_key(const Emitted& e, const LaunchSpec& spec, const HostCompiler& compiler) {
    cache::KeyBuilder key;
    key.add("artifact", "kiln cpu kernel (shared object), format 1");
    key.add("target", "cpu");
    key.add("precision", std::string(precision_name(spec.precision)));
    key.add("index width", spec.emit.index64 ? "64" : "32");
    key.add("compiler", compiler.identity);
    key.add("flags", compiler.flags_text());
    key.add("host cpu", compiler.host_cpu);
    key.add("source", e.source);
    return key.hex();
}

// A few chunks per thread balance uneven instances; each chunk pays for the code
// before the grid once.
Chunking chunking(std::int64_t instances, int threads) {
    Chunking c;
    c.chunks = std::max<std::int64_t>(1, std::min<std::int64_t>(instances, std::int64_t{threads} * 4));
    c.per_chunk = std::max<std::int64_t>(1, (instances + c.chunks - 1) / c.chunks);
    c.chunks = std::max<std::int64_t>(1, (instances + c.per_chunk - 1) / c.per_chunk);
    return c;
}

std::string plan_text(const ir::Program& p, const std::vector<detail::Arg>& args, const LaunchSpec& spec, const Emitted& e,
                      const std::string& key, const HostCompiler* compiler, const std::string& why_no_compiler) {
    std::ostringstream s;
    s << "target cpu: kernel " << p.name << " (generated C++, one shared object)\n";
    s << "  precision: " << precision_name(spec.precision);
    if (spec.precision == Precision::exact) s << " (bit-exact with interp: pinned orders, no FMA contraction, kiln math)\n";
    else s << " (as exact, except that long f32/f64 sums run in vector lanes and a tree, and f32 exp is kiln_cpu::exp32_fast, within 1.06 ulp"
           << (spec.precision == Precision::fast ? "; fast computes as standard here: the cpu target has no coarser exp)\n" : ")\n");
    const int threads = launch_threads();
    if (auto ext = grid_extents(p, args)) {
        std::int64_t instances = 1;
        std::string dims;
        for (auto x : *ext) {
            instances *= std::max<std::int64_t>(x, 0);
            dims += (dims.empty() ? "" : " x ") + std::to_string(x);
        }
        Chunking c = chunking(instances, threads);
        s << "  grid: " << (ext->empty() ? "none (one instance)" : dims + " = " + std::to_string(instances) + " instances") << ", " << c.chunks
          << " chunk(s) of " << c.per_chunk << " on up to " << threads << " thread(s) ($KILN_NUM_THREADS)\n";
    } else {
        s << "  grid: extents computed at launch; chunks of instances on up to " << threads << " thread(s) ($KILN_NUM_THREADS)\n";
    }
    std::int64_t widest = 0;
    for (auto& a : args)
        if (a.is_view) widest = std::max(widest, passes::view_span(a));
    s << "  index width: " << (spec.emit.index64 ? "64" : "32") << "-bit element offsets (largest view span " << widest << ")\n";
    for (std::size_t k = 0; k < args.size(); ++k) {
        const auto& a = args[k];
        s << "  arg" << k << ": " << p.params[k].spelling;
        if (a.is_view) {
            s << " extents";
            for (auto x : a.extents) s << " " << x;
            s << ", strides";
            for (auto x : a.strides) s << " " << x;
            s << (spec.emit.unit_inner[k] ? " (inner stride 1: contiguous rows)" : "");
            if (spec.emit.stream_stores[k]) s << streaming_note(p, static_cast<int>(k), spec.emit);
        }
        s << "\n";
    }
    if (!e.contractions.empty()) {
        s << "  contractions:\n";
        for (const auto& line : e.contractions) s << "    " << line << "\n";
    }
    s << "  values (tiles are local arrays, " << e.frame_bytes << " bytes per instance):\n";
    std::unordered_map<const ir::Node*, int> ids = ir::number_nodes(p);
    ir::walk(p.body, [&](const ir::Node& n) {
        if (n.op == detail::OpCode::store || n.op == detail::OpCode::yield || n.op == detail::OpCode::stage || n.op == detail::OpCode::loop) return;
        if (n.type.dims.empty()) return;
        s << "    %" << ids.at(&n) << " " << detail::op_name(n.op) << " : " << ir::print_type(p, n.type);
        if (auto it = e.notes.find(&n); it != e.notes.end()) s << ": " << it->second;
        s << "\n";
    });
    if (compiler) s << "  compiler: " << compiler->version() << " (" << compiler->identity << "): " << compiler->flags_text() << "\n  cache key: " << key << "\n";
    else s << "  compiler: unavailable (" << why_no_compiler << ")\n";
    return s.str();
}

}  // namespace kiln::native
