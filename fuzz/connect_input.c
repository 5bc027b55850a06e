/* connect_input.c - fuzzes what an LLM controls in a connector call:
 * the input is "<template>\n<params JSON>". It drives safeErrorText (no
 * leak of the planted secret, bounded length), path segment encoding (the
 * result never holds '/', '?', '#', CR/LF or a dot segment) and template
 * filling (never crashes; output is valid JSON). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "connect/rest.h"
#include "waggle/connector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;

    static const char *const secrets[] = { "planted-secret-value", NULL };
    char *msg = NULL;
    if (wg_connector_safe_error(&msg, "Fuzz API", 400, text, size, secrets) == 0) {
        if (strstr(msg, "planted-secret-value") || strlen(msg) > 600)
            abort();
        free(msg);
    }

    char *seg = NULL;
    if (wg_rest_encode_segment(&seg, text) == 0) {
        if (strpbrk(seg, "/?#\r\n ") || !strcmp(seg, ".") || !strcmp(seg, ".."))
            abort();
        free(seg);
    }

    char *nl = strchr(text, '\n');
    if (nl) {
        *nl = 0;
        json_t *params = json_loads(nl + 1, 0, NULL);
        json_t *out = NULL;
        if (json_is_object(params) && wg_rest_fill(&out, text, params) == 0) {
            char *dump = json_dumps(out, JSON_ENCODE_ANY);
            if (!dump)
                abort();
            free(dump);
            json_decref(out);
        }
        json_decref(params);
    }
    free(text);
    return 0;
}
