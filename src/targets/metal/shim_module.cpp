#include "targets/metal/shim_module.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "cache/disk_cache.h"
#include "targets/common/embedded_text.h"
#include "targets/common/shared_objects.h"
#include "targets/metal/emit_expr.h"

namespace kiln::mtl {

const std::vector<std::string>& shim_flags() {
    static const std::vector<std::string> flags = {"-fsigned-char"};
    return flags;
}

std::string shim_glue(const ir::Program& p, const Emitted& e) {
    std::string s;
    s += "// kiln's Metal shim: host glue for kernel '" + e.entry + "'. It plays the part of a Metal command encoder:\n";
    s += "// each thread of threadgroups [begin, end) calls the kernel (kernel.metal, compiled unchanged as C++ against\n";
    s += "// kiln's metal_stdlib), as fibers when the kernel has barriers.\n";
    s += "#include \"kernel.metal\"\n\n";
    return s + shim_glue_body(p, e);
}

std::string shim_glue_body(const ir::Program& p, const Emitted& e) {
    std::string args;
    for (std::size_t k = 0; k < p.params.size(); ++k) {
        const auto& q = p.params[k];
        if (!q.is_view) continue;
        args += "static_cast<" + std::string(q.writable ? "" : "const ") + stype(q.kind) + "*>(c->buffers[" + std::to_string(k) + "]), ";
    }
    std::string s = "namespace {\n";
    s += "struct KilnShimCall {\n    void* const* buffers;\n    const long* launch;\n    long groups;\n};\n";
    s += "void kiln_shim_body(void* context, long group, int lane) {\n";
    s += "    const KilnShimCall* c = static_cast<const KilnShimCall*>(context);\n";
    s += "    " + e.entry + "(" + args + "c->launch, static_cast<uint>(group), static_cast<uint>(c->groups), static_cast<uint>(lane));\n";
    s += "}\n}  // namespace\n\n";
    s += "extern \"C\" __attribute__((visibility(\"default\"))) int kiln_metal_run(void* const* buffers, const long* launch, long begin, long end,\n";
    s += "                                                                     long groups, long stack_bytes, char* error, int error_size) {\n";
    s += "    KilnShimCall c{buffers, launch, groups};\n";
    s += "    return kiln_shim::run_groups(begin, end, " + std::to_string(e.threads_per_group) + ", " + (e.barriers ? "true" : "false") +
         ", stack_bytes, kiln_shim_body, &c, error, error_size);\n";
    s += "}\n";
    return s;
}

std::int64_t shim_stack_bytes(const Emitted& e) { return std::max<std::int64_t>(256 << 10, 4 * e.private_bytes + (256 << 10)); }

std::string shim_key(const Emitted& e, const std::string& glue, const native::HostCompiler& compiler) {
    cache::KeyBuilder key;
    key.add("artifact", "kiln metal kernel through the C++ shim (shared object), format 1");
    key.add("target", "metal");
    key.add("compiler", compiler.identity);
    key.add("flags", compiler.flags_text());
    std::string extra;
    for (const auto& f : shim_flags()) extra += f + " ";
    key.add("shim flags", extra);
    key.add("host cpu", compiler.host_cpu);
    key.add("shim", embedded::metal_stdlib());
    key.add("msl", e.source);
    key.add("glue", glue);
    return key.hex();
}

ShimModule shim_module(const ir::Program& p, const Emitted& e, const native::HostCompiler& compiler) {
    const std::string glue = shim_glue(p, e);
    ShimModule m;
    m.key = shim_key(e, glue, compiler);
    const std::optional<cache::DiskCache> cache = cache::DiskCache::open_or_warn();
    const cache::DiskCache* disk = cache ? &*cache : nullptr;
    const native::SharedObject* o = native::find_shared_object(disk, m.key);
    if (!o) {
        native::BuildRequest r;
        r.target = "metal";
        r.kernel_name = p.name;
        r.files = {{"kernel.cpp", glue}, {"kernel.metal", e.source}, {"metal_stdlib", std::string(embedded::metal_stdlib())}};
        r.flags = shim_flags();
        r.include_build_dir = true;
        o = &native::load_shared_object(disk, m.key, r, compiler);
    }
    m.run = reinterpret_cast<ShimRunFn>(o->symbol("kiln_metal_run"));
    return m;
}

}  // namespace kiln::mtl
