#include "targets/cuda/program_index.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "cache/source_id.h"
#include "targets/cuda/kernel_cache.h"
#include "targets/cuda/nvrtc.h"

namespace kiln::cu {

namespace {

// The first line of a record's text (which versions the format).
constexpr std::string_view kRecordHeader = "kiln-cuda-index 1\n";


// The record's fields, by name, each "name value" on a line of its own. A field
// added to EmittedKernel or GemmKernel that a launch reads must be added here
// (and to launch_shape); tests/cache/cuda_index_test.cpp compares every
// catalog entry's record with its emitted kernel.
template <class Visit, class K> void fields(Visit&& v, K& k) {
    v("entry", k.entry);
    v("threads", k.threads);
    v("instances_per_cta", k.instances_per_cta);
    v("min_ctas", k.min_ctas);
    v("persistent", k.persistent);
    v("generic", k.generic);
    v("cluster", k.cluster);
    v("shared_bytes", k.shared_bytes);
    auto& g = k.gemm;
    v("gemm_entry", g.entry);
    v("gemm_threads", g.threads);
    v("gemm_shared_bytes", g.shared_bytes);
    v("gemm_bm", g.bm);
    v("gemm_bn", g.bn);
    v("gemm_bk", g.bk);
    v("gemm_stages", g.stages);
    v("gemm_program_bm", g.program_bm);
    v("gemm_program_bn", g.program_bn);
    v("gemm_program_bk", g.program_bk);
    v("gemm_a", g.a);
    v("gemm_b", g.b);
    v("gemm_a_mmajor", g.a_mmajor);
    v("gemm_b_kmajor", g.b_kmajor);
    v("gemm_a_transposed", g.a_transposed);
    v("gemm_b_transposed", g.b_transposed);
    v("gemm_split_k", g.split_k);
    v("gemm_cluster", g.cluster);
    v("gemm_cp_async", g.cp_async);
    v("gemm_flipped", g.flipped);
    v("gemm_outputs", g.outputs);
    v("gemm_outputs_transposed", g.outputs_transposed);
    v("gemm_m_axis", g.m_axis);
    v("gemm_n_axis", g.n_axis);
    v("gemm_batched", g.batched);
    v("gemm_batch_axes", g.batch_axes);
    v("gemm_a_lead", g.a_lead);
    v("gemm_b_lead", g.b_lead);
    v("gemm_flat_grid", g.flat_grid);
    v("gemm_flat_split", g.flat_split);
    v("gemm_tile_map_m", g.tile_map_m);
    v("gemm_tile_map_n", g.tile_map_n);
    v("gemm_k_loop", g.k_loop);
    v("gemm_in", g.in);
    v("gemm_epilogue_loads", g.epilogue_loads);
    v("gemm_quad_stores", g.quad_stores);
    auto& a = k.attention;
    v("attention_entry", a.entry);
    v("attention_threads", a.threads);
    v("attention_shared_bytes", a.shared_bytes);
    v("attention_bm", a.bm);
    v("attention_bn", a.bn);
    v("attention_d", a.d);
    v("attention_dv", a.dv);
    v("attention_program_d", a.program_d);
    v("attention_program_dv", a.program_dv);
    v("attention_stages", a.stages);
    v("attention_program_bq", a.program_bq);
    v("attention_program_bk", a.program_bk);
    v("attention_q", a.q);
    v("attention_k", a.k);
    v("attention_v", a.v);
    v("attention_q_row_dim", a.q_row_dim);
    v("attention_k_row_dim", a.k_row_dim);
    v("attention_v_row_dim", a.v_row_dim);
    v("attention_k_transposed", a.k_transposed);
    v("attention_row_axis", a.row_axis);
    v("attention_grid_rank", a.grid_rank);
    v("attention_in", a.in);
    v("attention_overlap", a.overlap);
    v("attention_pingpong", a.pingpong);
    v("attention_staged_output", a.staged_output);
    v("attention_quad_output", a.quad_output);
    v("attention_l2_groups", a.l2_groups);
    v("attention_persistent", a.persistent);
    v("attention_defer_output", a.defer_output);
    v("attention_fold_scale", a.fold_scale);
    v("attention_block_forms", a.block_forms);
    v("attention_rotated", a.rotated);
    v("attention_rolled_forms", a.rolled_forms);
    v("attention_first_block_nan", a.first_block_nan);
}

template <class T> bool parse_number(std::string_view s, T& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
}

struct Writer {
    std::string text;
    void operator()(std::string_view name, const std::string& v) { text += std::string(name) + " " + v + "\n"; }
    void operator()(std::string_view name, bool v) { text += std::string(name) + (v ? " 1\n" : " 0\n"); }
    void operator()(std::string_view name, Kind v) { (*this)(name, static_cast<int>(v)); }
    template <class T> void operator()(std::string_view name, T v) { text += std::string(name) + " " + std::to_string(v) + "\n"; }
    void operator()(std::string_view name, const std::vector<int>& v) {
        std::string s;
        for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
        (*this)(name, s);
    }
};

struct Reader {
    std::map<std::string, std::string, std::less<>> values;
    bool ok = true;
    const std::string* at(std::string_view name) {
        auto it = values.find(name);
        if (it == values.end()) ok = false;
        return it == values.end() ? nullptr : &it->second;
    }
    void operator()(std::string_view name, std::string& v) {
        if (const std::string* s = at(name)) v = *s;
    }
    void operator()(std::string_view name, bool& v) {
        int i = 0;
        (*this)(name, i);
        ok = ok && (i == 0 || i == 1);
        v = i == 1;
    }
    void operator()(std::string_view name, Kind& v) {
        int i = -1;
        (*this)(name, i);
        ok = ok && i >= 0 && i <= static_cast<int>(Kind::F64);
        v = static_cast<Kind>(i);
    }
    template <class T> void operator()(std::string_view name, T& v) {
        if (const std::string* s = at(name)) ok = ok && parse_number(*s, v);
    }
    void operator()(std::string_view name, std::vector<int>& v) {
        const std::string* s = at(name);
        if (!s) return;
        v.clear();
        for (std::size_t from = 0; from < s->size();) {
            std::size_t comma = std::min(s->find(',', from), s->size());
            int x = 0;
            ok = ok && parse_number(std::string_view(*s).substr(from, comma - from), x);
            v.push_back(x);
            from = comma + 1;
        }
    }
};

bool hex_key(const std::string& k) { return k.size() == 64 && k.find_first_not_of("0123456789abcdef") == std::string::npos; }

}  // namespace

EmittedKernel launch_shape(const EmittedKernel& k) {
    // Through the record's text and back: what a record keeps, exactly.
    auto r = parse_record(format_record({std::string(64, '0'), k}));
    if (!r) internal_fail("cuda: kernel '" + k.entry + "' has no launch shape a program index record can hold");
    return r->launch;
}

// Every EmitOptions field, since each may change the source; the device's shared
// memory limit, which decides whether the kernel can run at all.
std::string index_key(const ir::Program& p, const EmitOptions& o, const std::string& arch, std::int64_t shared_limit,
                      std::string_view nvrtc) {
    std::string joined;
    for (auto& opt : nvrtc_options(o, arch)) joined += opt + "\n";
    cache::KeyBuilder key;
    key.add("artifact", "kiln cuda program index record");
    key.add("kiln sources", cache::kiln_source_id());
    key.add("precision", std::string(precision_name(o.precision)));
    key.add("index width", o.index64 ? "64" : "32");
    key.add("sm", std::to_string(o.sm));
    key.add("resident threads", std::to_string(o.resident_threads));
    key.add("attention overlap", std::to_string(o.attention_overlap));
    key.add("attention pingpong", std::to_string(o.attention_pingpong));
    key.add("attention l2 groups", o.attention_l2_groups ? "1" : "0");
    key.add("attention staged stores", o.attention_staged_stores ? "1" : "0");
    key.add("uniform warpgroup", o.uniform_warpgroup ? "1" : "0");
    key.add("generic kernel", o.generic_kernel ? "1" : "0");
    key.add("attention quad stores", o.attention_quad_stores ? "1" : "0");
    key.add("attention persistent", o.attention_persistent ? "1" : "0");
    key.add("attention defer output", o.attention_defer_output ? "1" : "0");
    key.add("gemm quad stores", o.gemm_quad_stores ? "1" : "0");
    key.add("attention fold scale", std::to_string(o.attention_fold_scale));
    key.add("attention key block", std::to_string(o.attention_key_block));
    key.add("attention block forms", std::to_string(o.attention_block_forms));
    key.add("attention rotated", o.attention_rotated ? "1" : "0");
    key.add("attention rolled forms", std::to_string(o.attention_rolled_forms));
    key.add("attention reblock minus infinity", o.attention_reblock_minus_infinity ? "1" : "0");
    key.add("grid prefetch", std::to_string(o.grid_prefetch));
    key.add("loop prefetch", o.loop_prefetch ? "1" : "0");
    key.add("layout split", std::to_string(o.layout_split));
    key.add("elements per thread", std::to_string(o.elements_per_thread));
    key.add("split before dropping", o.split_before_dropping == 0 ? "0" : o.split_before_dropping == 1 ? "shifted runs alone" : "shifted runs, then loads ahead");  // the rule, so that a record of an earlier one is not reused
    key.add("nan by minimum", o.nan_by_minimum ? "1" : "0");
    key.add("nan by minimum ahead", o.nan_by_minimum_ahead ? "1" : "0");
    key.add("cluster rows", o.cluster_rows ? "1" : "0");
    key.add("cluster cta threads", std::to_string(o.cluster_cta_threads));
    key.add("cluster prefetch", o.cluster_prefetch ? "1" : "0");
    key.add("misaligned rows", o.misaligned_rows ? "1" : "0");
    key.add("narrower vectors", o.narrower_vectors ? "1" : "0");
    key.add("whole rows", o.whole_rows ? "1" : "0");
    key.add("coalesced elements", std::to_string(o.coalesced_elements));
    key.add("aligned slots", o.aligned_slots ? "1" : "0");
    key.add("shared divisor", o.shared_divisor ? "1" : "0");
    key.add("inline division", o.inline_division ? "1" : "0");
    key.add("fast division", o.fast_division ? "1" : "0");
    key.add("spill tolerance", std::to_string(o.spill_tolerance));
    key.add("layout spill tolerance", std::to_string(o.layout_spill_tolerance));
    key.add("index facts", o.index_facts ? "1" : "0");
    key.add("narrow index compares", o.narrow_index_compares ? "1" : "0");
    key.add("gemm tile", std::to_string(o.gemm_bm) + "x" + std::to_string(o.gemm_bn));
    key.add("gemm split k", o.gemm_split_k ? "1" : "0");
    key.add("gemm cluster", std::to_string(o.gemm_cluster));
    key.add("gemm cp.async", std::to_string(o.gemm_cp_async));
    key.add("gemm flipped", std::to_string(o.gemm_flipped));
    key.add("arch", arch);
    key.add("shared limit", std::to_string(shared_limit));
    key.add("nvrtc", nvrtc);
    key.add("options", joined);
    key.add("program", ir::print_structure(p));
    return key.hex();
}

std::string format_record(const IndexRecord& r) {
    Writer w;
    w.text = std::string(kRecordHeader) + "kernel " + r.kernel_key + "\n";
    fields(w, r.launch);
    return w.text;
}

std::optional<IndexRecord> parse_record(std::string_view text) {
    if (!text.starts_with(kRecordHeader)) return std::nullopt;
    text.remove_prefix(kRecordHeader.size());
    Reader r;
    while (!text.empty()) {
        std::size_t eol = text.find('\n'), sp = text.find(' ');
        if (eol == std::string_view::npos || sp == std::string_view::npos || sp > eol) return std::nullopt;
        if (!r.values.emplace(std::string(text.substr(0, sp)), std::string(text.substr(sp + 1, eol - sp - 1))).second) return std::nullopt;
        text.remove_prefix(eol + 1);
    }
    IndexRecord rec;
    if (const std::string* k = r.at("kernel")) rec.kernel_key = *k;
    fields(r, rec.launch);
    static const std::size_t expected = 1 + [] {  // "kernel" and every field
        Writer w;
        EmittedKernel e;
        fields(w, e);
        return static_cast<std::size_t>(std::count(w.text.begin(), w.text.end(), '\n'));
    }();
    if (!r.ok || r.values.size() != expected || !hex_key(rec.kernel_key) || rec.launch.entry.empty() || rec.launch.threads <= 0) return std::nullopt;
    return rec;
}

namespace {

targets::IndexStore<IndexRecord>& store() {
    static auto* s = new targets::IndexStore<IndexRecord>("cuda target", "later processes will emit its source to find it", parse_record,
                                                          format_record);
    return *s;
}

}  // namespace

std::optional<IndexRecord> find_in_index(const cache::DiskCache* disk, const std::string& key) { return store().find(disk, key); }

void add_to_index(const cache::DiskCache* disk, const std::string& key, const IndexRecord& r) { store().add(disk, key, r); }

IndexStats index_stats() { return store().stats(); }

}  // namespace kiln::cu
