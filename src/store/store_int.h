/* store_int.h - what the files of src/store share about the handle.
 * Not a public header. */
#ifndef WAGGLE_STORE_INT_H
#define WAGGLE_STORE_INT_H

#include "waggle/store.h"

/* The back end's target (a path, a conninfo); borrowed, may hold a password. */
const char *wg_store__target(const wg_store *st);

/* postgres.c: 0 when the connection is usable (a lost one is re-made),
 * WG_EUNAVAILABLE when it cannot be. db is the back end's handle. */
int wg_store__pg_ping(void *db);

#endif
