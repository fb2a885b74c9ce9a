// Exporting kernels from a shared library, so that programs that did not compile
// them (the `kiln` Python package, torch custom ops) can launch them on DLPack
// tensors. The boundary is C: each library carries its own kiln, and a caller
// reaches the kernels through kiln_library_v1(), a table of plain functions over
// DLTensor pointers.
//
//     // my_kernels.cpp, built as a shared library linking kiln::kiln
//     #include <kiln/export.h>
//     kiln::Kernel softmax = kiln::kernel("softmax", [](kiln::View<const kiln::f32, 2> x, kiln::View<kiln::f32, 2> y) { ... });
//     KILN_EXPORT_KERNEL(softmax, "x", "y");   // the parameters' names, for Python and torch schemas
//
//     >>> ops = kiln.load_library("libmy_kernels.so"); ops.softmax(x, y)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

#include <kiln/kiln.h>

extern "C" {

// One launch argument: a tensor (kind 0) or a scalar (kind 1: the float, 2: the integer).
struct kiln_abi_arg {
    int kind;
    const DLTensor* tensor;
    int read_only;  // the producer marked the tensor read-only
    double f;
    std::int64_t i;
};

// One parameter of an exported kernel.
struct kiln_abi_param {
    const char* name;      // as given to KILN_EXPORT_KERNEL, else "arg<i>"
    const char* spelling;  // "View<const f32, 2>", "Scalar<f32>"
    int is_view;
    int writable;
    int kind;              // kiln::Kind
    int rank;
};

// Receives text (an error, or what describe() produces); the library keeps none.
typedef void (*kiln_abi_text_sink)(void* context, const char* text);

struct kiln_abi_kernel {
    const char* name;
    int param_count;
    const kiln_abi_param* params;
    // Launches on the tensors' memory. target: "" picks cpu for host tensors and
    // cuda for CUDA tensors, else "interp", "cpu", "cuda". precision: 0 standard,
    // 1 exact, 2 fast (anything else: standard). stream: the CUstream CUDA launches are enqueued on (null: the
    // legacy default stream, waited for); has_stream 0 means launch synchronously.
    // Returns 0, else calls `error` with the message and returns 1.
    int (*launch)(const kiln_abi_arg* args, int count, const char* target, int precision, void* stream, int has_stream,
                  kiln_abi_text_sink error, void* context);
    // what: 0 Tile IR, 1 plan, 2 generated source, 3 the cuda target's PTX. Same conventions;
    // the text goes to `out`.
    int (*describe)(int what, const kiln_abi_arg* args, int count, const char* target, int precision, kiln_abi_text_sink out,
                    kiln_abi_text_sink error, void* context);
};

struct kiln_abi_library {
    int version;  // 1
    int kernel_count;
    const kiln_abi_kernel* kernels;
};

}  // extern "C"

