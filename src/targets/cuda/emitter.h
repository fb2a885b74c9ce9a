// The emitter's state and the plumbing every op family uses; each family lives
// in its own emit_*.cpp. Internal to the CUDA target.
#pragma once

#include <functional>
#include <optional>
#include <sstream>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "passes/lower.h"
#include "targets/common/source_writer.h"
#include "targets/cuda/emit.h"

namespace kiln::cu {

using detail::Dim;
using detail::OpCode;
using ir::Node;

// ---- text helpers
std::string ctype(Kind k);  // register type: bool, int, long long, float, double
std::string stype(Kind k);  // storage type in device memory
int register_bytes(Kind k);  // sizeof(ctype(k))
int storage_bytes(Kind k);   // sizeof(stype(k))
std::string literal(Kind k, double f, std::int64_t i);  // exact literal in the register type
std::string num(std::int64_t v);
std::string word_type(int bytes);  // the unsigned type of one vector access: uint4, uint2, unsigned, ...
std::vector<std::int64_t> strides_of(const std::vector<Dim>& dims);  // row-major
// Index along dim d of the row-major element `e` of a tile of `dims` (constant folded).
std::string coord(const std::string& e, const std::vector<Dim>& dims, std::size_t d);

class Emitter {
public:
    Emitter(const ir::Program& p, const EmitOptions& o);
    EmittedKernel emit();

    // ---- facts
    const ir::Program& program() const { return p_; }
    const EmitOptions& options() const { return o_; }
    // Whether the kernel loads from argument `param` (which a store to it then updates in place).
    bool loads_param(int param) const { return loaded_params_.count(param) != 0; }
    // Whether a store of f16/bf16 pairs canonicalises NaNs with the 16-bit minimum
    // (EmitOptions::nan_by_minimum: not in kernels shifting runs, nor in those holding
    // loads ahead unless nan_by_minimum_ahead); the store says it did with used_nan_by_minimum().
    bool nan_by_minimum() const { return o_.nan_by_minimum && (ahead_.empty() || o_.nan_by_minimum_ahead) && !o_.misaligned_rows; }
    void used_nan_by_minimum() { nan_by_minimum_used_ = true; }
    bool exact() const { return o_.precision == Precision::exact; }
    // Precision fast: f32 exp on the SFU (kc::exp_fast).
    bool fast() const { return o_.precision == Precision::fast; }
    int threads() const { return threads_; }
    int cluster() const { return cluster_; }  // CTAs an instance spans (1: one CTA)
    static bool is_scalar(const Node* n) { return n->type.dims.empty(); }

    // ---- layout (emit.h, passes/cuda_layout.h): where each element of a value lives,
    // as the middle end decided. Every op family goes through these (or each_element /
    // each_owned / stage, built on them).
    using Layout = passes::CudaLayout;
    Layout layout(const Node* n) const { return lowered_.layouts->of(n); }
    passes::CudaDecision decision(const Node* n) const { return lowered_.layouts->decision(n); }
    const passes::Lowered& lowered() const { return lowered_; }
    std::int64_t slots(const Node* n) const { return layout(n).slots(); }  // register slots per thread
    // Index expressions (int, constant-folded once loops are unrolled) for slot j of
    // this thread: its row and column in the distributed tile, the element it holds,
    // and the condition under which it holds one ("" when every slot does).
    std::string row_of(const Layout& l, const std::string& j) const;
    std::string col_of(const Layout& l, const std::string& j) const;
    std::string element(const Node* n, const std::string& j) const;
    std::string valid(const Node* n, const std::string& j) const;
    // For a value several threads hold (a projection, a uniform value): the condition
    // under which this thread is the one that writes it out ("" when every thread is).
    std::string owner(const Node* n) const;
    // Whether some slots of some threads hold no element (they need a guard).
    bool ragged(const Node* n) const { return layout(n).ragged(); }
    // The threads that shuffle together (a full warp, or an instance's lanes) and the
    // mask of lanes `lanes` of them combine within (all of a warp unless the
    // instance is narrower).
    std::string shuffle_mask() const { return threads_ < 32 && instances_ > 1 ? "kiln_mask" : "0xffffffffu"; }
    int instances() const { return instances_; }

