#include "backends/verbs/verbs_work_request.hpp"

#include <cerrno>
#include <cstdlib>

namespace twinfab::verbs {

namespace {

template <typename Queue, typename Post>
int post_recv_retrying_empty(Queue* queue, const fabric::RecvWr& contract_wr, Post post) {
  IbvSgeList sges(contract_wr.sg_list);
  ibv_recv_wr wr{};
  wr.wr_id = contract_wr.wr_id;
  wr.sg_list = sges.data();
  wr.num_sge = sges.size();
  ibv_recv_wr* bad = nullptr;
  int rc = std::abs(post(queue, &wr, &bad));
  if (rc == EINVAL && wr.num_sge == 0) {
    ibv_sge empty{};  // length 0: the lkey is never used
    wr.sg_list = &empty;
    wr.num_sge = 1;
    rc = std::abs(post(queue, &wr, &bad));
  }
  return rc;
}

}  // namespace

int post_one_recv(ibv_qp* qp, const fabric::RecvWr& wr) {
  return post_recv_retrying_empty(qp, wr, [](ibv_qp* q, ibv_recv_wr* w, ibv_recv_wr** b) { return ibv_post_recv(q, w, b); });
}

int post_one_srq_recv(ibv_srq* srq, const fabric::RecvWr& wr) {
  return post_recv_retrying_empty(
      srq, wr, [](ibv_srq* q, ibv_recv_wr* w, ibv_recv_wr** b) { return ibv_post_srq_recv(q, w, b); });
}

}  // namespace twinfab::verbs
