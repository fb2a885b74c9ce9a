#include "support/names.h"

#include <cstdio>

namespace kiln::support {

namespace {

bool printable(unsigned char c) { return c >= 0x20 && c <= 0x7e; }

std::string hex_escape(unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
    return buf;
}

std::string describe_char(unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned>(c));
    std::string what = c == '\n' ? "a newline" : c == '\r' ? "a carriage return" : c == '\t' ? "a tab" : c == 0 ? "a NUL"
                       : c >= 0x80 ? "not ASCII" : "a control character";
    return what + " (" + buf + ")";
}

}  // namespace

std::string name_problem(std::string_view name) {
    if (name.empty()) return "a name cannot be empty";
    if (name.size() > kMaxNameLength)
        return "a name has at most " + std::to_string(kMaxNameLength) + " characters, this one " + std::to_string(name.size());
    for (std::size_t k = 0; k < name.size(); ++k) {
        auto c = static_cast<unsigned char>(name[k]);
        if (!printable(c)) return "character " + std::to_string(k) + " is " + describe_char(c) + "; names are printable ASCII";
    }
    return "";
}

std::string source_text(std::string_view text) {
    std::string s;
    for (char ch : text) {
        auto c = static_cast<unsigned char>(ch);
        if (printable(c) && c != '\\' && c != '"') s += ch;
        else s += hex_escape(c);
    }
    return s;
}

std::string file_name_part(std::string_view text) {
    std::string s;
    for (char c : text) {
        if (s.size() == 64) break;
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        s += keep ? c : '_';
    }
    return s.empty() ? "_" : s;
}

std::string quoted(std::string_view text) {
    std::string s = "'";
    for (char ch : text) {
        auto c = static_cast<unsigned char>(ch);
        if (c == '\n') s += "\\n";
        else if (c == '\t') s += "\\t";
        else if (printable(c) || c >= 0x80) s += ch;
        else s += hex_escape(c);
    }
    return s + "'";
}

}  // namespace kiln::support