    // ---- names and text
    const std::string& name(const Node* n);                             // n's variable
    void alias(const Node* n, const std::string& existing) { names_[n] = existing; }
    std::string fresh(const std::string& stem);                         // a unique local name
    std::string at(const Node* n, const std::string& j = "j");          // "v3[j]", or "v3" for a scalar
    void line(const std::string& s) { body_.line(s); }
    void open(const std::string& s) { body_.open(s); }                 // "s {" then indent
    void close(const std::string& tail = "}") { body_.close(tail); }
    void otherwise() { body_.otherwise(); }                              // "} else {" at the open block's level
    void note(const Node& n, const std::string& lowering);              // one plan line
    void use_math() { math_ = true; }
    void count_tensor_core_op() { ++tensor_core_mmas_; }
    [[noreturn]] void unsupported(const Node& n, const std::string& why) const;

    // ---- tiles
    // Declares n's variable and visits this thread's elements: body(e, dst) assigns
    // dst from the element index e (an int expression). A scalar result is
    // computed by every thread as element 0. Slots past the tile's end are zeroed
    // unless guard is false (elementwise ops may compute garbage there).
    void each_element(const Node* n, const std::function<void(const std::string& e, const std::string& dst)>& body,
                      bool guard = true);
    // Visits this thread's elements of an existing value x (for writing them out):
    // body(e, value).
    void each_owned(const Node* x, const std::function<void(const std::string& e, const std::string& value)>& body);

    // ---- shared memory: one scratch area reused by every op. An op calls
    // begin_shared() (a barrier: earlier readers are done), carves arrays, writes
    // them, calls barrier(), then reads.
    void begin_shared(const Node& n);
    std::string shared_array(const std::string& type, std::int64_t count, int elem_bytes);
    std::string stage(const Node* x);  // a typed array holding x's elements by index
    void barrier();

    // ---- the exchange: two small shared-memory areas, apart from the scratch area and
    // used in turn, for ops that swap a few values per output (register reductions).
    // exchange() returns an array in an area no thread may still be reading (it emits a
    // barrier only when both may be); the op writes it, calls barrier(), reads it and
    // then calls exchanged(). Inside loops the emitter assumes the worst at each entry.
    std::string exchange(const Node& n, const std::string& type, std::int64_t count, int elem_bytes);
    void exchanged();

private:
    void region(const ir::Region& r);
    void node(const Node& n);
    void dispatch(const Node& n);
    void grid(const Node& loop);
    void loop(const Node& loop);
    void leaf(const Node& n);
    // The constant's elements as a __device__ table; returns how to read element
    // `e` of it ("%s" standing for e).
    std::string file_scope_constant(const Node& n);
    void exchange_unknown() { exchange_dirty_[0] = exchange_dirty_[1] = true; }  // at loop entries and exits
    // Fills the buffers of `loads` (issued ahead: passes/grid_prefetch.h for the
    // parallel nest's instances, passes/loop_prefetch.h for a loop's iterations) for
    // the trip `at` (an expression) of `loop`, where it is below the trip count, with
    // the loop's indices and the scalars the loads' origins need bound in a block of
    // their own.
    void fetch_ahead(const Node& loop, const std::string& at, const std::vector<const Node*>& loads);
    void prefetched_load(const Node& n);
    // Aligned slots (passes/cuda_layout.h): the scalars of the nest's body that the
    // origin of the load the rows align to reads, and the instance's kiln_shift from
    // its row's address (`declare`: as a new variable, else assigned to one).
    void cone(const Node& loop, const std::vector<const Node*>& of, std::unordered_set<const Node*>& into) const;
    void row_shift(bool declare);

