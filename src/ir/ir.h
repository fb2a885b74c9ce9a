// The Tile IR: nodes in structured regions. One op list (kiln/detail/ops.def, with
// each op's semantics) drives the printer, verifier, interpreter and emitters.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <kiln/detail/frontend.h>
#include <kiln/kernel.h>

namespace kiln::ir {

using detail::Dim;
using detail::EagerData;
using detail::OpCode;
using detail::Type;

struct Region;

struct Node {
    OpCode op = OpCode::constant;
    Type type;                       // result type (store/yield/stage/loop: unused)
    std::vector<Node*> operands;
    // Attributes; their meaning per op is given in ops.def.
    std::int64_t i = 0;
    std::int64_t j = 0;
    bool flag = false;
    Kind kind = Kind::F64;
    std::string s;
    std::vector<std::int64_t> ints;
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

// Loop node helpers.
inline int loop_rank(const Node& loop) { return static_cast<int>(loop.ints.size()); }  // ints: axis ids of the domain
inline detail::LoopKind loop_kind(const Node& loop) { return static_cast<detail::LoopKind>(loop.i); }

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
    std::vector<std::string> axis_names;  // by axis id (for the printer); index 0 = anonymous
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
std::string print_type(const Program& p, const Type& t);
std::uint64_t structural_hash(const Program& p);     // of the text form without locations
// The text form without locations and with constants in full: the program's
// structural identity (equal texts, equal programs up to source locations).
std::string print_structure(const Program& p);

}  // namespace kiln::ir
