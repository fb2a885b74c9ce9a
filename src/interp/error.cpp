#include <kiln/error.h>

#include <string>

namespace kiln {

std::string Loc::str() const {
    std::string_view f = file ? file : "";
    auto slash = f.find_last_of('/');
    if (slash != std::string_view::npos) f.remove_prefix(slash + 1);
    return std::string(f) + ":" + std::to_string(line);
}

static std::string compose(const Loc& loc, std::string_view detail) {
    return loc.known() ? loc.str() + ": " + std::string(detail) : std::string(detail);
}

static std::string join(std::string_view op, std::string_view what) {
    return op.empty() ? std::string(what) : std::string(op) + ": " + std::string(what);
}

Error::Error(Loc loc, std::string_view op, std::string_view what)
    : std::runtime_error(compose(loc, join(op, what))), loc_(loc), detail_(join(op, what)) {}

Error::Error(std::string_view what) : std::runtime_error(std::string(what)), detail_(what) {}

InternalError::InternalError(std::string_view what, std::source_location where)
    : std::logic_error("kiln internal error (a bug in kiln, please report it) at " +
                       Loc{where.file_name(), where.line()}.str() + ": " + std::string(what)) {}

void fail(Loc loc, std::string_view op, std::string_view what) { throw Error(loc, op, what); }

void internal_fail(std::string_view what, std::source_location where) {
    throw InternalError(what, where);
}

}  // namespace kiln