    const ir::Program& p_;
    std::set<int> loaded_params_;
    EmitOptions o_;
    passes::Lowered lowered_;  // the middle end's decisions (passes/lower.h)
    int threads_ = 32;     // of an instance
    int instances_ = 1;    // per CTA
    int cluster_ = 1;      // CTAs per instance (a cluster)
    std::int64_t largest_ = 1;  // elements of the largest tile
    targets::SourceWriter body_{1};
    std::ostringstream constants_;  // file-scope arrays for tile constants
    int next_name_ = 0;
    std::unordered_map<const Node*, std::string> names_;
    std::vector<std::string> notes_;
    std::unordered_set<const Node*> noted_;
    bool math_ = false;
    bool nan_by_minimum_used_ = false;
    int tensor_core_mmas_ = 0;
    std::int64_t shared_at_ = 0;      // bytes carved by the current op
    std::int64_t shared_max_ = 0;
    const Node* shared_max_node_ = nullptr;
    const Node* shared_node_ = nullptr;
    std::int64_t exchange_max_ = 0;        // bytes of each exchange area
    const Node* exchange_node_ = nullptr;  // the op that needs the most of it
    bool exchange_dirty_[2] = {false, false};  // read since the last barrier
    int exchange_next_ = 0, exchange_open_ = -1;
    // The grid and loop prefetches: each prefetched load's buffer and the loop it goes
    // ahead in (the parallel nest, grid_, or a loop inside it) ...
    struct Ahead {
        std::string buffer;         // the load's raw words
        bool once = false;          // the same for every instance: filled before the first only
        const Node* loop = nullptr;
    };
    std::unordered_map<const Node*, Ahead> ahead_;
    // ... and, for each such loop (set where it is emitted), its extents, its trip
    // count's expression and the next trip's.
    struct Trips {
        std::vector<std::string> ext;
        std::string count, next;
    };
    std::unordered_map<const Node*, Trips> trips_;
    const Node* grid_ = nullptr;
};

// Op families (one file each).
void emit_elementwise(Emitter& e, const Node& n);  // unary, binary, compare, select, cast, full, iota
void emit_memory(Emitter& e, const Node& n);       // load, store
// A load issued one instance ahead (passes/grid_prefetch.h) or one iteration ahead
// (passes/loop_prefetch.h): its raw words' array, the code filling it for the
// instance or iteration whose indices are bound, and the load's value from it
// (`when`: the plan's words for how early it was issued, e.g. "issued one instance ahead, ").
void emit_prefetch_buffer(Emitter& e, const Node& load, const std::string& buffer);
void emit_prefetch_fill(Emitter& e, const Node& load, const std::string& buffer);
void emit_prefetched_load(Emitter& e, const Node& load, const std::string& buffer, const std::string& when);
void emit_movement(Emitter& e, const Node& n);     // broadcast, reshape, permute, slice, gather, reindex
void emit_reduction(Emitter& e, const Node& n);    // reduce_*, argmax/argmin, scan_*
void emit_register_reduce(Emitter& e, const Node& n);  // reduce_* the layout pass keeps in registers
void emit_sort(Emitter& e, const Node& n);         // sort_*, topk_*
void emit_mma(Emitter& e, const Node& n);          // ordered contraction or tensor cores

// Scalar semantics (the contract's elementwise rules as C++ expressions over
// register values; scalar_ops.cpp). `exact` selects kiln math for
// transcendental functions; standard mode uses CUDA's.
std::string unary_expr(Emitter& e, OpCode op, Kind k, const std::string& x);
// An elementwise node (ir::is_elementwise) over its operands' expressions.
std::string element_expr(Emitter& e, const Node& n, const std::vector<std::string>& operands);
std::string binary_expr(Emitter& e, OpCode op, Kind k, const std::string& a, const std::string& b);
std::string compare_expr(OpCode op, const std::string& a, const std::string& b);
std::string cast_expr(Kind from, Kind to, const std::string& x);
// Whether NVVM can know every element of n while compiling: constants and what
// elementwise and shape ops make of them (scalar_ops.cpp).
bool compile_time_known(const Node& n, int depth = 0);
// The value of a one-element float constant, through fills and broadcasts, or nullopt.
std::optional<double> float_constant(const Node& n);
// A value of kind k between its storage type in device memory and its register type.
std::string from_storage(Kind k, const std::string& x);
std::string to_storage(Kind k, const std::string& x);
// The value whose registers a store of `value` converts (emit_memory.cpp): x for cast<f16/bf16>(x) of a float.
const Node* stored_registers(const Node* value);
// One rounding to kind k of a result computed in float (f16/bf16/f32) or double.
std::string round_float(Kind k, const std::string& x);
std::string round_double(Kind k, const std::string& x);

}  // namespace kiln::cu
