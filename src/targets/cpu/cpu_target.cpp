// The native CPU target (generated C++). Not built yet: it reports so clearly.
#include "targets/target_impl.h"

namespace kiln::detail {

namespace {
class CpuTarget final : public TargetImpl {
public:
    const std::string& name() const override { return name_; }
    std::string unavailable_reason() const override { return "the cpu target (generated C++) is not implemented in this build yet"; }
    void run(const ir::Program& p, const std::vector<Arg>&, const CompileOptions&, Loc loc) override {
        fail(loc, "launch", "kernel '" + p.name + "': " + unavailable_reason());
    }

private:
    std::string name_ = "cpu";
};
}  // namespace

std::shared_ptr<TargetImpl> make_cpu_target() { return std::make_shared<CpuTarget>(); }

}  // namespace kiln::detail
