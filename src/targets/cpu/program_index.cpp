#include "targets/cpu/program_index.h"

#include <charconv>
#include <mutex>
#include <unordered_map>

#include "cache/private_files.h"
#include "cache/source_id.h"
#include "support/warnings.h"

namespace kiln::native {

namespace {

// The record file's name in its cache entry, and the first line of its text
// (which versions the format).
constexpr std::string_view kRecordFile = "index";
constexpr std::string_view kRecordHeader = "kiln-cpu-index 1\n";

// Records already read or written by this process: a new Kernel object tracing
// the same program again (a kernel built inside a loop) costs no disk access.
std::mutex g_mutex;
std::unordered_map<std::string, IndexRecord> g_records;
IndexStats g_stats;

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
std::string index_key(const ir::Program& p, const LaunchSpec& spec, const HostCompiler& compiler) {
    std::string unit_inner;
    for (bool b : spec.emit.unit_inner) unit_inner += b ? '1' : '0';
    cache::KeyBuilder key;
    key.add("artifact", "kiln cpu program index record");
    key.add("kiln sources", cache::kiln_source_id());
    key.add("precision", spec.precision == Precision::exact ? "exact" : "standard");
    key.add("index width", spec.emit.index64 ? "64" : "32");
    key.add("unit inner stride", unit_inner);
    key.add("pinned reductions", spec.emit.exact ? "yes" : "no");
    key.add("compiler", compiler.identity);
    key.add("flags", compiler.flags_text());
    key.add("host cpu", compiler.host_cpu);
    key.add("program", ir::print_structure(p));
    return key.hex();
}

IndexStats index_stats() {
    std::lock_guard<std::mutex> g(g_mutex);
    return g_stats;
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

std::optional<IndexRecord> find_in_index(const cache::DiskCache* disk, const std::string& key) {
    {
        std::lock_guard<std::mutex> g(g_mutex);
        if (auto it = g_records.find(key); it != g_records.end()) {
            ++g_stats.hits;
            return it->second;
        }
    }
    const std::string_view names[] = {kRecordFile};
    auto contents = disk ? disk->read(key, names) : std::nullopt;
    // A verified record that does not parse was written by a kiln with another
    // format under the same key, which the source identity rules out; a miss
    // then just means the kernel is found the long way.
    auto r = contents ? parse_record((*contents)[0]) : std::nullopt;
    std::lock_guard<std::mutex> g(g_mutex);
    ++(r ? g_stats.hits : g_stats.misses);
    if (r) g_records.emplace(key, *r);
    return r;
}

void add_to_index(const cache::DiskCache* disk, const std::string& key, const IndexRecord& r) {
    {
        std::lock_guard<std::mutex> g(g_mutex);
        g_records.insert_or_assign(key, r);
    }
    if (!disk) return;
    try {
        disk->try_publish(key, [&](const std::filesystem::path& staging) { cache::write_new_file(staging / std::string(kRecordFile), format_record(r)); });
    } catch (const Error& e) {  // not an IoError (try_publish warned about those): still only a lost optimisation
        support::warn_once("program index", "cpu target: cannot record a kernel in the program index (" + e.detail() +
                                                "); later processes will regenerate its source to find it");
    }
}

}  // namespace kiln::native
