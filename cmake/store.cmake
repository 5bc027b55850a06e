# store.cmake - the store benchmark (bench/store_bench.c), built as
# store_bench; not run by ctest. Run: build/bench/store_bench [rounds]
add_executable(store_bench ${PROJECT_SOURCE_DIR}/bench/store_bench.c)
target_link_libraries(store_bench PRIVATE waggle_static)
set_target_properties(store_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
