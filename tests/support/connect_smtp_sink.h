/* connect_smtp_sink.h - a tiny SMTP server on 127.0.0.1 for email tests.
 * It speaks EHLO/HELO, AUTH PLAIN/LOGIN (accepts any), MAIL, RCPT, DATA,
 * RSET, NOOP, QUIT, one session at a time, and records every message. */
#ifndef WGT_CONNECT_SMTP_SINK_H
#define WGT_CONNECT_SMTP_SINK_H

#include <jansson.h>

typedef struct wgt_smtp wgt_smtp;

wgt_smtp *wgt_smtp_start(void);     /* NULL on failure */
void wgt_smtp_stop(wgt_smtp *s);
int wgt_smtp_port(const wgt_smtp *s);

/* New array of {from, rcpt:[…], data, auth} (auth: the decoded AUTH
 * PLAIN/LOGIN user, or null). */
json_t *wgt_smtp_messages(wgt_smtp *s);

#endif
