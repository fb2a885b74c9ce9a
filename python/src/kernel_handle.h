// A kernel Python can call: one of this module's own (the catalog's) or one a
// shared library exports (kiln/export.h). Both are reached through the same C
// table of functions over DLPack tensors.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>

#include <kiln/export.h>

namespace kiln::py {

struct Param {
    std::string name;
    std::string spelling;  // "View<const f32, 2>"
    bool is_view = true;
    bool writable = false;
    std::string kind;      // "f32"
    int rank = 0;
};

class KernelHandle {
public:
    // `owner` keeps what the functions live in loaded (a library), or is null.
    KernelHandle(const kiln_abi_kernel& k, std::shared_ptr<void> owner);

    const std::string& name() const { return name_; }
    const std::vector<Param>& params() const { return params_; }
    // args: DLPack capsules (obj.__dlpack__()) and numbers, in parameter order.
    // target: "" (cpu for host memory, cuda for CUDA memory), "interp", "cpu",
    // "cuda"; stream: the CUDA stream to enqueue on (None: wait for the kernel).
    void launch(nanobind::list args, const std::string& target, const std::string& precision, std::optional<std::uintptr_t> stream) const;
    // what: "ir", "plan" or "source", for these arguments' shapes.
    std::string describe(const std::string& what, nanobind::list args, const std::string& target, const std::string& precision) const;

private:
    kiln_abi_kernel abi_;
    std::shared_ptr<void> owner_;
    std::string name_;
    std::vector<Param> params_;
};

// The catalog's kernels, as this module exports them.
std::vector<KernelHandle> catalog_kernels();
// The kernels a shared library exports; the library stays loaded while any is alive.
std::vector<KernelHandle> load_library(const std::string& path);

}  // namespace kiln::py
