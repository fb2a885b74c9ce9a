// The emitter's core: the kernel skeleton (signature, prelude, grid), and the
// tile and shared-memory plumbing the op families build on. The walk over the
// program is emit_regions.cpp; type names and literals are emit_text.cpp.
#include "targets/cuda/emitter.h"

#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ir/axis_names.h"
#include "support/names.h"
#include "targets/common/literals.h"
#include "targets/cuda/emit_attention.h"
#include "targets/cuda/emit_gemm.h"
#include "targets/cuda/prelude.h"

namespace kiln::cu {

// ---- the emitter

namespace {
passes::LowerOptions lower_options(const EmitOptions& o) {
    passes::LowerOptions l;
    l.target = passes::TargetKind::cuda;
    l.precision = o.precision;
    l.index64 = o.index64;
    l.sm = o.sm;
    l.grid_prefetch = o.grid_prefetch;
    l.loop_prefetch = o.loop_prefetch;
    l.layout_split = o.layout_split;
    l.elements_per_thread = o.elements_per_thread;
    l.max_run = o.coalesced_elements && !o.misaligned_rows ? 1 : 0;  // (emit.h: coalesced_elements)
    l.aligned_slots = o.aligned_slots;
    l.cluster_rows = o.cluster_rows;
    l.cluster_cta_threads = o.cluster_cta_threads;
    l.cluster_prefetch = o.cluster_prefetch;
    l.attention_reblock_minus_infinity = o.attention_reblock_minus_infinity;
    return l;
}
}  // namespace

Emitter::Emitter(const ir::Program& p, const EmitOptions& o) : p_(p), o_(o), lowered_(passes::lower(p, lower_options(o))) {
    threads_ = lowered_.layouts->threads;
    cluster_ = lowered_.layouts->cluster;
    instances_ = lowered_.layouts->instances_per_cta;
    largest_ = lowered_.layouts->largest;
    ir::walk(p_.body, [&](const Node& n) {
        if (n.op == OpCode::load) loaded_params_.insert(ir::param_index(n));
    });
}

namespace {

// "a + b" with the zero terms left out ("0" when every term is).
std::string sum(std::initializer_list<std::string> terms) {
    std::string s;
    for (const auto& t : terms)
        if (!t.empty() && t != "0") s += (s.empty() ? "" : " + ") + t;
    return s.empty() ? "0" : s;
}

}  // namespace

// The formulas of passes/cuda_layout.h, with the factors that are 1 left out.
std::string Emitter::row_of(const Layout& l, const std::string& j) const {
    const std::int64_t band_rows = l.rows_per_round(), per_round = l.holds == passes::CudaHolds::rows ? 1 : l.row_runs * l.vec;
    std::string round = l.row_rounds == 1 ? "" : "(" + j + ") / " + num(per_round) + (band_rows == 1 ? "" : " * " + num(band_rows));
    if (l.row_rounds != 1 && per_round == 1) round = "(" + j + ")" + (band_rows == 1 ? "" : " * " + num(band_rows));
    std::string band = band_rows == 1 ? "" : "tid / " + num(l.group);
    return sum({round, band});
}

std::string Emitter::col_of(const Layout& l, const std::string& j) const {
    const std::int64_t v = l.vec, k = l.row_runs, g = l.group;
    std::string run = k == 1 ? "" : (v == 1 ? "(" + j + ")" : "(" + j + ") / " + num(v)) + " % " + num(k) + " * " + num(g * v);
    if (k != 1 && l.holds == passes::CudaHolds::columns) run = (v == 1 ? "(" + j + ")" : "(" + j + ") / " + num(v)) + " * " + num(g * v);
    std::string lane = g == 1 ? "" : (g == threads_ ? "tid" : "tid % " + num(g)) + (v == 1 ? "" : " * " + num(v));
    std::string within = v == 1 ? "" : "(" + j + ") % " + num(v);
    // Aligned slots (passes/cuda_layout.h): the instance's row starts kiln_shift columns in.
    if (l.shifted) return "(" + sum({run, lane, within}) + " - kiln_shift)";
    return sum({run, lane, within});
}

std::string Emitter::element(const Node* n, const std::string& j) const {
    Layout l = layout(n);
    if (l.uniform) return "0";
    switch (l.holds) {
        case passes::CudaHolds::tile: {
            std::string row = row_of(l, j), col = col_of(l, j);
            if (l.rows == 1 || row == "0") return col;
            return "(" + row + ") * " + num(l.cols) + (col == "0" ? "" : " + " + col);
        }
        case passes::CudaHolds::columns: return col_of(l, j);
        case passes::CudaHolds::rows: return row_of(l, j);
    }
    return "0";
}

std::string Emitter::valid(const Node* n, const std::string& j) const {
    Layout l = layout(n);
    if (l.uniform) return "";
    std::string ok;
    if (l.ragged_rows()) ok = "(" + row_of(l, j) + ") < " + num(l.rows);
    if (l.ragged_cols()) {
        const std::string col = col_of(l, j);
        ok += (ok.empty() ? "" : " && ") + (l.shifted ? col + " >= 0 && " : "") + ("(" + col + ") < " + num(l.cols));
    }
    return ok;
}

std::string Emitter::owner(const Node* n) const {
    Layout l = layout(n);
    if (l.uniform) return "tid == 0";
    if (l.holds == passes::CudaHolds::columns && l.rows_per_round() > 1) return "tid < " + num(l.group);
    if (l.holds == passes::CudaHolds::rows && l.group > 1) return "tid % " + num(l.group) + " == 0";
    return "";
}

const std::string& Emitter::name(const Node* n) {
    auto it = names_.find(n);
    if (it == names_.end()) it = names_.emplace(n, "v" + std::to_string(next_name_++)).first;
    return it->second;
}

std::string Emitter::fresh(const std::string& stem) { return stem + std::to_string(next_name_++); }

std::string Emitter::at(const Node* n, const std::string& j) { return is_scalar(n) ? name(n) : name(n) + "[" + j + "]"; }



void Emitter::note(const Node& n, const std::string& lowering) {
    noted_.insert(&n);
    std::string where = n.loc.known() ? "  [" + n.loc.str() + "]" : "";
    std::string distribution = layout(&n).describe(is_scalar(&n));
    notes_.push_back(name(&n) + " = " + std::string(detail::op_name(n.op)) + " " + std::string(kind_name(n.type.kind)) + " " +
                     ir::dims_str(n.type.dims) + ": " + distribution + (lowering.empty() ? "" : "; " + lowering) + where);
}

void Emitter::unsupported(const Node& n, const std::string& why) const {
    fail(n.loc, detail::op_name(n.op), "not supported on cuda: " + why);
}

void Emitter::each_element(const Node* n, const std::function<void(const std::string&, const std::string&)>& body, bool guard) {
    const std::string& v = name(n);
    std::string t = ctype(n->type.kind);
    Layout l = layout(n);
    if (l.uniform) {  // a scalar, or a one-element tile: every thread computes element 0
        line(t + " " + v + (is_scalar(n) ? "" : "[1]") + ";");
        open("");
        line("[[maybe_unused]] const int e = 0, j = 0;");
        body("e", at(n, "0"));
        close();
        return;
    }
    std::int64_t j = l.slots();
    line(t + " " + v + "[" + num(j) + "];");
    line("#pragma unroll");
    open("for (int j = 0; j < " + num(j) + "; ++j)");
    line("[[maybe_unused]] const int e = " + element(n, "j") + ";");
    std::string ok = guard ? valid(n, "j") : "";
    if (!ok.empty()) {
        open("if (" + ok + ")");
        body("e", v + "[j]");
        otherwise();
        line(v + "[j] = " + literal(n->type.kind, 0, 0) + ";");
        close();
    } else {
        body("e", v + "[j]");
    }
    close();
}

void Emitter::each_owned(const Node* x, const std::function<void(const std::string&, const std::string&)>& body) {
    Layout l = layout(x);
    if (l.uniform) {  // every thread holds it; one of them owns it
        open("if (tid == 0)");
        body("0", at(x, "0"));
        close();
        return;
    }
    std::string mine = owner(x);
    if (!mine.empty()) open("if (" + mine + ")");
    line("#pragma unroll");
    open("for (int j = 0; j < " + num(l.slots()) + "; ++j)");
    line("const int e = " + element(x, "j") + ";");
    std::string ok = valid(x, "j");
    if (!ok.empty()) open("if (" + ok + ")");
    body("e", name(x) + "[j]");
    if (!ok.empty()) close();
    close();
    if (!mine.empty()) close();
}

void Emitter::begin_shared(const Node& n) {
    barrier();  // everyone is done reading what the previous op left in shared memory
    shared_at_ = 0;
    shared_node_ = &n;
}

// Bools are the one element type narrower than a word in shared memory (f16 and bf16
// sit there as floats, i8 as ints), and they are reached through volatile pointers:
// NVVM merges the unrolled reads of neighbouring bools into vector loads and picks
// the bytes out of the words, and ptxas (CUDA 13.0, sm_90a) has twice compiled such a
// pick from a register that still held an earlier value. Program 4500528's argmin
// took byte 7 of eight equal bools from a register holding an earlier shared read, and
// program 6405128's gather of a reversed bool row (`ld.shared.v4.u16`, seven bytes
// used) copied the word of bytes 4-7 to one register and took byte 6 from the next,
// never written (`IMAD.MOV.U32 R26, RZ, RZ, R3` then `PRMT R18, R27, ...`): a true
// where every element was false (docs/fuzzing.md). One-byte volatile accesses leave
// ptxas no word to pick from.
static std::string shared_element_type(const std::string& type) { return type == "bool" ? "volatile bool" : type; }

std::string Emitter::shared_array(const std::string& type, std::int64_t count, int elem_bytes) {
    std::string v = fresh("s");
    const std::string t = shared_element_type(type);
    line(t + "* const " + v + " = reinterpret_cast<" + t + "*>(kiln_shared + " + num(shared_at_) + ");");
    shared_at_ += (count * elem_bytes + 15) / 16 * 16;
    if (shared_at_ > shared_max_) {
        shared_max_ = shared_at_;
        shared_max_node_ = shared_node_;
    }
    return v;
}

void Emitter::barrier() {
    // The instance's threads: all of the CTA, or its own group (a named barrier, or the
    // lanes of its warp).
    if (cluster_ > 1) line("kc::cluster_sync();");  // the cluster's CTAs: an exchange reads the others' shared memory
    else if (instances_ == 1) line("__syncthreads();");
    else if (threads_ >= 64) line("kc::bar_sync(1 + kiln_group, " + num(threads_) + ");");
    else if (threads_ == 32) line("__syncwarp();");
    else line("__syncwarp(kiln_mask);");
    exchange_dirty_[0] = exchange_dirty_[1] = false;
}

// An area is dirty from the reads that end an exchange until the next barrier. Used
// in turn, the areas need no barrier of their own: the exchange in between has one,
// and every thread has finished reading the older area before it arrives there. Only
// where the turn breaks (a loop body with an odd number of exchanges: its last and
// its next first use the same area) does exchange() add one.
std::string Emitter::exchange(const Node& n, const std::string& type, std::int64_t count, int elem_bytes) {
    if (exchange_open_ >= 0) internal_fail("cuda: an exchange inside another");
    int area = exchange_dirty_[exchange_next_] ? 1 - exchange_next_ : exchange_next_;
    if (exchange_dirty_[area]) {
        barrier();
        area = exchange_next_;
    }
    exchange_open_ = area;
    exchange_next_ = 1 - area;
    std::int64_t bytes = (count * elem_bytes + 15) / 16 * 16;
    if (bytes > exchange_max_) {
        exchange_max_ = bytes;
        exchange_node_ = &n;
    }
    std::string v = fresh("x");
    const std::string t = shared_element_type(type);
    line(t + "* const " + v + " = reinterpret_cast<" + t + "*>(kiln_exchange" + num(area) + ");");
    return v;
}

void Emitter::exchanged() {
    if (exchange_open_ < 0) internal_fail("cuda: exchanged() without exchange()");
    exchange_dirty_[exchange_open_] = true;
    exchange_open_ = -1;
}

std::string Emitter::stage(const Node* x) {
    Kind k = x->type.kind;
    std::string t = ctype(k), s = shared_array(t, x->type.count(), register_bytes(k));
    Layout l = layout(x);
    // Runs are contiguous in the array too: write them with vector stores (element
    // stores would put the lanes of a warp V apart, a V-way bank conflict). Partial
    // runs, projections and shifted runs (aligned slots: a run may start before the row) go element by element.
    // Bools too: their array is volatile (shared_element_type), one byte at a time.
    if (l.uniform || l.vec == 1 || l.holds != passes::CudaHolds::tile || l.cols % l.vec != 0 || l.shifted || k == Kind::Bool) {
        each_owned(x, [&](const std::string& e, const std::string& v) { line(s + "[" + e + "] = " + v + ";"); });
        return s;
    }
    int bytes = static_cast<int>(std::min<std::int64_t>(16, l.vec * register_bytes(k)));
    std::string wt = word_type(bytes);
    line("#pragma unroll");
    open("for (int q = 0; q < " + num(l.slots() / l.vec) + "; ++q)");
    line("const int e = " + element(x, "q * " + num(l.vec)) + ";");
    std::string ok = valid(x, "q * " + num(l.vec));
    if (!ok.empty()) open("if (" + ok + ")");
    std::string buf = fresh("run");
    std::string init;
    for (int i = 0; i < l.vec; ++i) init += (i ? ", " : "") + name(x) + "[q * " + num(l.vec) + " + " + num(i) + "]";
    line("__align__(16) const " + t + " " + buf + "[" + num(l.vec) + "] = {" + init + "};");
    for (std::int64_t w = 0; w < l.vec * register_bytes(k) / bytes; ++w)
        line("reinterpret_cast<" + wt + "*>(" + s + " + e)[" + num(w) + "] = reinterpret_cast<const " + wt + "*>(" + buf + ")[" + num(w) + "];");
    if (!ok.empty()) close();
    close();
    return s;
}

std::string kernel_signature(const ir::Program& p) {
    std::string s;
    for (std::size_t i = 0; i < p.params.size(); ++i) {
        const auto& q = p.params[i];
        std::string a = "a" + std::to_string(i);
        if (!s.empty()) s += ", ";
        if (!q.is_view) {
            s += (q.kind == Kind::Bool || q.kind == Kind::I8 ? std::string("int") : ctype(q.kind)) + " " + a;
            continue;
        }
        s += std::string(q.writable ? "" : "const ") + stype(q.kind) + "* " + a;
        for (int d = 0; d < q.rank; ++d) s += ", long long " + a + "_e" + std::to_string(d);
        for (int d = 0; d < q.rank; ++d) s += ", long long " + a + "_s" + std::to_string(d);
    }
    return s;
}

EmittedKernel Emitter::emit() {
    ir::walk(p_.body, [&](const Node& n) {
        if (ir::has_attr(n.op, ir::attr_bounds) && ir::bounds_policy(n) == bounds::check)
            fail(n.loc, n.op == OpCode::load ? "load" : "store",
                 "device code cannot raise: bounds::check is not supported on cuda; use bounds::zero or bounds::assume");
    });
    region(p_.body);
    EmittedKernel k;
    std::string id;
    for (char c : p_.name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    k.entry = "kiln_" + id;
    // The canonical GEMM also gets a TMA + wgmma kernel in the same module (emit_gemm.h).
    std::string gemm;
    if (const auto& m = lowered_.contractions.gemm) gemm = emit_gemm_kernel(*this, *m, k.entry + "_sm90", k.gemm);
    // FlashAttention likewise gets its own TMA + wgmma kernel (emit_attention.h).
    if (const auto& a = lowered_.contractions.attention) gemm = emit_attention_kernel(*this, *a, k.entry + "_fa", k.attention);
    k.threads = threads_ * instances_ / cluster_;
    k.instances_per_cta = instances_;
    // Persistent where instances load ahead of their turn (grid_prefetch); loads an
    // iteration ahead in a loop (loop_prefetch) need no particular grid.
    k.persistent = std::any_of(ahead_.begin(), ahead_.end(), [&](const auto& a) { return a.second.loop == grid_; });
    k.loads_ahead_in_loops = std::any_of(ahead_.begin(), ahead_.end(), [&](const auto& a) { return a.second.loop != grid_; });
    k.nan_by_minimum = nan_by_minimum_used_;
    k.cluster = cluster_;
    if (instances_ == 1 && lowered_.program->grid) k.packing_why = lowered_.layouts->packing_why;
    k.aligned_slots = passes::describe_aligned_slots(*lowered_.layouts);
    // Per instance: the scratch area, then the two exchange areas.
    const std::int64_t per_instance = shared_max_ + 2 * exchange_max_;
    k.shared_bytes = per_instance * instances_;
    k.values = notes_;
    k.contractions = passes::contraction_report(lowered_);
    if (gemm.empty()) {
        const auto& c = lowered_.contractions;
        k.specialised_why = !c.attention_why.empty() ? c.attention_why : c.gemm_why;
    }
    k.tensor_core_mmas = tensor_core_mmas_;
    std::ostringstream src;
    src << "// kiln: kernel '" << support::source_text(p_.name) << "' for the cuda target (" << precision_name(o_.precision) << " precision, "
        << (o_.index64 ? 64 : 32) << "-bit offsets, sm_" << o_.sm << ")\n";
    src << prelude(math_);
    src << "typedef " << (o_.index64 ? "long long" : "int") << " kiln_idx;  // element offsets in views\n";
    src << constants_.str();
    // A kernel whose largest tile gives each thread more than 8 elements streams rows
    // through registers: ask for o_.resident_threads resident threads per SM (1024 at
    // first: at most 64 registers each). Left alone, ptxas may take more registers
    // than that for no gain (fewer rows in flight). Where the cap makes ptxas spill
    // (several row statistics live at once, parameter vectors held beside the row),
    // kernel_cache.cpp compiles again asking for fewer. Not in exact precision, where
    // a float sum folds in one thread and kiln's math needs more registers.
    bool large_tiles = !exact() && largest_ >= std::int64_t{threads_} * 8;
    const int cta = k.threads;
    k.min_ctas = large_tiles && cta < o_.resident_threads ? o_.resident_threads / cta : 0;
    std::string launch_bounds = num(cta) + (k.min_ctas > 1 ? ", " + num(k.min_ctas) : "");
    // An instance spanning a cluster (cuda_layout.h): the launch's grid has cluster_
    // CTAs per instance, and tid numbers the cluster's threads.
    std::string cluster_dims = cluster_ > 1 ? "__cluster_dims__(" + num(cluster_) + ", 1, 1) " : "";
    // Its description above is kept (the plan, the index) when its text is left out.
    k.generic = o_.generic_kernel || gemm.empty();
    if (k.generic) {
        src << "\nextern \"C\" __global__ void __launch_bounds__(" << launch_bounds << ") " << cluster_dims << k.entry << "(" << kernel_signature(p_)
            << ") {\n";
        src << "    extern __shared__ __align__(16) unsigned char kiln_smem[];\n";
        if (instances_ == 1 && cluster_ > 1) {
            src << "    const int tid = (int)kc::cluster_rank() * " << cta << " + (int)threadIdx.x;\n";
            if (per_instance > 0) src << "    [[maybe_unused]] unsigned char* const kiln_shared = kiln_smem;\n";
        } else if (instances_ == 1) {
            src << "    const int tid = threadIdx.x;\n";
            if (per_instance > 0) src << "    [[maybe_unused]] unsigned char* const kiln_shared = kiln_smem;\n";
        } else {
            // This thread's instance among the CTA's, its index there, and its share of shared memory.
            src << "    const int kiln_group = threadIdx.x / " << threads_ << ", tid = threadIdx.x % " << threads_ << ";\n";
            if (threads_ < 32)
                src << "    [[maybe_unused]] const unsigned kiln_mask = " << ((1ull << threads_) - 1) << "u << (threadIdx.x % 32u / " << threads_ << "u * "
                    << threads_ << "u);\n";
            if (per_instance > 0) src << "    [[maybe_unused]] unsigned char* const kiln_shared = kiln_smem + kiln_group * " << per_instance << ";\n";
        }
        // tid's range, which NVVM does not derive (prelude: kc::assume).
        if (o_.index_facts) src << "    kc::assume(tid >= 0 && tid < " << threads_ << ");\n";
        if (exchange_max_ > 0) {
            src << "    unsigned char* const kiln_exchange0 = kiln_shared + " << shared_max_ << ";\n";
            src << "    unsigned char* const kiln_exchange1 = kiln_shared + " << shared_max_ + exchange_max_ << ";\n";
        }
        src << body_.text() << "}\n";
    } else {
        src << "\n// (the generic kernel " << k.entry << ", the fallback of launches the kernel below refuses, is compiled when one needs it)\n";
    }
    src << gemm;
    k.source = src.str();
    if (!shared_max_node_ || exchange_max_ > shared_max_) shared_max_node_ = exchange_node_;
    if (shared_max_node_) {
        k.shared_op = detail::op_name(shared_max_node_->op);
        k.shared_loc = shared_max_node_->loc;
        k.shared_site = k.shared_op + (shared_max_node_->loc.known() ? " at " + shared_max_node_->loc.str() : "");
    }
    return k;
}

EmittedKernel emit_kernel(const ir::Program& p, const EmitOptions& o) { return Emitter(p, o).emit(); }

}  // namespace kiln::cu
