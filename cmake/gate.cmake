# gate.cmake - the gate benchmark (bench/gate.c), built as gate_bench; not run
# by ctest. bench/gate.sh builds it, runs it and the JavaScript baseline, and
# prints the ratios.
add_executable(gate_bench ${PROJECT_SOURCE_DIR}/bench/gate.c)
target_link_libraries(gate_bench PRIVATE waggle_static)
set_target_properties(gate_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)


# gate_rates: the three soundness rates of issue #10 over the corpora of
# tests/data/gate/ (docs/gate.md "Measuring soundness"). The unit test
# tests/unit/core/gate_attack.c computes the same figures and enforces them.
add_executable(gate_rates ${PROJECT_SOURCE_DIR}/bench/gate_rates.c
  ${PROJECT_SOURCE_DIR}/tests/support/gate_rates.c)
target_include_directories(gate_rates PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
target_compile_definitions(gate_rates PRIVATE WG_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
target_link_libraries(gate_rates PRIVATE waggle_static)
set_target_properties(gate_rates PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
