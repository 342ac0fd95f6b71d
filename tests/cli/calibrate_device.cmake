# twinfab calibrate on the device at hand (the micro-VM's rxe or siw): a short run that
# must write a platform file the simulator then runs with.
#   -DTWINFAB=<twinfab> -DOUT=<file>
file(REMOVE "${OUT}")
execute_process(COMMAND "${TWINFAB}" calibrate -o "${OUT}" --name vm-device -n 50 --reps 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "twinfab calibrate failed (exit ${rc}):\n${out}${err}")
endif()
if(NOT EXISTS "${OUT}" OR EXISTS "${OUT}.partial")
  message(FATAL_ERROR "calibrate did not leave exactly ${OUT}:\n${out}")
endif()
execute_process(COMMAND "${TWINFAB}" perf write-lat --platform "${OUT}" -s 8 -s 65536 -n 10
                RESULT_VARIABLE rc OUTPUT_VARIABLE perf ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT perf MATCHES "platform vm-device")
  message(FATAL_ERROR "the simulator did not run on the calibrated file (exit ${rc}):\n${perf}${err}")
endif()
message(STATUS "${out}${perf}")
