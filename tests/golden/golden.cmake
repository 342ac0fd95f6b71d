# Runs a command and compares its output (stdout, then stderr) byte for byte with a
# golden file, as SimGrid's tesh does; paths of the source and build trees are written
# <source> and <build>, so the files do not depend on where the tree is.
#   -DCMD="prog;arg;..." -DEXPECTED=<file> -DSOURCE_DIR=<dir> -DBINARY_DIR=<dir> -DNAME=<test>
# With TWINFAB_GOLDEN_UPDATE=1 in the environment the golden file is (re)written
# instead: review the diff before committing it.
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the command failed (exit ${rc}):\n${out}${err}")
endif()
set(got "${out}${err}")
# The build tree may lie inside the source tree: replace it first.
string(REPLACE "${BINARY_DIR}" "<build>" got "${got}")
string(REPLACE "${SOURCE_DIR}" "<source>" got "${got}")
if("$ENV{TWINFAB_GOLDEN_UPDATE}" STREQUAL "1")
  file(WRITE "${EXPECTED}" "${got}")
  message(STATUS "wrote ${EXPECTED}")
  return()
endif()
if(NOT EXISTS "${EXPECTED}")
  message(FATAL_ERROR "no golden file ${EXPECTED}: make it with TWINFAB_GOLDEN_UPDATE=1 ctest -R '^golden\\.${NAME}$'")
endif()
file(READ "${EXPECTED}" want)
if(NOT got STREQUAL want)
  set(actual "${BINARY_DIR}/golden/${NAME}.actual")
  file(WRITE "${actual}" "${got}")
  execute_process(COMMAND diff -u "${EXPECTED}" "${actual}" OUTPUT_VARIABLE diff)
  message(FATAL_ERROR "the output differs from ${EXPECTED} (a prediction changed?):\n${diff}\n"
                      "If the change is intended: TWINFAB_GOLDEN_UPDATE=1 ctest --test-dir <build> -R '^golden\\.${NAME}$' "
                      "and commit the new file with the change that caused it.")
endif()
message(STATUS "same as ${EXPECTED}")
