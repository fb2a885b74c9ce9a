// The CUDA target (NVRTC + driver API). Not built yet: it reports so clearly.
#include "targets/target_impl.h"

namespace kiln::detail {

namespace {
class CudaTarget final : public TargetImpl {
public:
    const std::string& name() const override { return name_; }
    Device device() const override { return Device::cuda; }
    std::string unavailable_reason() const override { return "the cuda target is not implemented in this build yet"; }
    void run(const ir::Program& p, const std::vector<Arg>&, const CompileOptions&, Loc loc) override {
        fail(loc, "launch", "kernel '" + p.name + "': " + unavailable_reason());
    }

private:
    std::string name_ = "cuda";
};
}  // namespace

std::shared_ptr<TargetImpl> make_cuda_target() { return std::make_shared<CudaTarget>(); }

struct DeviceBuffer {};
std::shared_ptr<DeviceBuffer> device_alloc(std::size_t) { throw Error("cuda: device memory needs the cuda target, which is not implemented in this build yet"); }
void device_upload(DeviceBuffer&, const void*, std::size_t) { throw Error("cuda: no device"); }
void device_download(const DeviceBuffer&, void*, std::size_t) { throw Error("cuda: no device"); }
void* device_pointer(const DeviceBuffer&) { return nullptr; }

}  // namespace kiln::detail
