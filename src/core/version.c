/* version.c - wg_version(): the version this library was built as
 * (waggle/version.h, generated from CMake's project()). */
#include "waggle/version.h"

const char *wg_version(void) { return WG_VERSION_STRING; }
