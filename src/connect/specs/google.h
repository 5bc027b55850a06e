/* google.h - what the five Google connectors share (gcal, gmail, gdocs,
 * gdrive, gsheets): one OAuth2 connection named "google" (waggle/oauth.h;
 * each connector still reads its own connector:<id> first), the setup
 * guide, Drive's query-language escaping, and the bounds on lists the
 * agent sends. */
#ifndef WG_CONNECT_SPECS_GOOGLE_H
#define WG_CONNECT_SPECS_GOOGLE_H

#include "specs.h"

enum {
    WG_GOOGLE_LIST_MAX = 100,    /* attendees, calendars, labels, parents per call */
    WG_GOOGLE_BUSY_MAX = 2000,   /* busy spans find_free_time reasons about */
    WG_GOOGLE_QUERY_MAX = 1024,  /* bytes of free text put into a Drive `q` */
};

#define WG_GOOGLE_SETUP_GUIDE                                                               \
    "One Google sign-in serves Calendar, Gmail, Docs, Drive and Sheets: create an OAuth "    \
    "client (Desktop app) in the Google Cloud console, then run `waggle connectors oauth "   \
    "google --client-id ID` (the client secret is read from stdin). A bearer access token "  \
    "connected for one connector alone also works, without refresh."

/* A Drive query string literal for text: 'text' with \ and ' escaped by a
 * backslash (Drive API "Search query terms and operators"). *out new.
 * Returns 0, WG_EINVAL (control characters, over WG_GOOGLE_QUERY_MAX
 * bytes), WG_ENOMEM. */
int wg_google__drive_literal(char **out, const char *text);

#endif
