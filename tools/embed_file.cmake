# embed_file.cmake - writes a C file holding one data file's bytes.
#   cmake -DIN=<file> -DOUT=<file.c> -DSYMBOL=<name> -P embed_file.cmake
# defines `const unsigned char SYMBOL[]` (NUL-terminated) and
# `const unsigned long SYMBOL_len` (without the NUL).
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n    " body "${body}")
file(WRITE "${OUT}" "/* generated from ${IN} by tools/embed_file.cmake: do not edit */\n"
  "const unsigned char ${SYMBOL}[] = {\n    ${body}0x00\n};\n"
  "const unsigned long ${SYMBOL}_len = ${bytes};\n")
