/* version.c - wg_version(). WAGGLE_VERSION comes from CMake's project(). */
#include "waggle/version.h"

const char *wg_version(void) { return WAGGLE_VERSION; }
