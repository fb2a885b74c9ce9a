#include "library_kernel.h"

#include <dlfcn.h>

#include <charconv>

#include <kiln/dlpack.h>
#include <kiln/export.h>

#include "commands.h"

namespace kiln::cli {

namespace {

std::vector<std::int64_t> extents_of(const std::string& text) {
    std::vector<std::int64_t> out;
    std::size_t at = 0;
    while (at <= text.size()) {
        std::size_t end = text.find('x', at);
        if (end == std::string::npos) end = text.size();
        std::int64_t v = 0;
        auto r = std::from_chars(text.data() + at, text.data() + end, v);
        if (r.ec != std::errc() || r.ptr != text.data() + end || v < 0) throw UsageError("--arg '" + text + "' is not a shape like 64x128");
        out.push_back(v);
        at = end + 1;
    }
    return out;
}

}  // namespace

std::string describe_library_kernel(const std::string& library, const std::string& name, const std::vector<std::string>& args, int what,
                                    const std::string& target, const std::string& precision) {
    void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) throw UsageError("--library: " + std::string(dlerror()));
    auto table = reinterpret_cast<const kiln_abi_library* (*)()>(dlsym(lib, "kiln_library_v1"));
    if (!table) throw UsageError("--library: " + library + " exports no kernels (no kiln_library_v1: export them with KILN_EXPORT_KERNEL)");
    const kiln_abi_library* t = table();
    const kiln_abi_kernel* k = nullptr;
    std::string names;
    for (int i = 0; i < t->kernel_count; ++i) {
        names += (names.empty() ? "" : ", ") + std::string(t->kernels[i].name);
        if (name == t->kernels[i].name) k = &t->kernels[i];
    }
    if (!k) throw UsageError(library + " exports no kernel '" + name + "' (it exports: " + names + ")");
    if (static_cast<int>(args.size()) != k->param_count)
        throw UsageError("kernel '" + name + "' takes " + std::to_string(k->param_count) + " arguments; give each with --arg (" +
                         std::to_string(args.size()) + " given)");
    // Shapes without memory: nothing is launched, so the data pointers are null.
    std::vector<std::vector<std::int64_t>> shapes(args.size());
    std::vector<DLTensor> tensors(args.size());
    std::vector<kiln_abi_arg> abi(args.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
        const kiln_abi_param& p = k->params[i];
        if (p.is_view) {
            shapes[i] = extents_of(args[i]);
            tensors[i] = DLTensor{nullptr, {kDLCPU, 0}, static_cast<std::int32_t>(shapes[i].size()), detail::dlpack_dtype(static_cast<Kind>(p.kind)),
                                  shapes[i].data(), nullptr, 0};
            abi[i] = kiln_abi_arg{0, &tensors[i], 0, 0, 0};
        } else {
            double v = 0;
            auto r = std::from_chars(args[i].data(), args[i].data() + args[i].size(), v);
            if (r.ec != std::errc() || r.ptr != args[i].data() + args[i].size()) throw UsageError("--arg '" + args[i] + "' is not a number");
            abi[i] = is_float(static_cast<Kind>(p.kind)) ? kiln_abi_arg{1, nullptr, 0, v, 0}
                                                         : kiln_abi_arg{2, nullptr, 0, 0, static_cast<std::int64_t>(v)};
        }
    }
    std::string text, error;
    struct Sinks {
        std::string *text, *error;
    } sinks{&text, &error};
    auto out = [](void* c, const char* s) { *static_cast<Sinks*>(c)->text = s; };
    auto err = [](void* c, const char* s) { *static_cast<Sinks*>(c)->error = s; };
    if (k->describe(what, abi.data(), static_cast<int>(abi.size()), target.c_str(), precision == "exact" ? 1 : precision == "fast" ? 2 : 0, out, err, &sinks))
        throw Error(error);
    return text;
}

}  // namespace kiln::cli
