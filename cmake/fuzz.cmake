# fuzz.cmake - each fuzz/<name>.c defines LLVMFuzzerTestOneInput.
# With WAGGLE_FUZZ=ON (clang) it becomes the libFuzzer binary fuzz/fuzz_<name>.
# Otherwise, with tests on, it is linked with fuzz/standalone.c into a replay
# binary that ctest runs over fuzz/corpus/<name>/ (every past crash stays a test).
file(GLOB WG_FUZZ_TARGETS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/fuzz/*.c)
list(FILTER WG_FUZZ_TARGETS EXCLUDE REGEX "/standalone\\.c$")
foreach(src ${WG_FUZZ_TARGETS})
  get_filename_component(name ${src} NAME_WE)
  if(WAGGLE_FUZZ)
    add_executable(fuzz_${name} ${src})
    set_target_properties(fuzz_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
    target_link_libraries(fuzz_${name} PRIVATE waggle_static)
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  elseif(WAGGLE_TESTS)
    add_executable(fuzzreplay_${name} ${src} ${PROJECT_SOURCE_DIR}/fuzz/standalone.c)
    target_link_libraries(fuzzreplay_${name} PRIVATE waggle_static)
    add_test(NAME fuzz.replay.${name}
             COMMAND fuzzreplay_${name} ${PROJECT_SOURCE_DIR}/fuzz/corpus/${name})
    set_tests_properties(fuzz.replay.${name} PROPERTIES LABELS unit)
  endif()
endforeach()
