#include "backends/sim/icm_cache.hpp"

namespace twinfab::sim {

void IcmCache::unlink(Entry& e) {
  e.prev_->next_ = e.next_;
  e.next_->prev_ = e.prev_;
  e.prev_ = e.next_ = nullptr;
}

void IcmCache::link_front(Entry& e) {
  e.prev_ = &head_;
  e.next_ = head_.next_;
  head_.next_->prev_ = &e;
  head_.next_ = &e;
}

bool IcmCache::touch(Entry& e) {
  if (capacity_ == 0) {
    ++hits_;
    return true;
  }
  if (e.cached()) {
    if (head_.next_ != &e) {  // already the most recent: nothing to move
      unlink(e);
      link_front(e);
    }
    ++hits_;
    return true;
  }
  ++misses_;
  if (size_ >= capacity_) {
    unlink(*head_.prev_);
    --size_;
  }
  link_front(e);
  ++size_;
  return false;
}

void IcmCache::erase(Entry& e) {
  if (!e.cached()) return;
  unlink(e);
  --size_;
}

}  // namespace twinfab::sim
