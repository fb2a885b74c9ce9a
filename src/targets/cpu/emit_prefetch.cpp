// The next instance's windows, prefetched while this one computes (the cpu
// counterpart of passes/grid_prefetch.h; kiln_cpu::PrefetchLines in cpu_prelude.h
// says why). A thread runs the instances [begin, end) in pid order, so at the top
// of instance pid the emitter computes, for pid + 1, the origin of every load
// and store of the grid body's own (not a nested loop's) whose origin depends
// only on the grid's indices and values from outside the grid, evaluating the
// scalars between them again with the next instance's indices. Prefetching
// reads nothing the program could observe (a prefetch never faults, and a box
// outside its view is skipped), so it is done in every precision.
#include <algorithm>

#include <unistd.h>

#include "passes/loop_dependence.h"
#include "targets/cpu/emit_expr.h"
#include "targets/cpu/emitter.h"

namespace kiln::native {

namespace {

// Windows smaller than this are not worth a prefetch; more than kMaxBytes in all
// would push the instance's own tiles out of L1 and L2.
constexpr std::int64_t kMinBytes = 1024, kMaxBytes = 64 * 1024;
constexpr std::size_t kMaxWindows = 4;  // windows an instance prefetches

// The scalars inside the grid body that `v` is computed from (itself included,
// in body order later), or false when one is not a scalar elementwise op that
// can be evaluated again.
bool scalar_chain(const Node* v, const std::unordered_set<const Node*>& inside, const ir::Region& body,
                  std::vector<const Node*>& chain) {
    if (!inside.count(v) || std::find(body.args.begin(), body.args.end(), v) != body.args.end()) return true;
    if (std::find(chain.begin(), chain.end(), v) != chain.end()) return true;
    const auto c = ir::category(v->op);
    const bool elementwise = c == ir::OpCategory::unary || c == ir::OpCategory::binary || c == ir::OpCategory::cast ||
                             c == ir::OpCategory::compare || c == ir::OpCategory::select;
    if (!elementwise || v->type.count() != 1 || (c == ir::OpCategory::unary && ir::is_math(v->op))) return false;
    for (const Node* o : v->operands)
        if (!scalar_chain(o, inside, body, chain)) return false;
    chain.push_back(v);
    return true;
}

// Whether v (an origin, or a scalar computed from origins) varies with the loop's
// indices: an origin that does not is the same box in every iteration, which the
// one before has brought in already (a weight vector broadcast over rows).
bool varies_with_instance(const Node* v, const std::unordered_set<const Node*>& inside, const ir::Region& body) {
    if (std::find(body.args.begin(), body.args.end(), v) != body.args.end()) return true;
    if (!inside.count(v)) return false;
    return std::any_of(v->operands.begin(), v->operands.end(), [&](const Node* o) { return varies_with_instance(o, inside, body); });
}

}  // namespace

std::int64_t l1_data_cache_bytes() {
    static const std::int64_t bytes = [] {
        const long b = sysconf(_SC_LEVEL1_DCACHE_SIZE);
        return b > 0 ? static_cast<std::int64_t>(b) : std::int64_t{32 * 1024};
    }();
    return bytes;
}

std::string Emitter::emit_windows_ahead(const Node& loop, const std::string& guard, bool may_reach_further,
                                        const std::function<void(bool far)>& indices_ahead) {
    if (!opts_.prefetch) return "";
    const ir::Region& body = *loop.body;
    std::unordered_set<const Node*> inside, ok;
    passes::collect_inside(body, inside);
    struct Window {
        const Node* access;
        std::int64_t bytes;
    };
    std::vector<Window> windows;
    std::vector<const Node*> chain;
    std::int64_t total = 0;
    for (const Node* n : body.nodes) {
        if ((n->op != OpCode::load && n->op != OpCode::store) || dead(*n)) continue;
        if (n->op == OpCode::store && streams(*n)) continue;  // written around the caches: nothing to bring in
        const int rank = p_.params[static_cast<std::size_t>(ir::param_index(*n))].rank;
        const ir::Type& t = n->op == OpCode::load ? n->type : n->operands.back()->type;
        const std::int64_t bytes = t.count() * kind_bytes(t.kind);
        if (bytes < kMinBytes || total + bytes > kMaxBytes || windows.size() == kMaxWindows) continue;
        std::vector<const Node*> mine = chain;
        bool computable = true, varies = false;
        for (int k = 0; k < rank && computable; ++k) {
            const Node* o = n->operands[static_cast<std::size_t>(k)];
            computable = passes::dependence(o, loop, inside, ok).empty() && scalar_chain(o, inside, body, mine);
            varies = varies || varies_with_instance(o, inside, body);
        }
        if (!computable || !varies) continue;
        chain = std::move(mine);
        windows.push_back({n, bytes});
        total += bytes;
    }
    if (windows.empty()) return "";
    // The next iteration's windows, brought into L1 while this iteration reads its
    // own, must fit there beside them. A column sum's 32 rows of 1 KB do not on a
    // 32 KiB L1d (Zen 4): each evicted the other, and the kernel ran at half a plain
    // loop's speed. Those go to L2 (prefetcht1) two iterations ahead, 32 lines a step
    // (a column sum's 512 lines within its 31 fold steps; 16 left the last row out),
    // and the hardware brings each line the last step as it is read (0.50-0.64 ->
    // 0.83-1.03 of the loop there; 0.69-0.83 at 16 lines a step; bench/results/cpu-20261204.md).
    const bool far = may_reach_further && 2 * total > l1_data_cache_bytes();

    const std::string prefix = "kiln_pf" + id(&loop) + "_";
    std::string step;
    for (std::size_t k = 0; k < windows.size(); ++k) {
        const std::string w = prefix + std::to_string(k);
        line("kiln_cpu::PrefetchLines " + w + "{nullptr, 0, 0, 0, 0};");
        step += (k ? " " : "") + std::string("kiln_cpu::prefetch_step<") + (windows[k].access->op == OpCode::store ? "true" : "false") +
                (far ? ", 2, 32" : "") + ">(" + w + ");";
    }
    open("if (" + guard + ")");
    indices_ahead(far);  // the loop's arguments now name the indices ahead
    for (const Node* s : chain) {
        const std::string name = "v" + id(s) + "_ahead";
        line("const " + ctype(s->type.kind) + " " + name + " = " + element_expr(*s, "0") + ";");
        storage_[s] = Storage{name, false, 1};
    }
    for (std::size_t k = 0; k < windows.size(); ++k) {
        const Node& n = *windows[k].access;
        const bool store = n.op == OpCode::store;
        const auto& dims = store ? n.operands.back()->type.dims : n.type.dims;
        const int r = static_cast<int>(dims.size());
        std::string o, box;
        for (int d = 0; d < r; ++d) {
            o += (d ? ", " : "") + at(n.operands[static_cast<std::size_t>(d)], "0");
            box += (d ? ", " : "") + std::to_string(dims[static_cast<std::size_t>(d)].extent);
        }
        open("");
        line("const long long o[" + std::to_string(r) + "] = {" + o + "};");
        line("static const int n[" + std::to_string(r) + "] = {" + box + "};");
        line(prefix + std::to_string(k) + " = kiln_cpu::prefetch_window(args[" + std::to_string(ir::param_index(n)) + "].view, " + std::to_string(r) +
             ", o, n, " + std::to_string(kind_bytes(store ? n.operands.back()->type.kind : n.type.kind)) + ");");
        close();
        prefetched_.push_back(&n);
    }
    // The chain's names were the next iteration's; the body defines its own.
    for (const Node* s : chain) storage_.erase(s);
    close();
    return step;
}

std::string Emitter::emit_instance_prefetch(const Node& grid, const std::string& L) {
    // The next instance's indices, as the grid loop derives them from pid.
    return emit_windows_ahead(grid, "pid + 1 < end", /*may_reach_further=*/false, [&](bool) {
        const int rank = ir::loop_rank(grid);
        if (rank > 1) line("long long rest_ahead = pid + 1;");
        for (int k = rank - 1; k >= 0; --k) {
            const std::string v = L + "_ahead" + std::to_string(k), n = L + "_n" + std::to_string(k);
            if (rank == 1) line("const long long " + v + " = pid + 1;");
            else if (k == 0) line("const long long " + v + " = rest_ahead;");
            else line("const long long " + v + " = rest_ahead % " + n + "; rest_ahead /= " + n + ";");
        }
        for (const Node* a : grid.body->args) storage_[a] = Storage{L + "_ahead" + std::to_string(ir::slot(*a)), false, 1};
    });
}

std::string Emitter::emit_iteration_prefetch(const Node& loop, const std::string& L) {
    // A serial loop of one dim: the next iteration is the index plus one. (Loops
    // of more dims and their carried slots are not looked into.)
    if (ir::loop_rank(loop) != 1) return "";
    const std::string i = L + "_i0", n = L + "_n0";
    return emit_windows_ahead(loop, i + " + 1 < " + n, /*may_reach_further=*/true, [&](bool far) {
        // Two on where there is an iteration two on (the last but one prefetches the last).
        line("const long long " + L + "_ahead0 = " + (far ? i + " + 2 < " + n + " ? " + i + " + 2 : " : std::string()) + i + " + 1;");
        for (const Node* a : loop.body->args)
            if (ir::slot(*a) == 0) storage_[a] = Storage{L + "_ahead0", false, 1};
    });
}

}  // namespace kiln::native
