/* graph.h - what the four Microsoft 365 connectors share (ms-teams,
 * outlook, onedrive, onenote): Microsoft Graph v1.0, one OAuth2 connection
 * named "microsoft" (waggle/oauth.h; each connector still reads its own
 * connector:<id> first), @odata.nextLink paging, and the escaping of values
 * that go into OData query options and function parameters. */
#ifndef WG_CONNECT_SPECS_GRAPH_H
#define WG_CONNECT_SPECS_GRAPH_H

#include "specs.h"

enum {
    WG_GRAPH_TEXT_MAX = 1024,      /* bytes of free text in $filter/$search/search(q=) */
    WG_GRAPH_RECIPIENTS_MAX = 100, /* to + cc + bcc, attendees */
    WG_GRAPH_BODY_MAX = 1 << 20,   /* message, event and page bodies */
};

#define WG_GRAPH_BASE "https://graph.microsoft.com/v1.0"

#define WG_GRAPH_PAGES { WG_REST_PAGE_LINK, "value", "@odata.nextLink", NULL, NULL, NULL }

#define WG_GRAPH_SETUP_GUIDE                                                                 \
    "One Microsoft sign-in serves Teams, Outlook, OneDrive and OneNote: register an app in "  \
    "Microsoft Entra ID (mobile and desktop redirect http://127.0.0.1), then run `waggle "    \
    "connectors oauth microsoft --client-id ID [--tenant T]`. A bearer access token "         \
    "connected for one connector alone also works, without refresh."

/* An OData string literal: 'text' with every ' doubled (OData ABNF
 * SQUOTE-in-string). *out new. Returns 0, WG_EINVAL (control characters,
 * over WG_GRAPH_TEXT_MAX bytes), WG_ENOMEM. */
int wg_graph__odata_literal(char **out, const char *text);

/* A $search phrase: "text" with \ and " escaped by a backslash (Graph
 * "Use the $search query parameter"). Same errors. */
int wg_graph__search_phrase(char **out, const char *text);

/* Checks an address for Graph's emailAddress objects (rfc5322 rules for
 * local@domain). 1 when fine. */
int wg_graph__address_ok(const char *a);

/* [{emailAddress:{address}}] (plus "type" when type is non-NULL) for a JSON
 * array of address strings, at most WG_GRAPH_RECIPIENTS_MAX in all (count
 * is raised). *out new, NULL for an absent list. Returns 0 or WG_EINVAL. */
int wg_graph__recipients(json_t **out, const json_t *list, const char *type, size_t *count,
                         const char *field);

/* {contentType, content} for a body; contentType "text" unless the caller
 * asked for "html" (HTML from an agent can carry tracking images: text is
 * the default). Returns 0 or WG_EINVAL. */
int wg_graph__item_body(json_t **out, const json_t *content, const json_t *content_type);

#endif
