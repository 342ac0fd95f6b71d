# twinfab_mpicc_program(OUT SOURCE): builds the C MPI program SOURCE into OUT with the
# build tree's twinfab-mpicc at -O2, as a user would (bench programs that tests and
# golden outputs run under `twinfab sim`). The caller lists OUT in a target's DEPENDS.
function(twinfab_mpicc_program out source)
  set(wrapper ${PROJECT_BINARY_DIR}/bin/twinfab-mpicc)
  get_filename_component(name ${source} NAME)
  add_custom_command(OUTPUT ${out}
                     COMMAND ${wrapper} -O2 -o ${out} ${source}
                     DEPENDS ${source} twinfab_mpi_c ${wrapper}
                     COMMENT "twinfab-mpicc ${name}"
                     VERBATIM)
endfunction()
