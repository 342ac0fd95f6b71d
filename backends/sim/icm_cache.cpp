#include "backends/sim/icm_cache.hpp"

#include <algorithm>
#include <vector>

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

void IcmCache::order_by_stamp() {
  std::vector<Entry*> entries;
  entries.reserve(size_);
  for (Entry* e = head_.next_; e != &head_; e = e->next_) entries.push_back(e);
  // Stamps are distinct (one clock tick per touch): the order is fully determined.
  std::sort(entries.begin(), entries.end(), [](const Entry* a, const Entry* b) { return a->stamp_ > b->stamp_; });
  head_.prev_ = head_.next_ = &head_;
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) link_front(**it);
  ordered_ = true;
}

bool IcmCache::touch(Entry& e) {
  if (capacity_ == 0) {
    ++hits_;
    return true;
  }
  e.stamp_ = ++clock_;
  if (e.cached()) {
    if (ordered_ && head_.next_ != &e) {  // unordered: the stamp says it; at the front: nothing to move
      unlink(e);
      link_front(e);
    }
    ++hits_;
    return true;
  }
  ++misses_;
  if (size_ >= capacity_) {
    if (!ordered_) order_by_stamp();
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
