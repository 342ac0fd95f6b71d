// twinfab hooks: a Device that wraps another Device (any backend, or another hook).
//
// DeviceDecorator forwards every call to the inner device and wraps every object it
// creates (completion queues, queue pairs, shared receive queues), so that a subclass
// sees every work request posted and every completion polled through virtual hooks:
//
//   on_post_send / on_post_recv / on_srq_post_recv   around each post (call the base
//                                                     version to forward it);
//   on_poll                                          before each poll of a CQ (a hook that
//                                                     holds work back releases it here);
//   on_poll_completion                               per polled completion: Keep or Drop;
//   on_qp_created / on_qp_destroyed / on_srq_destroyed / on_transition
//                                                     lifetime and state notifications.
//
// Hooks stack: `TraceHook(std::make_unique<DropHook>(std::move(backend), ...), sink)`
// traces what survives the drop hook. Memory regions and address handles are passive
// and are returned unwrapped (an address handle of the inner device is what a UD send
// needs).
//
// Contract kept towards the backend:
// - A wrapped CQ / SRQ returns the backend's own object from `underlying()`, so
//   Runtime::wait (owned by the backend) can wait on it.
// - A QP is created on the inner device with a translated QpConfig: the CQs and SRQ of
//   the config must have been created through this same decorator, and the inner QP
//   gets the inner CQs/SRQ. Foreign objects are refused with Error(InvalidArgument).
// - Lifetimes are the Device contract's: objects before the device that made them,
//   QPs before their CQs and SRQ.
//
// Thread/actor rules: the decorator's own state (the qp_num table) is guarded by a
// mutex that is never held while calling into the inner device, so a backend that
// switches actors inside a call (the simulator) cannot deadlock it. The wrapped
// objects follow the inner backend's rules.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>

#include "fabric/device.hpp"

namespace twinfab::fabric::hook {

class DeviceDecorator;

/// What on_poll_completion decides for one completion.
enum class CompletionVerdict : uint8_t { Keep, Drop };

/// A completion queue created by a DeviceDecorator.
class CompletionQueueDecorator final : public CompletionQueue {
 public:
  CompletionQueueDecorator(DeviceDecorator& device, std::unique_ptr<CompletionQueue> inner);

  /// Polls the inner CQ and passes each completion to the device's on_poll_completion;
  /// dropped ones are removed and the inner CQ is polled again, so `out` is filled as
  /// far as the inner CQ allows.
  size_t poll(std::span<WorkCompletion> out) override;
  uint32_t capacity() const noexcept override { return inner_->capacity(); }
  bool overrun() noexcept override { return inner_->overrun(); }
  CompletionQueue& underlying() noexcept override { return inner_->underlying(); }

  CompletionQueue& inner() noexcept { return *inner_; }
  DeviceDecorator& device() noexcept { return device_; }

 private:
  DeviceDecorator& device_;
  std::unique_ptr<CompletionQueue> inner_;
};

/// A shared receive queue created by a DeviceDecorator.
class SharedReceiveQueueDecorator final : public SharedReceiveQueue {
 public:
  SharedReceiveQueueDecorator(DeviceDecorator& device, std::unique_ptr<SharedReceiveQueue> inner);
  ~SharedReceiveQueueDecorator() override;

  Status post_recv(const RecvWr& wr) override;
  uint32_t capacity() const noexcept override { return inner_->capacity(); }
  const std::string& last_error() const noexcept override { return inner_->last_error(); }
  SharedReceiveQueue& underlying() noexcept override { return inner_->underlying(); }

  SharedReceiveQueue& inner() noexcept { return *inner_; }
  DeviceDecorator& device() noexcept { return device_; }

 private:
  DeviceDecorator& device_;
  std::unique_ptr<SharedReceiveQueue> inner_;
};

/// A queue pair created by a DeviceDecorator. Everything but posting is forwarded
/// (connect() too, so a connection-manager handshake of the inner QP is kept).
class QueuePairDecorator final : public QueuePair {
 public:
  QueuePairDecorator(DeviceDecorator& device, std::unique_ptr<QueuePair> inner, CompletionQueueDecorator* send_cq,
                     CompletionQueueDecorator* recv_cq, SharedReceiveQueueDecorator* srq);
  ~QueuePairDecorator() override;

  uint32_t qp_num() const noexcept override { return qp_num_; }
  Transport transport() const noexcept override { return inner_->transport(); }
  QpState state() const noexcept override { return inner_->state(); }
  Address local_address() const override { return inner_->local_address(); }

  Status to_init() override;
  Status to_rtr(const Address* remote) override;
  Status to_rts() override;
  Status to_error() override;
  Status to_reset() override;
  Status connect(const Address* remote) override;

  Status post_send(const SendWr& wr) override;
  Status post_recv(const RecvWr& wr) override;
  const std::string& last_error() const noexcept override;

