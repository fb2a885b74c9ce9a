#include "targets/cpu/program_index.h"

#include <charconv>

#include "cache/source_id.h"
#include "targets/common/index_store.h"

namespace kiln::native {

namespace {

// The first line of a record's text (which versions the format).
constexpr std::string_view kRecordHeader = "kiln-cpu-index 1\n";

// "<name> <value>\n" at the front of `text`; the value is consumed.
bool take_field(std::string_view& text, std::string_view name, std::string_view& value) {
    std::size_t eol = text.find('\n');
    if (eol == std::string_view::npos || !text.starts_with(name) || text.size() <= name.size() || text[name.size()] != ' ') return false;
    value = text.substr(name.size() + 1, eol - name.size() - 1);
    text.remove_prefix(eol + 1);
    return true;
}

}  // namespace

// Every field of the launch specialisation, since each may change the source.
// (A field added to LaunchSpec or EmitOptions must be added here.)
std::string index_key(const ir::Program& p, const LaunchSpec& spec, const HostCompiler* compiler) {
    std::string unit_inner;
    for (bool b : spec.emit.unit_inner) unit_inner += b ? '1' : '0';
    cache::KeyBuilder key;
    key.add("artifact", "kiln cpu program index record");
    key.add("kiln sources", cache::kiln_source_id());
    key.add("precision", std::string(precision_name(spec.precision)));
    key.add("index width", spec.emit.index64 ? "64" : "32");
    key.add("unit inner stride", unit_inner);
    key.add("pinned reductions", spec.emit.exact ? "yes" : "no");
    key.add("prefetch", spec.emit.prefetch ? "yes" : "no");
    std::string stream_stores;
    for (bool b : spec.emit.stream_stores) stream_stores += b ? '1' : '0';
    key.add("stream stores", stream_stores + (spec.emit.stream_every_store ? " every store" : ""));
    key.add("compiler", compiler ? compiler->identity : "any");
    key.add("flags", compiler ? compiler->flags_text() : "any");
    key.add("host cpu", compiler ? compiler->host_cpu : host_cpu_identity());
    key.add("program", ir::print_structure(p));
    return key.hex();
}

std::string format_record(const IndexRecord& r) {
    return std::string(kRecordHeader) + "kernel " + r.kernel_key + "\nframe_bytes " + std::to_string(r.frame_bytes) + "\n";
}

std::optional<IndexRecord> parse_record(std::string_view text) {
    if (!text.starts_with(kRecordHeader)) return std::nullopt;
    text.remove_prefix(kRecordHeader.size());
    std::string_view kernel, frame;
    if (!take_field(text, "kernel", kernel) || !take_field(text, "frame_bytes", frame) || !text.empty()) return std::nullopt;
    IndexRecord r;
    r.kernel_key = std::string(kernel);
    auto [end, ec] = std::from_chars(frame.data(), frame.data() + frame.size(), r.frame_bytes);
    bool hex_key = r.kernel_key.size() == 64 && r.kernel_key.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (ec != std::errc() || end != frame.data() + frame.size() || r.frame_bytes < 0 || !hex_key) return std::nullopt;
    return r;
}

namespace {

targets::IndexStore<IndexRecord>& store() {
    static auto* s = new targets::IndexStore<IndexRecord>("cpu target", "later processes will regenerate its source to find it", parse_record,
                                                          format_record);
    return *s;
}

}  // namespace

std::optional<IndexRecord> find_in_index(const cache::DiskCache* disk, const std::string& key) { return store().find(disk, key); }

void add_to_index(const cache::DiskCache* disk, const std::string& key, const IndexRecord& r) { store().add(disk, key, r); }

IndexStats index_stats() { return store().stats(); }

}  // namespace kiln::native
