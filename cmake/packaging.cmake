# packaging.cmake - what an installed waggle brings besides the binaries:
# man pages generated from the help texts (help2man, when found), bash and zsh
# completions, a hardened systemd unit, and a CMake package config
# (find_package(waggle)). Tests of each are registered with the label unit.
set(WG_PKG_DIR ${PROJECT_SOURCE_DIR}/packaging)
set(WG_GEN_DIR ${PROJECT_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${WG_GEN_DIR})

# waggled is waggle under another name: a link in the build tree too, for
# help2man and the systemd check.
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/waggled
  COMMAND ${CMAKE_COMMAND} -E create_symlink waggle ${PROJECT_BINARY_DIR}/waggled
  DEPENDS waggle VERBATIM)
add_custom_target(waggled_link ALL DEPENDS ${PROJECT_BINARY_DIR}/waggled)

# ---- man pages --------------------------------------------------------------
find_program(HELP2MAN help2man)
if(HELP2MAN)
  add_custom_command(OUTPUT ${WG_GEN_DIR}/waggle.1
    COMMAND ${CMAKE_COMMAND} -DWAGGLE=$<TARGET_FILE:waggle> -DOUT=${WG_GEN_DIR}/commands.h2m
            -P ${WG_PKG_DIR}/man/commands.cmake
    COMMAND ${HELP2MAN} --no-info --section=1 --source=waggle
            "--name=capability, connector, trust and tier-gating engine for AI agents"
            --include=${WG_GEN_DIR}/commands.h2m --output=${WG_GEN_DIR}/waggle.1
            $<TARGET_FILE:waggle>
    DEPENDS waggle ${WG_PKG_DIR}/man/commands.cmake VERBATIM)
  add_custom_command(OUTPUT ${WG_GEN_DIR}/waggled.8
    COMMAND ${HELP2MAN} --no-info --section=8 --source=waggle
            "--name=the waggle HTTP service" --output=${WG_GEN_DIR}/waggled.8
            ${PROJECT_BINARY_DIR}/waggled
    DEPENDS waggled_link ${PROJECT_BINARY_DIR}/waggled VERBATIM)
  add_custom_target(man ALL DEPENDS ${WG_GEN_DIR}/waggle.1 ${WG_GEN_DIR}/waggled.8)
  install(FILES ${WG_GEN_DIR}/waggle.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${WG_GEN_DIR}/waggled.8 DESTINATION ${CMAKE_INSTALL_MANDIR}/man8)
else()
  message(STATUS "help2man not found: the man pages waggle(1) and waggled(8) are not built "
                 "(bash scripts/deps.sh build installs it)")
endif()

# ---- completions ------------------------------------------------------------
install(FILES ${WG_PKG_DIR}/completions/waggle.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME waggle)
install(FILES ${WG_PKG_DIR}/completions/_waggle
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)

# ---- systemd unit -----------------------------------------------------------
# Written at install time so that ExecStart names the prefix actually used
# (cmake --install build --prefix P).
install(CODE "
  set(WAGGLE_SERVICE_BIN \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/waggled\")
  configure_file(\"${WG_PKG_DIR}/systemd/waggled.service.in\"
    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/systemd/system/waggled.service\" @ONLY)
  message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/systemd/system/waggled.service\")")
set(WAGGLE_SERVICE_BIN ${PROJECT_BINARY_DIR}/waggled)
configure_file(${WG_PKG_DIR}/systemd/waggled.service.in ${WG_GEN_DIR}/waggled.service @ONLY)

# ---- CMake package config ---------------------------------------------------
include(CMakePackageConfigHelpers)
set(WG_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/waggle)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/waggleConfig.cmake.in
  ${WG_GEN_DIR}/waggleConfig.cmake INSTALL_DESTINATION ${WG_CMAKE_DIR})
write_basic_package_version_file(${WG_GEN_DIR}/waggleConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${WG_GEN_DIR}/waggleConfig.cmake ${WG_GEN_DIR}/waggleConfigVersion.cmake
        DESTINATION ${WG_CMAKE_DIR})

# ---- tests ------------------------------------------------------------------
if(WAGGLE_TESTS)
  add_test(NAME packaging.completions
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/packaging/completions.sh
                   ${WG_PKG_DIR}/completions $<TARGET_FILE:waggle>)
  find_program(SYSTEMD_ANALYZE systemd-analyze)
  add_test(NAME packaging.systemd
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/packaging/systemd.sh
                   ${WG_GEN_DIR}/waggled.service ${PROJECT_BINARY_DIR}/waggled)
  add_test(NAME packaging.man
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/packaging/man.sh ${WG_GEN_DIR}
                   ${PROJECT_BINARY_DIR}/waggled)
  # The ABI check compiles each public header as C++ too (build-essential
  # brings g++); without a C++ compiler it fails rather than skips.
  find_program(WG_CXX NAMES g++ c++ clang++)
  if(NOT WG_CXX)
    set(WG_CXX no-c++-compiler-found)
  endif()
  add_test(NAME packaging.abi
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/packaging/abi.sh ${PROJECT_SOURCE_DIR}
                   ${PROJECT_BINARY_DIR} $<TARGET_FILE:waggle_shared>
                   ${CMAKE_C_COMPILER} ${WG_CXX})
  set_tests_properties(packaging.completions packaging.systemd packaging.man packaging.abi
                       PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
endif()

install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CHANGELOG.md
              ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
