// Unit tests of mpi/core/request.hpp's RequestTable: ids name live requests only, a
// stale id (a freed request, or a peer echoing a finished one) finds nothing, and a
// freed slot comes back clean under a new id, whichever way it was erased.
#include <gtest/gtest.h>

#include "mpi/core/request.hpp"

namespace twinfab::mpi {
namespace {

TEST(RequestTable, CreatedRequestsAreFoundByTheirIds) {
  RequestTable table;
  Request& a = table.create(Request::Kind::Send);
  Request& b = table.create(Request::Kind::Recv);
  EXPECT_NE(a.id, kRequestNull);
  EXPECT_NE(a.id, b.id);
  EXPECT_EQ(table.find(a.id), &a);
  EXPECT_EQ(table.find(b.id), &b);
  EXPECT_EQ(b.kind, Request::Kind::Recv);
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.find(kRequestNull), nullptr);
}

TEST(RequestTable, ErasingByIdOrByReferenceEndsTheRequestAndItsId) {
  RequestTable table;
  Request& a = table.create(Request::Kind::Recv);
  Request& b = table.create(Request::Kind::Recv);
  const RequestId a_id = a.id;
  const RequestId b_id = b.id;
  table.erase(a_id);
  table.erase(b);  // the reference form: no lookup
  EXPECT_EQ(table.find(a_id), nullptr);
  EXPECT_EQ(table.find(b_id), nullptr);
  EXPECT_EQ(table.size(), 0u);
  table.erase(a_id);  // a stale id is ignored
  EXPECT_EQ(table.size(), 0u);
}

TEST(RequestTable, AReusedSlotHasANewIdAndNothingOfTheOldRequest) {
  RequestTable table;
  Request& first = table.create(Request::Kind::Recv);
  const RequestId old_id = first.id;
  first.done = true;
  first.tag = 7;
  first.bytes = 100;
  first.status.source = 3;
  first.type = Datatype::predefined(BasicKind::Int);
  table.erase(first);
  Request& second = table.create(Request::Kind::Send);
  EXPECT_EQ(&second, &first);  // the slot (and its object) is reused
  EXPECT_NE(second.id, old_id);
  EXPECT_EQ(table.find(old_id), nullptr);  // the old id does not name the new request
  EXPECT_EQ(table.find(second.id), &second);
  EXPECT_FALSE(second.done);
  EXPECT_EQ(second.tag, 0);
  EXPECT_EQ(second.bytes, 0u);
  EXPECT_EQ(second.status.source, kAnySource);
  EXPECT_EQ(second.type, nullptr);
  EXPECT_EQ(second.kind, Request::Kind::Send);
}

}  // namespace
}  // namespace twinfab::mpi
