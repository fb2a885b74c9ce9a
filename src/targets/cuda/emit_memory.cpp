// Loads and stores: element e of the tile goes to thread e % T, so consecutive
// elements of a row go to consecutive threads and a warp's accesses to a
// contiguous row coalesce. Coordinates are checked in 64 bits (origins are i64
// scalars); offsets are computed in kiln_idx, 32 bits unless a view's reachable
// span needs 64 (chosen per launch, part of the cache key).
#include "targets/cuda/emitter.h"

namespace kiln::cu {

namespace {

std::string from_storage(Kind k, const std::string& x) {
    switch (k) {
        case Kind::F16: return "kc::h2f(" + x + ")";
        case Kind::BF16: return "kc::b2f(" + x + ")";
        case Kind::Bool: return "(" + x + " != 0)";
        case Kind::I8: return "(int)" + x;
        default: return x;
    }
}

std::string to_storage(Kind k, const std::string& x) {
    switch (k) {
        case Kind::F16: return "kc::f2h(" + x + ")";
        case Kind::BF16: return "kc::f2b(" + x + ")";
        case Kind::Bool: return "(unsigned char)(" + x + " ? 1 : 0)";
        case Kind::I8: return "(signed char)" + x;
        default: return x;
    }
}

// Emits the element's view coordinates and returns {in-range condition, offset}.
struct Access {
    std::string in_range;  // empty: always in range (bounds::assume)
    std::string offset;
};

Access access(Emitter& E, const Node& n, const std::vector<Dim>& dims, const std::string& e) {
    std::string a = "a" + num(n.i);
    Access acc;
    bool check = n.j != static_cast<std::int64_t>(bounds::assume);
    for (std::size_t d = 0; d < dims.size(); ++d) {
        std::string c = E.fresh("c");
        E.line("const long long " + c + " = " + E.name(n.operands[d]) + " + " + coord(e, dims, d) + ";");
        std::string ext = a + "_e" + num(static_cast<std::int64_t>(d));
        // One unsigned compare covers c < 0 and c >= extent.
        if (check) acc.in_range += (acc.in_range.empty() ? "" : " && ") + ("(unsigned long long)" + c + " < (unsigned long long)" + ext);
        acc.offset += (acc.offset.empty() ? "" : " + ") + ("(kiln_idx)" + c + " * (kiln_idx)" + a + "_s" + num(static_cast<std::int64_t>(d)));
    }
    return acc;
}

}  // namespace

void emit_memory(Emitter& E, const Node& n) {
    std::string a = "a" + num(n.i);
    if (n.op == OpCode::load) {
        Kind k = n.type.kind;
        std::size_t rank = n.type.dims.size();
        std::string fill = n.flag ? E.at(n.operands[rank]) : literal(k, 0, 0);
        E.each_element(&n, [&](const std::string& e, const std::string& dst) {
            Access acc = access(E, n, n.type.dims, e);
            std::string value = from_storage(k, a + "[" + acc.offset + "]");
            if (acc.in_range.empty()) E.line(dst + " = " + value + ";");
            else E.line(dst + " = (" + acc.in_range + ") ? " + value + " : " + fill + ";");
        });
        E.note(n, std::string("global load, ") + (n.j == static_cast<std::int64_t>(bounds::assume) ? "unchecked (bounds::assume)" : "masked (bounds::zero)"));
        return;
    }
    const Node* value = n.operands.back();
    E.each_owned(value, [&](const std::string& e, const std::string& v) {
        Access acc = access(E, n, value->type.dims, e);
        std::string write = a + "[" + acc.offset + "] = " + to_storage(value->type.kind, v) + ";";
        if (acc.in_range.empty()) E.line(write);
        else E.line("if (" + acc.in_range + ") " + write);
    });
}

}  // namespace kiln::cu
