// Conformance: shared memory between the ranks of a host (fabric/shared_memory.hpp), on
// every backend that offers it (Device::shared_memory() not null).
// - A segment is zero-filled and 64-byte aligned; attaching it by name shows the same
//   bytes; after unlink() it can no longer be attached, while the mappings stay.
// - copy() copies; a peer made from a rank's identity() reads and writes that rank's
//   memory (here the rank's own: both devices of the suite are one process), and
//   notify() returns.
// - Bad input: a segment of 0 bytes, a malformed or unknown name, a malformed identity,
//   a read outside the peer's memory (hardware: an error status, never a crash).
#include <cstring>
#include <vector>

#include "fabric/shared_memory.hpp"
#include "tests/fabric/conformance_helpers.hpp"

namespace twinfab::testing {
namespace {

class SharedMemoryTest : public ConformanceTest {};

TEST_P(SharedMemoryTest, SegmentsAreSeenByEveryAttacherUntilUnlinked) {
  run_on_backend([&](Device& a, Device&) {
    fabric::SharedMemory* shm = a.shared_memory();
    if (shm == nullptr) GTEST_SKIP() << "this backend offers no shared memory";
    auto segment = shm->create(10000);
    ASSERT_GE(segment->bytes().size(), 10000u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(segment->bytes().data()) % 64, 0u);
    for (std::byte b : segment->bytes().first(10000)) ASSERT_EQ(b, std::byte{0});
    const std::vector<std::byte> name(segment->name().begin(), segment->name().end());
    auto other = shm->attach(name);
    ASSERT_GE(other->bytes().size(), 10000u);
    segment->bytes()[123] = std::byte{0x5a};
    EXPECT_EQ(other->bytes()[123], std::byte{0x5a}) << "one segment, two mappings";
    other->bytes()[9999] = std::byte{0xa5};
    EXPECT_EQ(segment->bytes()[9999], std::byte{0xa5});
    segment->unlink();
    segment->unlink();  // idempotent
    EXPECT_THROW(shm->attach(name), fabric::Error) << "unlinked";
    other->bytes()[0] = std::byte{1};  // the mappings stay
    EXPECT_EQ(segment->bytes()[0], std::byte{1});
  });
}

TEST_P(SharedMemoryTest, CopiesAndSingleCopiesMoveTheBytes) {
  run_on_backend([&](Device& a, Device&) {
    fabric::SharedMemory* shm = a.shared_memory();
    if (shm == nullptr) GTEST_SKIP() << "this backend offers no shared memory";
    std::vector<char> from(5000), to(5000, 0);
    for (std::size_t i = 0; i < from.size(); ++i) from[i] = static_cast<char>(i * 7);
    shm->copy(to.data(), from.data(), from.size());
    EXPECT_EQ(from, to);
    shm->charge_copy(100);  // no effect to see here; must not fail
    auto self = shm->peer(shm->identity());
    self->notify();  // nobody waits: returns
    if (!shm->single_copy()) GTEST_SKIP() << "the kernel refuses single copies here (ptrace permission)";
    std::vector<char> back(5000, 0);
    ASSERT_EQ(self->read(back.data(), reinterpret_cast<std::uint64_t>(from.data()), from.size()), Status::Ok)
        << self->last_error();
    EXPECT_EQ(back, from);
    std::vector<char> target(5000, 0);
    ASSERT_EQ(self->write(reinterpret_cast<std::uint64_t>(target.data()), from.data(), from.size()), Status::Ok)
        << self->last_error();
    EXPECT_EQ(target, from);
  });
}

TEST_P(SharedMemoryTest, BadInputIsRefusedWithAnError) {
  run_on_backend([&](Device& a, Device&) {
    fabric::SharedMemory* shm = a.shared_memory();
    if (shm == nullptr) GTEST_SKIP() << "this backend offers no shared memory";
    EXPECT_THROW(shm->create(0), fabric::Error);
    const std::vector<std::byte> garbage(16, std::byte{0x41});
    EXPECT_THROW(shm->attach(garbage), fabric::Error);
    EXPECT_THROW(shm->attach({}), fabric::Error);
    EXPECT_THROW(shm->peer(garbage), fabric::Error);
    EXPECT_THROW(shm->peer({}), fabric::Error);
    // A segment's name is not a rank's identity.
    auto segment = shm->create(64);
    const std::vector<std::byte> name(segment->name().begin(), segment->name().end());
    EXPECT_THROW(shm->peer(name), fabric::Error);
  });
}

TWINFAB_INSTANTIATE_CONFORMANCE(SharedMemoryTest);

}  // namespace
}  // namespace twinfab::testing