  QueuePair& inner() noexcept { return *inner_; }
  DeviceDecorator& device() noexcept { return device_; }
  CompletionQueueDecorator* send_cq() const noexcept { return send_cq_; }
  CompletionQueueDecorator* recv_cq() const noexcept { return recv_cq_; }
  /// The SRQ the QP receives from, or nullptr.
  SharedReceiveQueueDecorator* srq() const noexcept { return srq_; }

  /// Forwards to the inner QP (what the default hooks do); keeps last_error() right.
  Status forward_post_send(const SendWr& wr);
  Status forward_post_recv(const RecvWr& wr);
  /// For a hook that refuses a WR itself: makes last_error() return `why`.
  void set_hook_error(std::string why);

 private:
  Status track(Status s) noexcept;

  DeviceDecorator& device_;
  std::unique_ptr<QueuePair> inner_;
  CompletionQueueDecorator* send_cq_;
  CompletionQueueDecorator* recv_cq_;
  SharedReceiveQueueDecorator* srq_;
  uint32_t qp_num_;
  std::string hook_error_;
  bool hook_error_is_last_ = false;
};

class DeviceDecorator : public Device {
 public:
  /// Owns the inner device.
  explicit DeviceDecorator(std::unique_ptr<Device> inner);
  /// Borrows the inner device, which must outlive the decorator.
  explicit DeviceDecorator(Device& inner);
  ~DeviceDecorator() override;

  DeviceDecorator(const DeviceDecorator&) = delete;
  DeviceDecorator& operator=(const DeviceDecorator&) = delete;

  Device& inner() noexcept { return *inner_; }

  const DeviceCapabilities& capabilities() const noexcept override { return inner_->capabilities(); }
  Runtime& runtime() noexcept override { return inner_->runtime(); }
  std::unique_ptr<MemoryRegion> register_memory(void* addr, size_t length, Access access) override;
  std::unique_ptr<CompletionQueue> create_cq(uint32_t capacity) override;
  std::unique_ptr<SharedReceiveQueue> create_srq(uint32_t capacity, uint32_t max_sge) override;
  /// Throws Error(InvalidArgument) when the config names a CQ or SRQ that was not
  /// created through this decorator.
  std::unique_ptr<QueuePair> create_qp(const QpConfig& config) override;
  std::unique_ptr<AddressHandle> create_address_handle(const Address& remote_ud_qp) override;
  /// The inner device's, unwrapped: shared memory is not the device's traffic, so hooks
  /// (drops, delays, traces of work requests) do not see it.
  SharedMemory* shared_memory() override { return inner_->shared_memory(); }
  const HostCosts& host_costs() const noexcept override { return inner_->host_costs(); }

  /// The live decorated QP with this local QP number, or nullptr.
  QueuePairDecorator* find_qp(uint32_t qp_num) const;

 protected:
  // Hooks. The defaults forward unchanged; an override that wants the operation to
  // happen calls the default (or qp.forward_post_*), possibly later or differently.
  virtual Status on_post_send(QueuePairDecorator& qp, const SendWr& wr);
  virtual Status on_post_recv(QueuePairDecorator& qp, const RecvWr& wr);
  virtual Status on_srq_post_recv(SharedReceiveQueueDecorator& srq, const RecvWr& wr);
  /// Called at the start of every CompletionQueue::poll of a CQ of this decorator,
  /// before the inner CQ is polled. The default does nothing.
  virtual void on_poll(CompletionQueueDecorator& cq);
  /// Called for every completion the inner CQ returns, in order. `wc.qp_num` names
  /// the local QP (find_qp). Runs inside CompletionQueue::poll of the caller.
  virtual CompletionVerdict on_poll_completion(CompletionQueueDecorator& cq, const WorkCompletion& wc);
  virtual void on_qp_created(QueuePairDecorator& qp);
  virtual void on_qp_destroyed(QueuePairDecorator& qp);
  virtual void on_srq_destroyed(SharedReceiveQueueDecorator& srq);
  /// After a state-changing call (to_*, connect) on `qp` returned `result`;
  /// `requested` is the target state (connect: ReadyToSend).
  virtual void on_transition(QueuePairDecorator& qp, QpState requested, Status result);

 private:
  friend class CompletionQueueDecorator;
  friend class SharedReceiveQueueDecorator;
  friend class QueuePairDecorator;

  CompletionQueueDecorator* own_cq(CompletionQueue* cq, const char* which) const;
  SharedReceiveQueueDecorator* own_srq(SharedReceiveQueue* srq) const;
  void forget_qp(QueuePairDecorator& qp);

  std::unique_ptr<Device> owned_;
  Device* inner_;
  mutable std::mutex mutex_;
  std::unordered_map<uint32_t, QueuePairDecorator*> qps_;
};

}  // namespace twinfab::fabric::hook
