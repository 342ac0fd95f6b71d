// twinfab fabric contract: completion queues.
//
// poll() never blocks. To block, call Runtime::wait() with the CQ as a source: waiting
// is owned by the backend (a simulated clock advances, or a device blocks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "fabric/types.hpp"

namespace twinfab::fabric {

class CompletionQueue {
 public:
  virtual ~CompletionQueue() = default;
  /// Moves up to out.size() completions into `out`, oldest first; returns how many.
  virtual size_t poll(std::span<WorkCompletion> out) = 0;
  virtual uint32_t capacity() const noexcept = 0;
  /// True once this CQ lost a completion because it was full (a CQ overrun; verbs
  /// devices raise IBV_EVENT_CQ_ERR for it). Lost completions cannot be recovered: size
  /// a CQ for every completion that can be pending before it is polled. What the QPs
  /// do next is the device's: the simulator, and rxe and siw for send completions,
  /// leave them running; InfiniBand hardware and rxe's receive side move them to ERR.
  /// Not const: a verbs CQ learns it from the device's asynchronous events.
  virtual bool overrun() noexcept = 0;
  /// The backend's own CQ behind any decorators (hooks); Runtime::wait uses it.
  virtual CompletionQueue& underlying() noexcept { return *this; }
};

}  // namespace twinfab::fabric
