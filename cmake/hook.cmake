# hook.cmake - the lean `waggle-hook` binary (issue #14 §3): the hook faces
# (src/hook/*.c) with the gate, the shell model and the error/type helpers,
# linked against jansson (statically when libjansson.a exists) and libc only,
# so a coding agent's hook starts without relocating libcurl, gnutls, libpq
# and the rest of waggle's shared libraries. It opens no store and loads no
# catalog. bench/hook.sh measures it against `waggle --version`.
file(GLOB WG_HOOK_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/hook/*.c)
file(GLOB WG_HOOK_CORE CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/src/core/gate*.c ${PROJECT_SOURCE_DIR}/src/core/shell/*.c)
add_executable(waggle_hook ${PROJECT_SOURCE_DIR}/src/hook/bin/main.c ${WG_HOOK_SOURCES}
  ${WG_HOOK_CORE} ${PROJECT_SOURCE_DIR}/src/core/error.c ${PROJECT_SOURCE_DIR}/src/core/types.c
  ${PROJECT_SOURCE_DIR}/src/core/version.c)
set_target_properties(waggle_hook PROPERTIES OUTPUT_NAME waggle-hook)
target_include_directories(waggle_hook PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src
  ${PROJECT_BINARY_DIR}/generated)
target_compile_definitions(waggle_hook PRIVATE WAGGLE_VERSION="${PROJECT_VERSION}")
find_library(WG_JANSSON_STATIC NAMES libjansson.a)
if(WG_JANSSON_STATIC AND NOT WAGGLE_SANITIZE)
  target_link_libraries(waggle_hook PRIVATE ${WG_JANSSON_STATIC})
  target_include_directories(waggle_hook PRIVATE ${JANSSON_INCLUDE_DIRS})
else()
  target_link_libraries(waggle_hook PRIVATE PkgConfig::JANSSON)
endif()
install(TARGETS waggle_hook RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
add_dependencies(waggle waggle_hook)   # tests and `waggle hook install` find it beside waggle

# bench/hook.sh: the start-to-answer driver (not run by ctest).
add_executable(hook_spawn ${PROJECT_SOURCE_DIR}/bench/hook_spawn.c)
set_target_properties(hook_spawn PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)

# waggle-hook(1), from its --help (help2man, when found: scripts/deps.sh build).
find_program(HELP2MAN help2man)
if(HELP2MAN)
  file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/packaging)
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/packaging/waggle-hook.1
    COMMAND ${HELP2MAN} --no-info --section=1 --source=waggle
            "--name=answer a coding agent's pre-tool-use hook with waggle's gate"
            --output=${PROJECT_BINARY_DIR}/packaging/waggle-hook.1 $<TARGET_FILE:waggle_hook>
    DEPENDS waggle_hook VERBATIM)
  add_custom_target(man_hook ALL DEPENDS ${PROJECT_BINARY_DIR}/packaging/waggle-hook.1)
  install(FILES ${PROJECT_BINARY_DIR}/packaging/waggle-hook.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
