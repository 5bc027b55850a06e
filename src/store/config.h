/* config.h - the config (tier, trial, settings) on one machine or in a
 * shared store (config.c). Internal to libwaggle: the engine and the
 * service use it; the public face is waggle/tier.h and the engine. */
#ifndef WAGGLE_STORE_CONFIG_H
#define WAGGLE_STORE_CONFIG_H

#include <jansson.h>
#include <stdint.h>

#include "waggle/store.h"
#include "waggle/tier.h"

#define WG_CONFIG_DOC "config.json"    /* its document name in a shared store */

struct wg_audit;

/* The config object (*out new). st NULL or not shared: DATA_DIR/config.json,
 * {} when missing or broken (never fails but for memory). Shared: the
 * store's document, {} when absent; WG_EUNAVAILABLE / WG_ESTORE when the
 * store cannot be read. */
int wg_config__load(json_t **out, wg_store *st, const char *data_dir);

/* Edits the config as one step (flock on one machine, the store's write
 * lock when shared). edit returns 0 to save, or a negative WG_E* to leave
 * it unchanged (returned as is). */
typedef int (*wg_config_edit_fn)(json_t *cfg, void *arg);
int wg_config__edit(wg_store *st, const char *data_dir, wg_config_edit_fn edit, void *arg);

/* wg_tier_read / _set / _start_trial over wg_config__load/_edit. read_in
 * fills *out (FREE) and returns the store's error when a shared store is
 * unreachable. */
int wg_tier__read_in(wg_tier_status *out, wg_store *st, const char *data_dir, int64_t now_ms);
int wg_tier__set_in(wg_store *st, const char *data_dir, wg_tier tier, struct wg_audit *audit,
                    const char *actor);
int wg_tier__start_trial_in(wg_store *st, const char *data_dir, int64_t now_ms,
                            struct wg_audit *audit, const char *actor);

#endif
