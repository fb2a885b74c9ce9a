// Launch specialisation, cache keys and the inspectable plan of the cpu target.
#include "targets/cpu/launch_plan.h"

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cache/disk_cache.h"
#include "passes/index_width.h"
#include "support/environment.h"
#include "support/names.h"
#include "support/warnings.h"
#include "targets/common/thread_pool.h"

namespace kiln::native {

LaunchSpec launch_spec(const ir::Program& p, const std::vector<detail::Arg>& args, const CompileOptions& opts) {
    LaunchSpec s;
    s.precision = opts.precision;
    s.emit.exact = opts.precision == Precision::exact;
    s.emit.unit_inner.assign(p.params.size(), false);
    s.emit.index64 = opts.index_width == IndexWidth::wide || passes::needs_64bit_offsets(args);
    static const bool prefetch = support::env_integer("KILN_CPU_PREFETCH", 0, 1).value_or(1) != 0;
    s.emit.prefetch = prefetch;
    for (std::size_t k = 0; k < args.size(); ++k) {
        const auto& a = args[k];
        if (!a.is_view) continue;
        s.emit.unit_inner[k] = a.strides.back() == 1;
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
