// The pipeline. Each target's list is the order its passes run in; every pass is
// one file of this folder with one exported function. A pass reads the program
// and earlier passes' annotations and adds its own.
#include "passes/lower.h"

#include <algorithm>
#include <cstdlib>

#include "check/verify.h"
#include "ir/attrs.h"
#include "passes/contraction.h"
#include "passes/cuda_layout.h"
#include "passes/dce.h"
#include "passes/grid_prefetch.h"
#include "passes/host_scalars.h"
#include "passes/index_width.h"
#include "passes/loop_prefetch.h"
#include "passes/pipeline_analysis.h"

namespace kiln::passes {

namespace {

struct Pass {
    std::string_view name;
    void (*run)(Lowered&);
};

// Marks the scalars a launch evaluates on the host (host_scalars.h evaluates them).
void host_scalars(Lowered& l) {
    ir::walk(l.program->body, [&](const ir::Node& n) {
        if (l.is_live(n) && host_evaluable(n) && n.type.dims.empty()) l.host.insert(&n);
    });
}

constexpr Pass kDce{"dce", dce};
constexpr Pass kHostScalars{"host_scalars", host_scalars};
constexpr Pass kIndexWidth{"index_width", index_width};
constexpr Pass kContraction{"contraction", contraction};
constexpr Pass kCudaLayout{"cuda_layout", cuda_layout};
constexpr Pass kPipelineAnalysis{"pipeline_analysis", pipeline_analysis};
constexpr Pass kGridPrefetch{"grid_prefetch", grid_prefetch};
constexpr Pass kLoopPrefetch{"loop_prefetch", loop_prefetch};

const std::vector<Pass>& pipeline(TargetKind t) {
    static const std::vector<Pass> interp{kDce, kHostScalars, kContraction};
    static const std::vector<Pass> cpu{kDce, kHostScalars, kIndexWidth, kContraction};
    static const std::vector<Pass> cuda{kDce, kHostScalars, kIndexWidth, kContraction, kCudaLayout, kPipelineAnalysis, kGridPrefetch, kLoopPrefetch};
    static const std::vector<Pass> metal{kDce, kHostScalars, kIndexWidth, kContraction};
    switch (t) {
        case TargetKind::interp: return interp;
        case TargetKind::cpu: return cpu;
        case TargetKind::cuda: return cuda;
        case TargetKind::metal: return metal;
    }
    return interp;
}

bool verify_each_pass() {
    static const bool on = [] {
        const char* e = std::getenv("KILN_VERIFY_PASSES");
        return e && *e && std::string_view(e) != "0";
    }();
    return on;
}

}  // namespace

std::string_view target_name(TargetKind t) {
    switch (t) {
        case TargetKind::interp: return "interp";
        case TargetKind::cpu: return "cpu";
        case TargetKind::cuda: return "cuda";
        case TargetKind::metal: return "metal";
    }
    return "?";
}

std::vector<std::string_view> pass_names(TargetKind target) {
    std::vector<std::string_view> names;
    for (const Pass& p : pipeline(target)) names.push_back(p.name);
    return names;
}

Lowered lower(const ir::Program& p, const LowerOptions& o, std::string_view stop_after) {
    Lowered l;
    l.program = &p;
    l.options = o;
    bool known = stop_after.empty();
    for (const Pass& pass : pipeline(o.target)) known = known || pass.name == stop_after;
    if (!known) {
        std::string names;
        for (auto n : pass_names(o.target)) names += (names.empty() ? "" : ", ") + std::string(n);
        throw Error("no pass '" + std::string(stop_after) + "' for the " + std::string(target_name(o.target)) + " target; its passes are " + names);
    }
    for (const Pass& pass : pipeline(o.target)) {
        pass.run(l);
        l.passes_run.emplace_back(pass.name);
        if (verify_each_pass()) check::verify(p);
        if (pass.name == stop_after) break;
    }
    return l;
}

std::string print(const Lowered& l, bool locations) {
    ir::PrintHooks hooks;
    std::string header = "after " + (l.passes_run.empty() ? std::string("tracing") : l.passes_run.back()) + " for " +
                         std::string(target_name(l.options.target)) + ", " +
                         (l.options.exact() ? "exact" : "standard") + " precision";
    hooks.header.push_back(header);
    if (!l.index_reason.empty() || l.options.index64) hooks.header.push_back("64-bit offsets: " + l.index_reason);
    if (l.layouts) {
        const CudaLayouts& c = *l.layouts;
        std::string cta = c.instances_per_cta > 1 ? std::to_string(c.instances_per_cta) + " instances per CTA of " +
                                                        std::to_string(c.cta_threads()) + " threads, " + std::to_string(c.threads) + " each"
                          : c.cluster > 1 ? "cluster of " + std::to_string(c.cluster) + " CTAs of " + std::to_string(c.cta_threads()) +
                                                " threads, " + std::to_string(c.threads) + " for an instance"
                                              : "CTA of " + std::to_string(c.threads) + " threads";
        hooks.header.push_back(cta + ", runs of up to " + std::to_string(c.vec) + " elements");
        if (c.instances_per_cta == 1 && !c.packing_why.empty()) hooks.header.push_back("one instance per CTA: " + c.packing_why);
        if (std::string aligned = describe_aligned_slots(c); !aligned.empty()) hooks.header.push_back(aligned);
    }
    if (l.contractions.gemm)
        hooks.header.push_back("canonical GEMM: tile " + std::to_string(l.contractions.gemm->bm) + "x" + std::to_string(l.contractions.gemm->bn) +
                               "x" + std::to_string(l.contractions.gemm->bk));
    else if (!l.contractions.gemm_why.empty())
        hooks.header.push_back(l.contractions.gemm_why);
    if (const auto& a = l.contractions.attention)
        hooks.header.push_back("FlashAttention: query block " + std::to_string(a->bq) + ", key block " + std::to_string(a->bk) +
                               ", head dims " + std::to_string(a->d) + "/" + std::to_string(a->dv));
    else if (!l.contractions.attention_why.empty())
        hooks.header.push_back(l.contractions.attention_why);
    if (l.contractions.metal) hooks.header.push_back(l.contractions.metal->describe());
    if (std::find(l.passes_run.begin(), l.passes_run.end(), "grid_prefetch") != l.passes_run.end())
        hooks.header.push_back(l.grid_prefetch.describe());
    if (std::find(l.passes_run.begin(), l.passes_run.end(), "loop_prefetch") != l.passes_run.end())
        hooks.header.push_back(l.loop_prefetch.describe());
    hooks.locations = locations;
    hooks.show = [&](const ir::Node& n) { return l.is_live(n); };
    hooks.note = [&](const ir::Node& n) {
        std::string s;
        auto add = [&](const std::string& t) { s += (s.empty() ? "" : "; ") + t; };
        if (l.host.count(&n) && n.op != detail::OpCode::constant) add("host");
        if (auto it = l.contractions.mma.find(&n); it != l.contractions.mma.end()) add(it->second.describe());
        if (l.layouts && ir::has_result(n.op) && !n.type.dims.empty()) add(l.layouts->of(&n).describe(false));
        if (l.layouts) {
            std::string d = describe(l.layouts->decision(&n));
            if (!d.empty()) add(d);
        }
        for (const PipelinePlan& pp : l.pipelines) {
            if (pp.loop == &n) add(pp.describe());
            for (const auto& ld : pp.loads)
                if (ld.load == &n) add(ld.prefetchable ? "prefetchable" : "not prefetchable: " + ld.why);
        }
        for (const auto& ld : l.grid_prefetch.loads)
            if (ld.load == &n)
                add(!ld.prefetched ? "not issued ahead: " + ld.why : ld.invariant ? "loaded once, before the first instance" : "issued one instance ahead");
        for (const auto& lp : l.loop_prefetch.loops)
            for (const auto& ld : lp.loads)
                if (ld.load == &n) add(ld.prefetched ? "issued one iteration ahead" : "not issued an iteration ahead: " + ld.why);
        return s;
    };
    return ir::print(*l.program, hooks);
}

}  // namespace kiln::passes
