#include "dlpack_capsules.h"

#include <cstring>

namespace nb = nanobind;

namespace kiln::py {

ForeignTensor take_capsule(nb::handle capsule) {
    PyObject* c = capsule.ptr();
    if (!PyCapsule_CheckExact(c)) throw nb::type_error("kiln: expected a DLPack capsule (from obj.__dlpack__())");
    const char* name = PyCapsule_GetName(c);
    if (name && std::strcmp(name, "dltensor_versioned") == 0) {
        auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(c, name));
        if (!t) throw nb::python_error();
        PyCapsule_SetName(c, "used_dltensor_versioned");
        return from_dlpack(t, Loc{});
    }
    if (name && std::strcmp(name, "dltensor") == 0) {
        auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, name));
        if (!t) throw nb::python_error();
        PyCapsule_SetName(c, "used_dltensor");
        return from_dlpack(t, Loc{});
    }
    throw nb::value_error(("kiln: a capsule named '" + std::string(name ? name : "") +
                           "', not an unused DLPack tensor ('dltensor_versioned' or 'dltensor')")
                              .c_str());
}

namespace {
// The protocol's capsule destructor: a capsule nobody consumed still owns its tensor.
template <class Managed> void release_unused(PyObject* c, const char* unused) {
    if (!PyCapsule_IsValid(c, unused)) return;  // renamed: the consumer owns it
    auto* t = static_cast<Managed*>(PyCapsule_GetPointer(c, unused));
    if (t && t->deleter) t->deleter(t);
}
}  // namespace

nb::object capsule_of(DLManagedTensorVersioned* t) {
    PyObject* c = PyCapsule_New(t, "dltensor_versioned", [](PyObject* c) { release_unused<DLManagedTensorVersioned>(c, "dltensor_versioned"); });
    if (!c) {
        t->deleter(t);
        throw nb::python_error();
    }
    return nb::steal(c);
}

nb::object capsule_of(DLManagedTensor* t) {
    PyObject* c = PyCapsule_New(t, "dltensor", [](PyObject* c) { release_unused<DLManagedTensor>(c, "dltensor"); });
    if (!c) {
        t->deleter(t);
        throw nb::python_error();
    }
    return nb::steal(c);
}

}  // namespace kiln::py
