/* audit_mask.c - fuzz target for the audit log's secret masking: any JSON
 * (hostile tool arguments) goes through wg_audit_mask with a vault holding
 * two secrets, and the masked text must contain neither secret, nor a value
 * under a key that names a secret. Never crashes on deep or odd JSON. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/audit.h"
#include "waggle/store.h"
#include "waggle/vault.h"

static const char *const secrets[] = { "ghp_FUZZSECRET", "sk-live-0000" };

static wg_vault *vault(void)
{
    static wg_store *st;
    static wg_vault *v;
    if (v)
        return v;
    char tmpl[] = "/tmp/waggle-fuzz-audit.XXXXXX";
    unsigned char key[32] = { 5 };
    if (!mkdtemp(tmpl) || wg_store_open(&st, tmpl) < 0 || wg_vault_open_key(&v, st, key) < 0)
        abort();
    wg_vault_set(v, "connector:github", secrets[0], strlen(secrets[0]), NULL);
    wg_vault_set(v, "openai", secrets[1], strlen(secrets[1]), NULL);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wg_vault *v = vault();
    json_t *in = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (!in)
        return 0;
    json_t *out = NULL;
    if (wg_audit_mask(&out, in, v) == 0 && out) {
        char *text = json_dumps(out, JSON_COMPACT | JSON_ENCODE_ANY);
        /* json_dumps escapes nothing inside these ASCII secrets, so a
         * surviving secret would show up verbatim. */
        for (size_t i = 0; text && i < sizeof secrets / sizeof *secrets; i++)
            if (strstr(text, secrets[i]))
                abort();
        free(text);
    }
    json_decref(out);
    json_decref(in);
    return 0;
}
