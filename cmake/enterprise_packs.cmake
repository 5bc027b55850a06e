# enterprise_packs.cmake - embeds data/enterprise-packs.json, the packs
# GET /api/marketplace/enterprise-packs lists (spec 10), as
# generated/enterprise_packs_data.c. The list is data, not code: a new pack
# is a new row in the file.
set(WG_PACKS_DATA ${PROJECT_SOURCE_DIR}/data/enterprise-packs.json)
set(WG_PACKS_GEN ${PROJECT_BINARY_DIR}/generated/enterprise_packs_data.c)
add_custom_command(OUTPUT ${WG_PACKS_GEN}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/generated
  COMMAND ${CMAKE_COMMAND} -DIN=${WG_PACKS_DATA} -DOUT=${WG_PACKS_GEN}
          -DSYMBOL=wg_marketplace__enterprise_packs_json
          -P ${PROJECT_SOURCE_DIR}/tools/embed_file.cmake
  DEPENDS ${WG_PACKS_DATA} ${PROJECT_SOURCE_DIR}/tools/embed_file.cmake
  COMMENT "Embedding data/enterprise-packs.json"
  VERBATIM)
target_sources(waggle_obj PRIVATE ${WG_PACKS_GEN})
