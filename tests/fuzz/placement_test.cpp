// The fuzzer's buffers placed where a target runs (fuzz/placement.h): copies made
// with Tensor::to, the launch pointing into them, the bytes brought back; and a
// target that runs on device memory gets device copies, which on a machine
// without a GPU is a clear error rather than host pointers handed to the device.
#include <gtest/gtest.h>

#include <cstring>

#include "fuzz/differential.h"
#include "fuzz/placement.h"
#include "fuzz/program.h"
#include "interp/run_kernel.h"
#include "targets/common/target_impl.h"

using namespace kiln;
using namespace kiln::fuzz;

namespace {

// A target whose kernels run on device memory (as cuda's do) but computed by the
// interpreter on the bytes it is handed: it sees what placement gives a device target.
class DeviceTarget final : public detail::TargetImpl {
public:
    const std::string& name() const override { return name_; }
    Device device() const override { return Device::cuda; }
    void run(const ir::Program&, const std::vector<detail::Arg>&, const CompileOptions&, Loc) override { ++runs; }
    int runs = 0;

private:
    std::string name_ = "device";
};

}  // namespace

TEST(Placement, HostCopiesRunAndComeBack) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const Recipe r = make_recipe(seed);
        const Kernel k = build_kernel(r);
        Launch in_place = make_launch(r);
        const Launch initial = in_place;
        // The reference: the interpreter on the launch's own bytes.
        std::optional<std::string> error;
        try {
            run_kernel(k, interp(), in_place.args, {.precision = Precision::exact}, Loc::here());
        } catch (const Error& e) {
            error = e.what();
        }
        Placed placed(initial, host());
        for (std::size_t p = 0; p < initial.args.size(); ++p)
            if (initial.args[p].is_view && !initial.bytes[p].empty()) {
                EXPECT_NE(placed.args()[p].data, initial.args[p].data) << "argument " << p << " of program " << seed << " was not copied";
                EXPECT_EQ(placed.args()[p].device, Device::host);
                EXPECT_EQ(std::memcmp(placed.args()[p].data, initial.bytes[p].data(), initial.bytes[p].size()), 0);
            }
        Launch fetched = initial;
        try {
            run_kernel(k, interp(), placed.args(), {.precision = Precision::exact}, Loc::here());
            placed.fetch(fetched);
            EXPECT_FALSE(error) << "program " << seed << " raised in place only: " << *error;
        } catch (const Error& e) {
            EXPECT_EQ(error, std::optional<std::string>(e.what())) << "program " << seed;
            continue;
        }
        EXPECT_EQ(fetched.bytes, in_place.bytes) << "program " << seed << ": the placed run wrote other bytes";
    }
}

// On a machine without a GPU (this one), a device target's program fails at the
// copy with the reason, named in the fuzzer's verdict; on one with a GPU the
// device copies are made and the target runs on them.
TEST(Placement, DeviceTargetsGetDeviceCopies) {
    auto impl = std::make_shared<DeviceTarget>();
    Target device(impl);
    // Program 2 raises nothing on the interpreter (program 3, say, reads out of range).
    Result r = check_program(2, {interp(), device}, {.precision = Precision::exact});
    if (!cuda().available()) {
        EXPECT_EQ(r.verdict, Verdict::differs);
        EXPECT_NE(r.detail.find("device raised (interp did not): "), std::string::npos) << r.detail;
        EXPECT_NE(r.detail.find("to: cannot copy a tensor to cuda: " + cuda().unavailable_reason()), std::string::npos) << r.detail;
        EXPECT_EQ(impl->runs, 0);
    } else {
        EXPECT_EQ(impl->runs, 1);
    }
}
