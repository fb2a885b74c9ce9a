// The interpreter as a target: the reference semantics, sequential pid order.
#include "interp/run_kernel.h"
#include "targets/common/target_impl.h"

namespace kiln::detail {

namespace {
class InterpTarget final : public TargetImpl {
public:
    explicit InterpTarget(InterpOptions o) : opts_(o) {}
    const std::string& name() const override { return name_; }
    void run(const ir::Program& p, const std::vector<Arg>& args, const CompileOptions&, Loc) override {
        ref::run_program(p, args, ref::RunOptions{opts_.checked});
    }
    std::string plan(const ir::Program& p, const std::vector<Arg>&, const CompileOptions&) override {
        return "target interp: kernel " + p.name + ": instances run one after another in pid order; " +
               (opts_.checked ? "checked mode (bounds, cross-instance conflicts)" : "unchecked") + "\n";
    }

private:
    std::string name_ = "interp";
    InterpOptions opts_;
};
}  // namespace

std::shared_ptr<TargetImpl> make_interp_target(InterpOptions o) { return std::make_shared<InterpTarget>(o); }

}  // namespace kiln::detail
