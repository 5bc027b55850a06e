/* waggle/export.h - what leaves the shared library.
 *
 * libwaggle is built with -fvisibility=hidden: a function is part of the
 * public ABI only when its declaration in include/waggle/ carries WG_EXTERN.
 * Everything else - cross-file internals named wg_<module>__<verb>, declared
 * in headers under src/ - stays inside the library (tests and the waggle
 * binary link the static library and still reach them).
 * tests/packaging/abi.sh checks that every public prototype carries
 * WG_EXTERN and that the shared library exports only wg_* names.
 *
 * Every public header includes this one.
 */
#ifndef WAGGLE_EXPORT_H
#define WAGGLE_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define WG_EXTERN __attribute__((visibility("default")))
#else
#define WG_EXTERN
#endif

#endif
