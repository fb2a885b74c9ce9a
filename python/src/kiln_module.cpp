// The `kiln._kiln` extension module. The Python package (python/kiln) wraps it:
// the catalog (list, plan, source, ir), kernels launched on DLPack tensors, and
// kernels from users' shared libraries (kiln/export.h).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "case_args.h"
#include "catalog.h"
#include "kernel_handle.h"
#include "py_tensor.h"
#include "targets/common/target_impl.h"

namespace nb = nanobind;
using namespace kiln;

namespace {

catalog::Size size_named(const std::string& s) {
    if (s == "small") return catalog::Size::small;
    if (s == "medium") return catalog::Size::medium;
    if (s == "large") return catalog::Size::large;
    throw nb::value_error(("kiln: size '" + s + "' (known: small, medium, large)").c_str());
}

// What `kiln ir/plan/source NAME` prints, for a catalog entry's first case.
std::string describe_entry(const std::string& what, const std::string& name, const std::string& target, const std::string& size,
                           const std::string& precision) {
    const catalog::Entry* e = catalog::find(name);
    if (!e) throw nb::value_error(("kiln: no catalog entry named '" + name + "'").c_str());
    catalog::Case c = cli::first_case(*e, size_named(size));
    cli::CaseArgs args = cli::host_args(c);
    auto program = cli::program_for(c, args);
    if (what == "ir") return ir::print(*program);
    const auto named = precision_named(precision);
    if (!named) throw nb::value_error(("kiln: precision '" + precision + "' (exact, standard or fast)").c_str());
    CompileOptions o{*named};
    Target t = target_named(target);
    if (what == "plan") return t.impl().plan(*program, args.args, o);
    return t.impl().source(*program, args.args, o, false);
}

}  // namespace

NB_MODULE(_kiln, m) {
    m.doc() = "kiln: tile kernels written in C++, launched on DLPack tensors";
    static nb::exception<Error> error(m, "Error", PyExc_RuntimeError);
    // A kernel registered as a torch op stays referenced from torch's dispatcher
    // until the process ends (torch tears none of it down at exit), so nanobind's
    // exit-time count would report every such handle as leaked, on every run
    // that used kiln.torch_op: noise that would hide a real report.
    nb::set_leak_warnings(false);

    m.def("catalog", [] {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& e : catalog::entries()) out.emplace_back(e.name, e.description);
        return out;
    });
    m.def("describe_entry", &describe_entry, nb::arg("what"), nb::arg("name"), nb::arg("target"), nb::arg("size"), nb::arg("precision"));
    m.def("target_available", [](const std::string& name) { return target_named(name).unavailable_reason(); });

    nb::class_<py::KernelHandle>(m, "KernelHandle")
        .def_prop_ro("name", &py::KernelHandle::name)
        .def_prop_ro("params",
                     [](const py::KernelHandle& k) {
                         nb::list out;
                         for (const auto& p : k.params()) {
                             nb::dict d;
                             d["name"] = p.name;
                             d["spelling"] = p.spelling;
                             d["is_view"] = p.is_view;
                             d["writable"] = p.writable;
                             d["kind"] = p.kind;
                             d["rank"] = p.rank;
                             out.append(d);
                         }
                         return out;
                     })
        .def("launch", &py::KernelHandle::launch, nb::arg("args"), nb::arg("target"), nb::arg("precision"), nb::arg("stream").none())
        .def("describe", &py::KernelHandle::describe, nb::arg("what"), nb::arg("args"), nb::arg("target"), nb::arg("precision"));
    m.def("catalog_kernels", &py::catalog_kernels);
    m.def("load_library", &py::load_library, nb::arg("path"));

    nb::class_<py::PyTensor>(m, "Tensor")
        .def_prop_ro("shape", [](const py::PyTensor& t) { return nb::tuple(nb::cast(t.shape())); })
        .def_prop_ro("strides", [](const py::PyTensor& t) { return nb::tuple(nb::cast(t.strides())); })
        .def_prop_ro("dtype", &py::PyTensor::dtype)
        .def_prop_ro("data_ptr", &py::PyTensor::data_ptr)
        .def(
            "__dlpack__",
            [](const py::PyTensor& t, nb::object stream, std::optional<std::pair<int, int>> max_version, nb::object dl_device, nb::object copy) {
                if (!copy.is_none() && nb::cast<bool>(copy)) throw nb::value_error("kiln: a kiln tensor is exported without copying (copy=True)");
                if (!dl_device.is_none() && nb::cast<std::pair<int, int>>(dl_device) != t.dlpack_device())
                    throw nb::value_error("kiln: a kiln tensor is exported on its own device");
                return t.dlpack(stream, max_version);
            },
            nb::kw_only(), nb::arg("stream") = nb::none(), nb::arg("max_version") = nb::none(), nb::arg("dl_device") = nb::none(),
            nb::arg("copy") = nb::none())
        .def("__dlpack_device__", &py::PyTensor::dlpack_device);
    m.def("empty", &py::PyTensor::empty, nb::arg("shape"), nb::arg("dtype") = "float32");
    m.def("tensor_from_capsule", &py::PyTensor::from_capsule, nb::arg("capsule"));
}
