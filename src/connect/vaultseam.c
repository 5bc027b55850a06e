/* vaultseam.c - the connector registry's vault seam over the store's
 * encrypted vault (waggle/vault.h), filled in one place so every face (the
 * server, the CLI, tests) wires the same functions, including the ones the
 * OAuth2 token manager needs (set_many, lock, unlock). */
#include "waggle/connector.h"
#include "waggle/vault.h"

void wg_connect_vault_of(wg_connect_vault *out, struct wg_vault *v)
{
    *out = (wg_connect_vault){
        .version = WG_CONNECT_VAULT_VERSION,
        .ctx = v,
        .get = wg_vault_seam_get,
        .set = wg_vault_seam_set,
        .del = wg_vault_seam_del,
        .list = wg_vault_seam_list,
        .take = wg_vault_seam_take,
        .set_many = wg_vault_seam_set_many,
        .lock = wg_vault_seam_lock,
        .unlock = wg_vault_seam_unlock,
    };
}
