#include "targets/metal/shim_batch.h"

#include <string_view>

#include <kiln/error.h>

#include "targets/common/embedded_text.h"
#include "targets/common/shared_objects.h"
#include "targets/metal/emit_msl.h"

namespace kiln::mtl {

namespace {

constexpr std::string_view kKernelPart = "\n// ---- kernel\n";  // emit_msl.cpp

// Kernel k of a batch: its MSL after the prelude and its glue, in their own namespace.
std::string batch_member(const BatchKernel& b, std::size_t k) {
    const std::string& prelude = msl_prelude();
    const auto at = b.msl.find(kKernelPart);
    if (at == std::string::npos || at < prelude.size() || b.msl.compare(at - prelude.size(), prelude.size(), prelude) != 0)
        internal_fail("metal shim: a kernel's MSL does not have the prelude just before its kernel part");
    const std::string n = std::to_string(k);
    return "\nnamespace kiln_batch_" + n + " {" + b.msl.substr(at) + "\n#define kiln_metal_run kiln_metal_run_" + n + "\n" + b.glue_body +
           "#undef kiln_metal_run\n}  // namespace kiln_batch_" + n + "\n";
}

}  // namespace

int build_shim_batch(const std::vector<BatchKernel>& kernels, const native::HostCompiler& compiler) {
    std::vector<const BatchKernel*> todo;
    for (const BatchKernel& b : kernels)
        if (!native::is_loaded(b.key)) todo.push_back(&b);
    if (todo.size() < 2) return 0;  // one kernel builds as well alone, into the cache
    std::string text = "// kiln's Metal shim: a batch of " + std::to_string(todo.size()) +
                       " kernels, each kernel's MSL after the shared prelude with its glue (shim_batch.h).\n" + msl_prelude();
    std::vector<std::string> keys;
    for (std::size_t k = 0; k < todo.size(); ++k) {
        text += batch_member(*todo[k], k);
        keys.push_back(todo[k]->key);
    }
    native::BuildRequest r;
    r.target = "metal";
    r.kernel_name = "a batch of " + std::to_string(todo.size());
    r.files = {{"kernel.cpp", text}, {"metal_stdlib", std::string(embedded::metal_stdlib())}};
    r.flags = shim_flags();
    r.include_build_dir = true;
    return native::load_batch(keys, r, compiler) ? static_cast<int>(todo.size()) : 0;
}

}  // namespace kiln::mtl
