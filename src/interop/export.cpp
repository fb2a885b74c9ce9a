// The C boundary of exported kernels (kiln/export.h): ABI arguments to launch
// arguments, the target a call selects, errors to text.
#include <kiln/dlpack.h>
#include <kiln/export.h>

#include <algorithm>
#include <cctype>

#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"

namespace kiln::exports {

std::vector<detail::Arg> abi_args(const kiln_abi_arg* args, int count) {
    std::vector<detail::Arg> out;
    out.reserve(static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k) {
        const kiln_abi_arg& a = args[k];
        if (a.kind == 0) {
            if (!a.tensor) throw Error("argument " + std::to_string(k) + ": a null tensor");
            out.push_back(detail::dlpack_arg(*a.tensor, a.read_only != 0, Loc{}));
            continue;
        }
        detail::Arg s;
        s.is_view = false;
        if (a.kind == 1) {
            s.kind = Kind::F64;
            s.f = a.f;
        } else {
            s.kind = Kind::I64;
            s.i = a.i;
        }
        out.push_back(s);
    }
    return out;
}

Target abi_target(const char* name, const std::vector<detail::Arg>& args, void* stream, int has_stream) {
    std::string chosen = name ? name : "";
    if (chosen.empty()) {
        bool on_device = std::any_of(args.begin(), args.end(), [](const detail::Arg& a) { return a.is_view && a.device == Device::cuda; });
        chosen = on_device ? "cuda" : "cpu";
    }
    if (chosen != "cuda") return target_named(chosen);
    int ordinal = 0;
    for (const detail::Arg& a : args)
        if (a.is_view && a.device == Device::cuda) {
            ordinal = a.ordinal;
            break;
        }
    if (has_stream) return cuda(Stream::wrap(stream, ordinal));
    return cuda(ordinal);
}

int guarded(kiln_abi_text_sink error, void* context, const std::function<void()>& f) {
    try {
        f();
        return 0;
    } catch (const std::exception& e) {
        error(context, e.what());
    } catch (...) {
        error(context, "an unknown exception");
    }
    return 1;
}

std::string describe(const Kernel& k, int what, const std::vector<detail::Arg>& args, const Target& t, const CompileOptions& o) {
    auto program = detail::specialize(*k.shared_impl(), args, Loc{});
    if (what == 0) return ir::print(*program);
    if (what == 1) return t.impl().plan(*program, args, o);
    if (what == 2) return t.impl().source(*program, args, o, false);
    if (what == 3) {
        if (t.name() != "cuda") throw Error("describe: PTX is the cuda target's assembly; target '" + t.name() + "' has none");
        return t.impl().source(*program, args, o, true);
    }
    throw Error("describe: unknown request " + std::to_string(what) + " (0 ir, 1 plan, 2 source, 3 PTX)");
}

void check_export(const Kernel& k, const std::vector<std::string>& names, const std::vector<Entry>& exported, Loc loc) {
    if (!k.shared_impl()) fail(loc, "KILN_EXPORT_KERNEL", "an empty kernel handle (is the kernel defined before it is exported?)");
    if (exported.size() >= static_cast<std::size_t>(kMaxKernels))
        fail(loc, "KILN_EXPORT_KERNEL", "a library exports at most " + std::to_string(kMaxKernels) + " kernels");
    // Callers find a library's kernels by name (kiln.load_library, `kiln run --library`):
    // a second kernel of the same name could never be reached.
    for (const Entry& e : exported)
        if (e.kernel.name() == k.name())
            fail(loc, "KILN_EXPORT_KERNEL", "a kernel named '" + k.name() + "' is already exported, at " + e.loc.str() +
                                                "; each kernel of a library needs a name of its own (the first argument of kernel(), e.g. '" + k.name() +
                                                "_f32' for another instantiation of a template)");
    if (names.size() > k.params().size())
        fail(loc, "KILN_EXPORT_KERNEL", "kernel '" + k.name() + "' has " + std::to_string(k.params().size()) + " parameters, " +
                                            std::to_string(names.size()) + " names were given");
    for (const auto& n : names) {
        bool ok = !n.empty() && !std::isdigit(static_cast<unsigned char>(n[0]));
        for (char c : n) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
        if (!ok) fail(loc, "KILN_EXPORT_KERNEL", "parameter name '" + n + "' is not an identifier (letters, digits, _)");
    }
}

}  // namespace kiln::exports
