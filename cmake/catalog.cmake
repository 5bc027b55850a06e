# catalog.cmake - the MCP catalog's build-time gate and embedding (spec 12),
# and the catalog benchmark.
#
# waggle-catalog-check is a host program built from the library's own catalog
# sources (loader, uniqueness, index) and run on data/mcp-catalog.json before
# the library compiles: a duplicate or colliding entry fails `cmake --build`
# with a message naming both entries. Only a file that passed is embedded, as
# generated/catalog_data.c: the catalog's blob (entries and the search index,
# src/core/catalog_blob.c), so loading the embedded catalog at run time
# parses no JSON and builds no index.
file(GLOB WG_CATALOG_CORE CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/core/catalog_*.c)
list(FILTER WG_CATALOG_CORE EXCLUDE REGEX "catalog_embedded\\.c$")
add_executable(waggle_catalog_check ${PROJECT_SOURCE_DIR}/tools/catalog_check.c
               ${WG_CATALOG_CORE} ${PROJECT_SOURCE_DIR}/src/core/error.c)
set_target_properties(waggle_catalog_check PROPERTIES
  OUTPUT_NAME waggle-catalog-check RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tools)
target_include_directories(waggle_catalog_check PRIVATE
  ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(waggle_catalog_check PRIVATE PkgConfig::JANSSON Threads::Threads m)

set(WG_CATALOG_DATA ${PROJECT_SOURCE_DIR}/data/mcp-catalog.json)
set(WG_CATALOG_GEN ${PROJECT_BINARY_DIR}/generated/catalog_data.c)
add_custom_command(OUTPUT ${WG_CATALOG_GEN}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/generated
  COMMAND waggle_catalog_check --require-all-categories --origin data/mcp-catalog.json
          --embed ${WG_CATALOG_GEN} ${WG_CATALOG_DATA}
  DEPENDS waggle_catalog_check ${WG_CATALOG_DATA}
  COMMENT "Checking and embedding data/mcp-catalog.json"
  VERBATIM)
target_sources(waggle_obj PRIVATE ${WG_CATALOG_GEN})

# bench/catalog: ours vs the original's algorithm, same run (not run by ctest).
if(EXISTS ${PROJECT_SOURCE_DIR}/bench/catalog_bench.c)
  add_executable(catalog_bench ${PROJECT_SOURCE_DIR}/bench/catalog_bench.c
                 ${PROJECT_SOURCE_DIR}/bench/catalog_baseline.c)
  set_target_properties(catalog_bench PROPERTIES
    OUTPUT_NAME catalog RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
  target_include_directories(catalog_bench PRIVATE ${PROJECT_SOURCE_DIR}/bench)
  target_link_libraries(catalog_bench PRIVATE waggle_static)
  target_compile_definitions(catalog_bench PRIVATE
    WG_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
