#include "run_seeds.h"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "progress.h"
#include "report.h"

namespace kiln::cli {

namespace {

// One case of an entry (by position) over all the seeds.
struct CaseRecord {
    std::string shape;
    double worst = 0;            // the largest error/bound ratio seen (0: every run exact)
    std::uint64_t worst_seed = 0;
    int runs = 0, failures = 0;
    std::string first_failure;   // "seed S: detail"
};

// Runs one case and folds its outcome into the record.
void run_and_record(catalog::Case& c, const Target& t, const CompileOptions& options, std::uint64_t seed, CaseRecord& r) {
    std::string detail;
    ++r.runs;
    try {
        catalog::Check check = catalog::compare(c, catalog::run_outputs(c, t, options), c.reference(c));
        if (check.worst > r.worst) {
            r.worst = check.worst;
            r.worst_seed = seed;
        }
        if (!check.ok) detail = check.detail;
    } catch (const Error& err) {
        detail = std::string("kiln error: ") + err.what();
    }
    if (detail.empty()) return;
    if (r.failures++ == 0) r.first_failure = "seed " + std::to_string(seed) + ": " + detail;
}

}  // namespace

int run_seeds(const std::vector<const catalog::Entry*>& entries, const Target& target, catalog::Size size, const CompileOptions& options,
              std::uint64_t first, std::uint64_t count) {
    Tally tally;
    Progress progress(entries.size());
    const std::size_t width = name_width(entries);
    for (std::size_t e = 0; e < entries.size(); ++e) {
        const catalog::Entry& entry = *entries[e];
        std::vector<CaseRecord> records;
        for (std::uint64_t s = first; s < first + count; ++s) {
            progress.show(e, entry.name + " seed " + std::to_string(s));
            auto cases = cases_or_report(entry, size, s, width, progress);
            if (!cases) {
                tally.add(false);
                break;
            }
            records.resize(std::max(records.size(), cases->size()));
            for (std::size_t i = 0; i < cases->size(); ++i) {
                records[i].shape = (*cases)[i].shape;
                run_and_record((*cases)[i], target, options, s, records[i]);
            }
        }
        progress.clear();
        for (const auto& r : records) {
            std::ostringstream line;
            line << column(entry.name, width) << column(target.name(), 6) << column(r.shape, kShapeWidth) << "worst err/bound "
                 << column(format_error(r.worst), 7) << column(r.worst > 0 ? "(seed " + std::to_string(r.worst_seed) + ")" : "", 17);
            if (r.failures == 0) line << r.runs << " ok";
            else line << "FAIL " << r.failures << " of " << r.runs << ", first " << r.first_failure;
            std::cout << line.str() << std::endl;
            tally.passed += r.runs - r.failures;
            tally.failed += r.failures;
        }
    }
    progress.clear();
    return tally.print();
}

}  // namespace kiln::cli
