// The Tile IR: nodes in structured regions. One op list (kiln/detail/ops.def, with
// each op's semantics) drives the printer, verifier, interpreter and emitters.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <kiln/detail/ir_enums.h>
#include <kiln/detail/opcode.h>
#include <kiln/detail/value.h>

namespace kiln::ir {

using detail::Dim;
using detail::EagerData;
using detail::OpCode;
using detail::Type;

struct Region;

// Where a node's attributes are kept. Read and write them only through attrs.h's
// typed accessors, which know which op carries which attribute (ops.def).
struct RawAttrs {
    std::int64_t i = 0;
    std::int64_t j = 0;
    bool flag = false;
    Kind kind = Kind::F64;
    std::string s;
    std::vector<std::int64_t> ints;
};

struct Node {
    OpCode op = OpCode::constant;
    Type type;                       // result type (ops without a value: unused)
    std::vector<Node*> operands;
    RawAttrs raw;                           // attributes (attrs.h)
    std::shared_ptr<const EagerData> data;  // constant
    std::unique_ptr<Region> body;           // loop
    Region* parent = nullptr;
    Loc loc;
    int id = -1;                            // numbering for the printer
};

struct Region {
    Node* owner = nullptr;        // the loop node, or null for the kernel body
    std::vector<Node*> args;      // loop indices, then carried values
    std::vector<Node*> nodes;     // in program order; a loop body ends with a yield
};

// A statically used extent the program was specialised on.
struct Specialization {
    int param = 0;
    int dim = 0;       // >= 0: extent of that dim; < 0: stride of dim -(dim+1)
    std::int64_t value = 0;
};

// A traced kernel: parameters, the body, and what it was specialised on. Shared
// ownership lets targets cache per-program work safely (weak_from_this).
struct Program : std::enable_shared_from_this<Program> {
    std::string name;
    Loc loc;
    std::vector<detail::ParamSig> params;
    std::deque<std::unique_ptr<Node>> pool;
    Region body;
    std::vector<Specialization> specializations;
    Node* grid = nullptr;   // the parallel loop (null: one instance)

    Node* make(OpCode op) {
        pool.push_back(std::make_unique<Node>());
        pool.back()->op = op;
        return pool.back().get();
    }
};

// Visits every node of a region and of the regions nested in it, in order.
template <class F> void walk(const Region& r, F&& f) {
    for (Node* n : r.nodes) {
        f(*n);
        if (n->body) walk(*n->body, f);
    }
}

std::string print(const Program& p);                 // the stable text form
// The text form with what the middle end knows: nodes `show` rejects are left
// out (dead code), `note` is appended to a node's line, `header` follows the
// kernel's first line.
struct PrintHooks {
    std::function<bool(const Node&)> show;
    std::function<std::string(const Node&)> note;
    std::vector<std::string> header;
    bool locations = true;  // "@file:line" after each node (golden tests leave them out)
};
std::string print(const Program& p, const PrintHooks& hooks);
std::string print_type(const Program& p, const Type& t);
std::uint64_t structural_hash(const Program& p);     // of the text form without locations
// The text form without locations and with constants in full: the program's
// structural identity (equal texts, equal programs up to source locations).
std::string print_structure(const Program& p);
// The printer's value numbering (%N): a result's number before its operands', a
// loop's before its region arguments'. Generated code names values by it, so
// comments there cross-reference `kiln ir`.
std::unordered_map<const Node*, int> number_nodes(const Program& p);

}  // namespace kiln::ir
