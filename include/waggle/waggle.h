/* waggle/waggle.h - umbrella header for libwaggle.
 *
 * libwaggle answers four questions for an AI agent before it acts: where a
 * capability could come from, whether the user's plan includes it, whether
 * the call needs a human's click, and how to run it against a real service.
 * Each module has its own header; include this one to get them all.
 */
#ifndef WAGGLE_WAGGLE_H
#define WAGGLE_WAGGLE_H

#include "waggle/export.h"

#include "waggle/error.h"
#include "waggle/version.h"
#include "waggle/types.h"
#include "waggle/datadir.h"
#include "waggle/connector.h"
#include "waggle/server.h"
#include "waggle/text.h"
#include "waggle/trust.h"
#include "waggle/skills.h"
#include "waggle/router.h"
#include "waggle/acquire.h"
#include "waggle/marker.h"
#include "waggle/plugins.h"
#include "waggle/capdeps.h"
#include "waggle/capability_tools.h"
#include "waggle/shell.h"
#include "waggle/gate.h"
#include "waggle/permissions.h"
#include "waggle/catalog.h"
#include "waggle/catalog_tools.h"
#include "waggle/store.h"
#include "waggle/vault.h"
#include "waggle/audit.h"
#include "waggle/tier.h"
#include "waggle/pool.h"
#include "waggle/token.h"
#include "waggle/time.h"
#include "waggle/autonomy.h"
#include "waggle/oauth.h"
#include "waggle/kvark.h"
#include "waggle/personas.h"
#include "waggle/marketplace.h"
#include "waggle/engine.h"

#endif
