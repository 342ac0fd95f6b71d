// MPI C API: attribute caching on datatypes (MPI-3.1 §6.7.4). The standard defines
// these by the communicator functions, so they are the same operations
// (attributes.cpp) on a datatype handle: MPI_Type_dup (datatype.cpp) runs the copy
// callbacks, MPI_Type_free the delete callbacks. Errors go to MPI_COMM_WORLD's
// handler, as for every datatype function (a datatype has no error handler of its
// own): MPI_ERR_TYPE for a bad datatype, MPI_ERR_KEYVAL for a keyval that is not a
// live datatype keyval (a communicator keyval included), MPI_ERR_ARG for a null
// output pointer.
#include "mpi/capi/attributes.hpp"
#include "mpi/capi/rank_state.hpp"

using namespace twinfab::mpi;
using namespace twinfab::mpi::capi;

extern "C" {

int MPI_TYPE_DUP_FN(MPI_Datatype, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

int MPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                           MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval, void* extra_state) {
  const char* where = "MPI_Type_create_keyval";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(type_keyval, where, "type_keyval");
    *type_keyval =
        create_keyval(s, AttributeObject::Datatype, type_copy_attr_fn, type_delete_attr_fn, extra_state, where);
    return MPI_SUCCESS;
  });
}

int MPI_Type_free_keyval(int* type_keyval) {
  const char* where = "MPI_Type_free_keyval";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    require_pointer(type_keyval, where, "type_keyval");
    free_keyval(s, AttributeObject::Datatype, *type_keyval, where);
    return MPI_SUCCESS;
  });
}

int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  const char* where = "MPI_Type_set_attr";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    set_attribute(s, Object::type(datatype), type_keyval, attribute_val, where);
    return MPI_SUCCESS;
  });
}

int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  const char* where = "MPI_Type_get_attr";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    void* value = nullptr;
    const bool found = get_attribute(s, Object::type(datatype), type_keyval, value, where);
    require_pointer(attribute_val, where, "attribute_val");
    require_pointer(flag, where, "flag");
    if (found) *static_cast<void**>(attribute_val) = value;
    *flag = found ? 1 : 0;
    return MPI_SUCCESS;
  });
}

int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  const char* where = "MPI_Type_delete_attr";
  return entry(where, MPI_COMM_WORLD, [&](RankState& s) {
    delete_attribute(s, Object::type(datatype), type_keyval, where);
    return MPI_SUCCESS;
  });
}

}  // extern "C"
