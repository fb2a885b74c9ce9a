// The representation behind Tile<T> and Scalar<T>: one SSA value, either traced
// (a node of the Tile IR being captured) or eager (data computed now, outside a
// kernel). Users never touch this header's names.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <kiln/error.h>
#include <kiln/kind.h>

namespace kiln::ir { struct Node; }

namespace kiln::detail {

// One dimension of a tile: its static extent and its axis identity (0 = anonymous;
// anonymous dimensions match by position, named ones by identity).
struct Dim {
    std::int64_t extent = 1;
    int axis = 0;
    bool operator==(const Dim&) const = default;
};

struct Type {
    Kind kind = Kind::F64;
    std::vector<Dim> dims;  // empty: a scalar
    std::int64_t count() const {
        std::int64_t n = 1;
        for (auto& d : dims) n *= d.extent;
        return n;
    }
    int rank() const { return static_cast<int>(dims.size()); }
    bool operator==(const Type&) const = default;
};

// Element storage of an eager value: integers (and bools) as int64, floats as the
// exactly representable double (the semantics contract's storage rule).
struct EagerData {
    std::vector<std::int64_t> ints;
    std::vector<double> floats;
};

struct Value {
    ir::Node* node = nullptr;                  // traced
    std::shared_ptr<const EagerData> data;     // eager
    Type type;
    bool traced() const { return node != nullptr; }
    bool empty() const { return node == nullptr && data == nullptr; }
};

// A variable: what a Tile or Scalar object names. Assignment rebinds it; inside a
// loop, rebinding a variable born outside the loop makes it loop-carried state.
struct Var {
    Value value;
    int birth_depth = 0;      // loop depth at creation
    std::uint64_t id = 0;
    std::uint64_t trace = 0;  // the trace it was born in (0: outside any kernel)
};
using VarPtr = std::shared_ptr<Var>;

VarPtr new_var(Value v);
Value read(const VarPtr& v);          // may create loop proxies while tracing
void assign(const VarPtr& v, Value value);
bool tracing();                       // is a kernel being captured on this thread?

// Scalars made from C++ numbers, eager (they become IR constants when used in a trace).
Value literal_float(Kind k, double x);
Value literal_int(Kind k, std::int64_t x);
Value literal_bool(bool b);

std::string type_str(const Type& t);  // "2x3", "8x4 (m, k)"

}  // namespace kiln::detail
