/* consumer.c - a program outside the tree that uses an installed libwaggle
 * through pkg-config (scripts/test.sh builds and runs it against a temporary
 * `cmake --install` prefix). Exits 0 when the gate asks for `sudo ls` at YOLO
 * and a catalog answer (a json_t the caller frees with jansson, which
 * waggle.pc must therefore list in Requires) names a server. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <waggle/waggle.h>

int main(void)
{
    static const char args[] = "{\"command\":\"sudo ls\"}";
    wg_gate *gate = NULL;
    wg_gate_decision d;
    if (wg_gate_new(&gate, NULL) != 0)
        return 1;
    int rc = wg_gate_check(&d, gate, "bash", args, strlen(args), WG_AUTONOMY_YOLO);
    wg_gate_free(gate);
    if (rc != 0 || !d.needs_confirmation || !d.critical)
        return 1;
    wg_catalog *cat = NULL;
    json_t *args_json = json_pack("{s:s}", "query", "users report crashes in the app");
    json_t *found = NULL;
    if (wg_catalog_open_embedded(&cat) != 0 || !args_json ||
        wg_catalog_find_connector(&found, cat, args_json) != 0 || !found)
        return 1;
    char *text = json_dumps(found, JSON_COMPACT);
    int named = text && strstr(text, "\"sentry\"") != NULL;
    free(text);
    json_decref(found);
    json_decref(args_json);
    wg_catalog_free(cat);
    if (!named)
        return 1;
    printf("libwaggle %s: sudo at yolo -> %s; crashes -> sentry\n", wg_version(), d.rule);
    return 0;
}