namespace kiln::exports {

// The precision an ABI call asks for (kiln_abi_kernel::launch).
constexpr Precision abi_precision(int precision) {
    return precision == 1 ? Precision::exact : precision == 2 ? Precision::fast : Precision::standard;
}
// The launch arguments for ABI arguments (checked as from_dlpack checks).
std::vector<detail::Arg> abi_args(const kiln_abi_arg* args, int count);
// The target a call names, or the one the arguments' memory picks; a CUDA stream binds it.
Target abi_target(const char* name, const std::vector<detail::Arg>& args, void* stream, int has_stream);
// Runs f, turning a kiln::Error (or any exception) into a call of `error`: 1; else 0.
int guarded(kiln_abi_text_sink error, void* context, const std::function<void()>& f);
// What describe() answers.
std::string describe(const Kernel& k, int what, const std::vector<detail::Arg>& args, const Target& t, const CompileOptions& o);

// The kernels one library exports. Hidden, so that each shared library has its own.
struct Entry {
    Kernel kernel;
    std::vector<std::string> names;
    Loc loc;  // the KILN_EXPORT_KERNEL line
};
// Refuses a kernel the table cannot hold, a name another exported kernel has, or
// parameter names that do not fit its parameters.
void check_export(const Kernel& k, const std::vector<std::string>& names, const std::vector<Entry>& exported, Loc loc);
__attribute__((visibility("hidden"))) inline std::vector<Entry>& entries() {
    static std::vector<Entry> e;
    return e;
}

template <int I> struct Slot {
    static int launch(const kiln_abi_arg* a, int n, const char* target, int precision, void* stream, int has_stream, kiln_abi_text_sink error,
                      void* context) {
        return guarded(error, context, [&] {
            std::vector<detail::Arg> args = abi_args(a, n);
            CompileOptions o{abi_precision(precision)};
            run_kernel(entries().at(I).kernel, abi_target(target, args, stream, has_stream), args, o, Loc{});
        });
    }
    static int describe(int what, const kiln_abi_arg* a, int n, const char* target, int precision, kiln_abi_text_sink out,
                        kiln_abi_text_sink error, void* context) {
        return guarded(error, context, [&] {
            std::vector<detail::Arg> args = abi_args(a, n);
            CompileOptions o{abi_precision(precision)};
            std::string text = exports::describe(entries().at(I).kernel, what, args, abi_target(target, args, nullptr, 0), o);
            out(context, text.c_str());
        });
    }
};

// The table kiln_library_v1() returns, built once from entries() (up to 64 kernels).
constexpr int kMaxKernels = 64;
template <int... I> const kiln_abi_library* table(std::integer_sequence<int, I...>) {
    static std::vector<std::vector<kiln_abi_param>> params;
    static std::vector<std::vector<std::string>> spellings;
    static std::vector<kiln_abi_kernel> kernels;
    static kiln_abi_library library{};
    static const bool built = [] {
        using Launch = decltype(kiln_abi_kernel::launch);
        using Describe = decltype(kiln_abi_kernel::describe);
        constexpr Launch launches[] = {&Slot<I>::launch...};
        constexpr Describe describes[] = {&Slot<I>::describe...};
        const auto& e = entries();
        std::size_t n = std::min<std::size_t>(e.size(), kMaxKernels);
        params.resize(n);
        spellings.resize(n);
        for (std::size_t k = 0; k < n; ++k) {
            const auto& sigs = e[k].kernel.params();
            for (std::size_t p = 0; p < sigs.size(); ++p) spellings[k].push_back(sigs[p].spelling);
            for (std::size_t p = 0; p < sigs.size(); ++p)
                params[k].push_back(kiln_abi_param{e[k].names[p].c_str(), spellings[k][p].c_str(), sigs[p].is_view, sigs[p].writable,
                                                   static_cast<int>(sigs[p].kind), sigs[p].rank});
        }
        for (std::size_t k = 0; k < n; ++k)
            kernels.push_back(kiln_abi_kernel{e[k].kernel.name().c_str(), static_cast<int>(params[k].size()), params[k].data(),
                                              launches[k], describes[k]});
        library = kiln_abi_library{1, static_cast<int>(kernels.size()), kernels.data()};
        return true;
    }();
    (void)built;
    return &library;
}

// Registers a kernel (KILN_EXPORT_KERNEL); names default to arg0, arg1, ...
inline bool add(const Kernel& k, std::vector<std::string> names, const char* file, unsigned line) {
    Loc loc{file, line};
    check_export(k, names, entries(), loc);
    for (std::size_t p = names.size(); p < k.params().size(); ++p) names.push_back("arg" + std::to_string(p));
    entries().push_back(Entry{k, std::move(names), loc});
    return true;
}

}  // namespace kiln::exports

// The library's table; one (weak, merged) definition per shared library.
extern "C" __attribute__((visibility("default"), used)) inline const kiln_abi_library* kiln_library_v1() {
    return kiln::exports::table(std::make_integer_sequence<int, kiln::exports::kMaxKernels>{});
}

#define KILN_EXPORT_CONCAT2(a, b) a##b
#define KILN_EXPORT_CONCAT(a, b) KILN_EXPORT_CONCAT2(a, b)
// KILN_EXPORT_KERNEL(kernel, "param name", ...): exports a kiln::Kernel variable
// under its kernel's name (several may share a line: each use declares its own flag).
#define KILN_EXPORT_KERNEL(k, ...)                                                                 \
    [[maybe_unused]] static const bool KILN_EXPORT_CONCAT(kiln_exported_, __COUNTER__) =          \
        ::kiln::exports::add((k), std::vector<std::string>{__VA_ARGS__}, __FILE__, __LINE__)
