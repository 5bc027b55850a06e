/* waggle/version.h - library version. */
#ifndef WAGGLE_VERSION_H
#define WAGGLE_VERSION_H

#define WG_VERSION_MAJOR 0
#define WG_VERSION_MINOR 1
#define WG_VERSION_PATCH 0

/* The version of the library actually linked, e.g. "0.1.0". Static string. */
const char *wg_version(void);

#endif
