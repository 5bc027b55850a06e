# commands.cmake - run with `cmake -DWAGGLE=path -DOUT=file -P commands.cmake`.
# Writes a help2man include file whose COMMANDS section holds every
# subcommand's --help text, so waggle(1) documents what the binary says.
execute_process(COMMAND ${WAGGLE} --list-commands OUTPUT_VARIABLE list RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${WAGGLE} --list-commands failed")
endif()
string(REPLACE "\n" ";" lines "${list}")
set(text "[COMMANDS]\n")
foreach(line ${lines})
  string(REGEX REPLACE "\t.*" "" name "${line}")
  if(name STREQUAL "")
    continue()
  endif()
  execute_process(COMMAND ${WAGGLE} ${name} --help OUTPUT_VARIABLE help ERROR_VARIABLE help)
  # roff: a backslash is \e; a line may not start with . or '
  string(REPLACE "\\" "\\e" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
  string(APPEND text ".SS \"waggle ${name}\"\n.nf\n${help}.fi\n")
endforeach()
string(APPEND text "[FILES]\n"
  "Data dir: --data-dir DIR, else $WAGGLE_DATA_DIR, else ~/.waggle (mode 0700): config.json, "
  "waggle.db (the store: vault, audit log, pool), vault.key, api-token, admin-token, skills/, "
  "plugins/, catalog.json.\n"
  "[SEE ALSO]\nwaggled(8)\n")
file(WRITE ${OUT} "${text}")
