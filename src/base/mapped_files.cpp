// The SIGBUS guard of mappings read in place (see mapped_files.hpp). The handler reads a fixed table of
// atomics (no lock, no allocation: it may run on any thread, inside any library's code) and calls mmap(2),
// a system call, to put anonymous zero pages over the lost ones.
#include "fmwork/base/mapped_files.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

#include "fmwork/base/error.hpp"

namespace fmwork {
namespace {

struct MappedSlot {
  std::atomic<uintptr_t> start{0};
  std::atomic<size_t> size{0};
  std::atomic<bool> cut{false};
};

std::array<MappedSlot, 256> mapped_slots;
std::mutex mapped_registry;  // registering and unregistering (never taken by the handler)
std::array<std::string, 256> mapped_paths;
struct sigaction previous_sigbus {};

void on_sigbus(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (MappedSlot& slot : mapped_slots) {
    const uintptr_t start = slot.start.load(std::memory_order_acquire);
    if (start == 0 || address < start || address - start >= slot.size.load(std::memory_order_acquire)) continue;
    const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    void* at = reinterpret_cast<void*>(address / page * page);
    if (::mmap(at, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) break;
    slot.cut.store(true, std::memory_order_release);
    return;  // the access runs again and reads zeros
  }
  // Not ours: what would have happened without the guard.
  const struct sigaction& old = previous_sigbus;
  if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction) return old.sa_sigaction(signal, info, context);
  if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN && old.sa_handler) return old.sa_handler(signal);
  ::signal(SIGBUS, SIG_DFL);  // returning re-runs the access, which faults again and ends the process
}

void install_handler() {
  struct sigaction action {};
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, &previous_sigbus);
}

}  // namespace

void register_mapped_file(const void* start, size_t size, const std::string& path) {
  if (start == nullptr || size == 0) return;
  std::lock_guard<std::mutex> lock(mapped_registry);
  static std::once_flag installed;
  std::call_once(installed, install_handler);
  for (size_t i = 0; i < mapped_slots.size(); ++i) {
    if (mapped_slots[i].start.load() != 0) continue;
    mapped_paths[i] = path;
    mapped_slots[i].cut.store(false);
    mapped_slots[i].size.store(size);
    mapped_slots[i].start.store(reinterpret_cast<uintptr_t>(start), std::memory_order_release);
    return;
  }
}

void unregister_mapped_file(const void* start) {
  std::lock_guard<std::mutex> lock(mapped_registry);
  for (MappedSlot& slot : mapped_slots)
    if (slot.start.load() == reinterpret_cast<uintptr_t>(start)) slot.start.store(0, std::memory_order_release);
}

void check_mapped_files() {
  std::lock_guard<std::mutex> lock(mapped_registry);
  for (size_t i = 0; i < mapped_slots.size(); ++i)
    if (mapped_slots[i].start.load() != 0 && mapped_slots[i].cut.load(std::memory_order_acquire))
      throw runtime_error(mapped_paths[i] + ": the file was cut short while the run read it in place (its missing pages "
                                     "read as zeros); restore it and run again");
}

}  // namespace fmwork
