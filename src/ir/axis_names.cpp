#include "ir/axis_names.h"

#include <mutex>
#include <unordered_map>

namespace kiln::ir {

namespace {
std::mutex g_names_mutex;
std::unordered_map<int, std::string>& names() {
    static std::unordered_map<int, std::string> m;
    return m;
}
}  // namespace

void register_axis_name(int id, const std::string& name) {
    std::lock_guard<std::mutex> g(g_names_mutex);
    names()[id] = name;
}

std::string axis_name(int id) {
    if (id == 0) return "_";
    std::lock_guard<std::mutex> g(g_names_mutex);
    auto it = names().find(id);
    return it == names().end() ? "axis" + std::to_string(id) : it->second;
}

std::string same_name_note(const std::vector<detail::Dim>& a, const std::vector<detail::Dim>& b) {
    std::vector<std::pair<std::string, int>> seen;  // name, axis
    for (const auto* dims : {&a, &b})
        for (const auto& d : *dims) {
            if (d.axis == 0) continue;
            const std::string name = axis_name(d.axis);
            for (const auto& [n, id] : seen)
                if (n == name && id != d.axis)
                    return "; two different axes are named '" + name + "' (each axis(...) call makes a new axis: make it once and use it)";
            seen.emplace_back(name, d.axis);
        }
    return "";
}

std::string dims_str(const std::vector<detail::Dim>& dims) {
    if (dims.empty()) return "scalar";
    std::string s;
    bool named = false;
    for (std::size_t k = 0; k < dims.size(); ++k) {
        if (k) s += "x";
        s += std::to_string(dims[k].extent);
        named = named || dims[k].axis != 0;
    }
    if (named) {
        s += " (";
        for (std::size_t k = 0; k < dims.size(); ++k) s += (k ? ", " : "") + axis_name(dims[k].axis);
        s += ")";
    }
    return s;
}

}  // namespace kiln::ir
