#include "backends/sim/icm_cache.hpp"

namespace twinfab::sim {

bool IcmCache::touch(uint32_t qpn) {
  if (capacity_ == 0) {
    ++hits_;
    return true;
  }
  auto it = index_.find(qpn);
  if (it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    ++hits_;
    return true;
  }
  ++misses_;
  if (index_.size() >= capacity_) {
    index_.erase(lru_.back());
    lru_.pop_back();
  }
  lru_.push_front(qpn);
  index_.emplace(qpn, lru_.begin());
  return false;
}

void IcmCache::erase(uint32_t qpn) {
  auto it = index_.find(qpn);
  if (it == index_.end()) return;
  lru_.erase(it->second);
  index_.erase(it);
}

}  // namespace twinfab::sim
