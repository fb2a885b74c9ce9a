// Launch specialisation, cache keys and the inspectable plan of the cpu target.
#include "targets/cpu/launch_plan.h"

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cache/disk_cache.h"
#include "cache/private_files.h"
#include "interp/eval.h"
#include "interp/semantics.h"
#include "support/names.h"
#include "support/warnings.h"
#include "targets/cpu/embedded_text.h"
#include "targets/cpu/thread_pool.h"

namespace kiln::native {

std::int64_t view_span(const detail::Arg& a) {
    std::int64_t span = 0;
    for (std::size_t k = 0; k < a.extents.size(); ++k) {
        if (a.extents[k] == 0) return 0;  // no element at all
        span += (a.extents[k] - 1) * a.strides[k];  // check_host_view proved this cannot overflow
    }
    return span;
}

LaunchSpec launch_spec(const ir::Program& p, const std::vector<detail::Arg>& args, const CompileOptions& opts) {
    LaunchSpec s;
    s.precision = opts.precision;
    s.emit.exact = opts.precision == Precision::exact;
    s.emit.unit_inner.assign(p.params.size(), false);
    for (std::size_t k = 0; k < args.size(); ++k) {
        const auto& a = args[k];
        if (!a.is_view) continue;
        if (view_span(a) > INT32_MAX) s.emit.index64 = true;
        s.emit.unit_inner[k] = a.strides.back() == 1;
    }
    return s;
}

std::string cache_key(const Emitted& e, const LaunchSpec& spec, const HostCompiler& compiler) {
    cache::KeyBuilder key;
    key.add("artifact", "kiln cpu kernel (shared object)");
    key.add("kiln", kiln_build_id());
    key.add("target", "cpu");
    key.add("precision", spec.precision == Precision::exact ? "exact" : "standard");
    key.add("index width", spec.emit.index64 ? "64" : "32");
    key.add("compiler", compiler.identity);
    key.add("flags", compiler.flags_text());
    key.add("host cpu", compiler.host_cpu);
    key.add("source", e.source);
    return key.hex();
}

bool dump_dir_set() {
    const char* dir = std::getenv("KILN_DUMP_DIR");
    return dir && *dir;
}

// A dump is for reading, never needed to run: a directory that cannot take it is
// a warning (once), and the launch goes on. The file replaces any earlier dump
// of the same kernel, and a symlink planted at its name is replaced, not followed.
void dump_source(const std::string& kernel, const std::string& key, const std::string& source) {
    const char* dir = std::getenv("KILN_DUMP_DIR");
    if (!dir || !*dir) return;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    try {
        if (ec) throw cache::IoError("", dir, "cannot create", ec.value());
        cache::replace_file(dir, support::file_name_part(kernel) + "-" + key.substr(0, 16) + ".cpp", source);
    } catch (const cache::IoError& e) {
        support::warn_once("KILN_DUMP_DIR", "KILN_DUMP_DIR='" + std::string(dir) + "': " + e.detail() + "; generated sources are not dumped");
    }
}

// The grid extents depend only on scalars (view extents, parameters, index
// arithmetic), so the interpreter's evaluation of those nodes gives them.
std::optional<std::vector<std::int64_t>> grid_extents(const ir::Program& p, const std::vector<detail::Arg>& args) {
    if (!p.grid) return std::vector<std::int64_t>{};
    std::unordered_map<const ir::Node*, ref::DataPtr> env;
    for (const ir::Node* n : p.body.nodes) {
        if (n == p.grid) break;
        auto d = std::make_shared<ir::EagerData>();
        auto arg = [&]() -> const detail::Arg& { return args.at(static_cast<std::size_t>(n->i)); };
        switch (n->op) {
            case detail::OpCode::param:
                if (is_float(n->type.kind)) d->floats.push_back(ref::round_to(n->type.kind, arg().f));
                else d->ints.push_back(ref::wrap_to(n->type.kind, arg().i));
                env[n] = d;
                break;
            case detail::OpCode::view_extent: d->ints.push_back(arg().extents.at(static_cast<std::size_t>(n->j))); env[n] = d; break;
            case detail::OpCode::view_stride: d->ints.push_back(arg().strides.at(static_cast<std::size_t>(n->j))); env[n] = d; break;
            case detail::OpCode::load: case detail::OpCode::store: case detail::OpCode::loop: case detail::OpCode::loop_result: break;
            default: {
                std::vector<const ir::EagerData*> in;
                bool ok = true;
                for (const ir::Node* o : n->operands) {
                    auto it = env.find(o);
                    if (it == env.end()) ok = false;
                    else in.push_back(it->second.get());
                }
                if (ok) env[n] = ref::eval(*n, in);
            }
        }
    }
    std::vector<std::int64_t> ext;
    for (int k = 0; k < ir::loop_rank(*p.grid); ++k) {
        auto it = env.find(p.grid->operands[static_cast<std::size_t>(k)]);
        if (it == env.end()) return std::nullopt;
        ext.push_back(it->second->ints.at(0));
    }
    return ext;
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
    s << "  precision: " << (spec.precision == Precision::exact ? "exact" : "standard")
      << (spec.precision == Precision::exact ? " (bit-exact with interp: pinned orders, no FMA contraction, kiln math)\n"
                                              : " (as exact, except that long f32/f64 sums run in vector lanes and a tree, and f32 exp is kiln_cpu::exp32_fast, within 1.03 ulp)\n");
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
        if (a.is_view) widest = std::max(widest, view_span(a));
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
    s << "  values (tiles are local arrays, " << e.frame_bytes << " bytes per instance):\n";
    std::unordered_map<const ir::Node*, int> ids = number_nodes(p);
    ir::walk(p.body, [&](const ir::Node& n) {
        if (n.op == detail::OpCode::store || n.op == detail::OpCode::yield || n.op == detail::OpCode::stage || n.op == detail::OpCode::loop) return;
        if (n.type.dims.empty()) return;
        s << "    %" << ids.at(&n) << " " << detail::op_name(n.op) << " : " << ir::print_type(p, n.type) << "\n";
    });
    if (compiler) s << "  compiler: " << compiler->version() << " (" << compiler->identity << "): " << compiler->flags_text() << "\n  cache key: " << key << "\n";
    else s << "  compiler: unavailable (" << why_no_compiler << ")\n";
    return s.str();
}

}  // namespace kiln::native
