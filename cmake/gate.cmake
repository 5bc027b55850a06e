# gate.cmake - the gate benchmark (bench/gate.c), built as gate_bench; not run
# by ctest. bench/gate.sh builds it, runs it and the JavaScript baseline, and
# prints the ratios.
add_executable(gate_bench ${PROJECT_SOURCE_DIR}/bench/gate.c)
target_link_libraries(gate_bench PRIVATE waggle_static)
set_target_properties(gate_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)

