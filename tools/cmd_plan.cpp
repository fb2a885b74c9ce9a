// kiln plan: the schedule a target chooses for an entry's kernel (grid, tiling,
// pipelining, ...), for the first case's arguments.
#include <iostream>

#include "case_args.h"
#include "commands.h"
#include "options.h"
#include "targets/common/target_impl.h"

namespace kiln::cli {

namespace {
struct PlanOptions {
    std::string name;
    std::string target;
    std::string size = "small";
    std::string precision = "standard";
};

int run(const PlanOptions& o) {
    const catalog::Entry& e = select_entry(o.name);
    Target t = select_target(o.target, false);
    catalog::Case c = first_case(e, parse_size(o.size));
    CaseArgs args = host_args(c);
    auto program = program_for(c, args);
    note_if_unavailable(t);
    const std::string text = t.impl().plan(*program, args.args, parse_precision(o.precision));
    std::cout << text << (text.empty() || text.back() == '\n' ? "" : "\n");
    return kExitOk;
}
}  // namespace

Command plan_command(CLI::App& app) {
    auto o = std::make_shared<PlanOptions>();
    auto* sub = app.add_subcommand("plan", "the schedule plan a target makes for an entry's kernel");
    sub->add_option("name", o->name, "catalog entry (`kiln list` shows them)")->required();
    add_target_option(*sub, o->target)->required();
    add_size_option(*sub, o->size);
    add_precision_option(*sub, o->precision);
    return {sub, [o] { return run(*o); }};
}

}  // namespace kiln::cli
