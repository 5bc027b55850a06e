/* skilltrust.c - trust assessment of skill text for the service
 * (skilltrust.h). Until the trust module (waggle/trust.h) is in the tree
 * this returns NULL and routes answer "trust": null. */
#include "server/skilltrust.h"

json_t *wg_skilltrust__assess(const char *content, const char *source)
{
    (void)content;
    (void)source;
    return NULL;
}
