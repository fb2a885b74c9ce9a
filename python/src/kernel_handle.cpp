#include "kernel_handle.h"

#include <dlfcn.h>

#include "case_args.h"
#include "catalog.h"
#include "dlpack_capsules.h"

namespace nb = nanobind;

namespace kiln::py {

namespace {

int precision_code(const std::string& p) {
    if (p == "standard") return 0;
    if (p == "exact") return 1;
    if (p == "fast") return 2;
    throw nb::value_error(("kiln: precision '" + p + "' (known: standard, exact, fast)").c_str());
}

// The C arguments for Python ones; `held` keeps the imported tensors alive.
std::vector<kiln_abi_arg> abi_args(nb::list args, std::vector<ForeignTensor>& held, std::vector<const DLTensor*>& tensors) {
    std::vector<kiln_abi_arg> out;
    for (nb::handle a : args) {
        kiln_abi_arg x{};
        if (PyCapsule_CheckExact(a.ptr())) {
            held.push_back(take_capsule(a));
            x.kind = 0;
            x.tensor = tensors.emplace_back(&held.back().dl_tensor());
            x.read_only = held.back().read_only();
        } else if (PyBool_Check(a.ptr()) || PyLong_Check(a.ptr())) {
            x.kind = 2;
            x.i = nb::cast<std::int64_t>(a);
        } else if (PyFloat_Check(a.ptr())) {
            x.kind = 1;
            x.f = nb::cast<double>(a);
        } else {
            throw nb::type_error("kiln: a kernel argument must be a DLPack capsule or a number");
        }
        out.push_back(x);
    }
    return out;
}

void collect(void* context, const char* text) { *static_cast<std::string*>(context) = text; }

}  // namespace

KernelHandle::KernelHandle(const kiln_abi_kernel& k, std::shared_ptr<void> owner) : abi_(k), owner_(std::move(owner)), name_(k.name) {
    for (int p = 0; p < k.param_count; ++p) {
        const kiln_abi_param& q = k.params[p];
        params_.push_back(Param{q.name, q.spelling, q.is_view != 0, q.writable != 0, std::string(kind_name(static_cast<Kind>(q.kind))), q.rank});
    }
}

void KernelHandle::launch(nb::list args, const std::string& target, const std::string& precision, std::optional<std::uintptr_t> stream) const {
    std::vector<ForeignTensor> held;
    std::vector<const DLTensor*> tensors;
    tensors.reserve(nb::len(args));
    std::vector<kiln_abi_arg> a = abi_args(args, held, tensors);
    int p = precision_code(precision);
    std::string error;
    int failed;
    {
        nb::gil_scoped_release unlocked;
        failed = abi_.launch(a.data(), static_cast<int>(a.size()), target.c_str(), p, reinterpret_cast<void*>(stream.value_or(0)),
                             stream.has_value(), collect, &error);
    }
    if (failed) throw Error(error);
}

std::string KernelHandle::describe(const std::string& what, nb::list args, const std::string& target, const std::string& precision) const {
    int code = what == "ir" ? 0 : what == "plan" ? 1 : what == "source" ? 2 : -1;
    if (code < 0) throw nb::value_error(("kiln: describe '" + what + "' (known: ir, plan, source)").c_str());
    std::vector<ForeignTensor> held;
    std::vector<const DLTensor*> tensors;
    tensors.reserve(nb::len(args));
    std::vector<kiln_abi_arg> a = abi_args(args, held, tensors);
    std::string text, error;
    struct Sinks {
        std::string* text;
        std::string* error;
    };
    // One context for both sinks: the text goes to `out`, the error to `error`.
    Sinks sinks{&text, &error};
    auto out = [](void* c, const char* t) { *static_cast<Sinks*>(c)->text = t; };
    auto err = [](void* c, const char* t) { *static_cast<Sinks*>(c)->error = t; };
    if (abi_.describe(code, a.data(), static_cast<int>(a.size()), target.c_str(), precision_code(precision), out, err, &sinks))
        throw Error(error);
    return text;
}

std::vector<KernelHandle> catalog_kernels() {
    // The catalog's kernels, exported from this module like a library's would be.
    static const bool registered = [] {
        for (const catalog::Entry& e : catalog::entries())
            exports::add(cli::first_case(e, catalog::Size::small).kernel, {}, __FILE__, __LINE__);
        return true;
    }();
    (void)registered;
    const kiln_abi_library* lib = kiln_library_v1();
    std::vector<KernelHandle> out;
    for (int k = 0; k < lib->kernel_count; ++k) out.emplace_back(lib->kernels[k], nullptr);
    return out;
}

std::vector<KernelHandle> load_library(const std::string& path) {
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) throw Error("load_library: " + std::string(dlerror()));
    // Never closed: its kernels may still be running, and its statics hold device memory.
    auto owner = std::shared_ptr<void>(lib, [](void*) {});
    using Table = const kiln_abi_library* (*)();
    auto table = reinterpret_cast<Table>(dlsym(lib, "kiln_library_v1"));
    if (!table) throw Error("load_library: " + path + " exports no kernels (no kiln_library_v1; export them with KILN_EXPORT_KERNEL)");
    const kiln_abi_library* t = table();
    if (t->version != 1) throw Error("load_library: " + path + " has a kernel table of version " + std::to_string(t->version) + " (this kiln reads 1)");
    std::vector<KernelHandle> out;
    for (int k = 0; k < t->kernel_count; ++k) out.emplace_back(t->kernels[k], owner);
    return out;
}

}  // namespace kiln::py
