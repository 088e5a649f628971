// refdev's LibTorch device: LibTorch's PrivateUse1 device, named "refdev" (tensors print as refdev:0),
// backed by ordinary CPU memory. An allocator that counts bytes (for the memory peaks), a no-op device
// guard, the PrivateUse1 hooks (availability, device count, generator), the kernels a device must provide itself
// (empty, copy, views, resize) and LibTorch's boxed CPU fallback for every other operator: each falls
// back by copying its arguments to CPU tensors, running the CPU kernel and copying the results back.
// Correct but slow (two copies per operator): its timings mean nothing.
#include "refdev_device.hpp"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/EmptyTensor.h>
#include <ATen/Functions.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/resize_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/Allocator.h>
#include <c10/core/DeviceType.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/library.h>
#include <torch/version.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace refdev {
namespace {

std::atomic<int64_t> g_current_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};
std::atomic<uint64_t> g_fallback_calls{0};

// Each block carries its size in a header in front of the data; the header keeps the data 64-byte aligned.
constexpr size_t kHeader = 64;

void raise_peak(int64_t current) {
  int64_t peak = g_peak_bytes.load();
  while (current > peak && !g_peak_bytes.compare_exchange_weak(peak, current)) {
  }
}

void release(void* base) {
  if (!base) return;
  size_t bytes = 0;
  std::memcpy(&bytes, base, sizeof bytes);
  g_current_bytes -= static_cast<int64_t>(bytes);
  c10::free_cpu(base);
}

struct Allocator final : c10::Allocator {
  c10::DataPtr allocate(size_t bytes) override {
    void* base = c10::alloc_cpu(bytes + kHeader);
    std::memcpy(base, &bytes, sizeof bytes);
    raise_peak(g_current_bytes += static_cast<int64_t>(bytes));
    void* data = static_cast<char*>(base) + kHeader;
    return {data, base, &release, c10::Device(c10::DeviceType::PrivateUse1, 0)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }
};

Allocator g_allocator;

constexpr c10::DispatchKeySet kKeys{c10::DispatchKey::PrivateUse1};

at::Tensor empty_memory_format(c10::IntArrayRef size, std::optional<at::ScalarType> dtype,
                               std::optional<at::Layout> layout, std::optional<at::Device> device,
                               std::optional<bool> pin_memory, std::optional<at::MemoryFormat> memory_format) {
  return at::detail::empty_generic(size, &g_allocator, kKeys, c10::dtype_or_default(dtype), memory_format);
}

at::Tensor empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride, std::optional<at::ScalarType> dtype,
                         std::optional<at::Layout> layout, std::optional<at::Device> device,
                         std::optional<bool> pin_memory) {
  return at::detail::empty_strided_generic(size, stride, &g_allocator, kKeys, c10::dtype_or_default(dtype));
}

// A CPU tensor over the same memory (refdev memory is CPU memory).
at::Tensor cpu_alias(const at::Tensor& t) {
  if (t.device().is_cpu()) return t;
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options().device(c10::kCPU));
}

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  TORCH_CHECK(self.sizes() == dst.sizes(), "refdev _copy_from: sizes differ (", self.sizes(), " vs ",
              dst.sizes(), ")");
  if (self.numel() == 0) return dst;
  cpu_alias(dst).copy_(cpu_alias(self));
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  if (dst.sizes() != self.sizes()) dst.resize_(self.sizes());
  return copy_from(self, dst, false);
}

void fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  ++g_fallback_calls;
  at::native::cpu_fallback(op, stack);
}

// What LibTorch asks an accelerator beyond its kernels: one device, always there, CPU-side random numbers
// (the operators that use them run on the CPU through the fallback anyway).
struct Hooks final : at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return true; }
  c10::DeviceIndex deviceCount() const override { return 1; }
  bool hasPrimaryContext(c10::DeviceIndex) const override { return true; }
  c10::DeviceIndex getCurrentDevice() const override { return 0; }
  at::Device getDeviceFromPtr(void*) const override { return {c10::DeviceType::PrivateUse1, 0}; }
  const at::Generator& getDefaultGenerator(c10::DeviceIndex) const override {
    static at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(c10::default_rng_seed_val);
    return generator;
  }
};

Hooks g_hooks;

}  // namespace

std::string register_device() {
  // Once per process. LibTorch refuses a second name or hooks for PrivateUse1 (another PrivateUse1 plugin
  // loaded first): that is reported, not thrown out of the plugin's create().
  static const std::string failure = []() -> std::string {
    try {
      c10::register_privateuse1_backend("refdev");
      at::RegisterPrivateUse1HooksInterface(&g_hooks);
      return "";
    } catch (const c10::Error& e) {
      std::string what = e.what_without_backtrace();
      return "cannot register the PrivateUse1 device: " + what.substr(0, what.find('\n'));
    }
  }();
  return failure;
}

int64_t current_bytes() { return g_current_bytes.load(); }
int64_t peak_bytes() { return g_peak_bytes.load(); }
void reset_peak_bytes() { g_peak_bytes = g_current_bytes.load(); }
uint64_t fallback_calls() { return g_fallback_calls.load(); }

}  // namespace refdev

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &refdev::g_allocator);
C10_REGISTER_GUARD_IMPL(PrivateUse1, c10::impl::NoOpDeviceGuardImpl<c10::DeviceType::PrivateUse1>);

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", &refdev::empty_memory_format);
  m.impl("empty_strided", &refdev::empty_strided);
  m.impl("_copy_from", &refdev::copy_from);
  m.impl("_copy_from_and_resize", &refdev::copy_from_and_resize);
  m.impl("view", &at::native::view);
  m.impl("_reshape_alias", &at::native::_reshape_alias);
  m.impl("as_strided", &at::native::as_strided_tensorimpl);
  m.impl("resize_", &at::native::resize_);
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&refdev::fallback>());
}
