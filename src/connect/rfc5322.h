/* rfc5322.h - internet messages built safely (internal to src/connect).
 *
 * Gmail's messages.send takes a whole RFC 5322 message (base64url); the
 * original spliced to/cc/bcc/subject into header lines, so a subject
 * "Hi\r\nBcc: x@evil" added a recipient (reference 13 item 11). Here every
 * header value is checked or encoded before it meets a header line:
 *   - addresses: "local@domain" or "Display Name <local@domain>", the
 *     local part a dot-atom, the domain LDH labels; a display name is
 *     quoted (ASCII) or RFC 2047-encoded (non-ASCII); one address per
 *     folded line; at most WG_MAIL_RECIPIENTS_MAX in all;
 *   - the subject: control characters (CR, LF, TAB, ...) refused; ASCII as
 *     is, anything else as RFC 2047 "=?UTF-8?B?...?=" words of at most 75
 *     characters, split on UTF-8 character boundaries, folded;
 *   - the body: UTF-8, Content-Transfer-Encoding base64 in 76-character
 *     lines, so no line of it can be read as a header or a boundary.
 * Pure functions: no I/O, reentrant.
 */
#ifndef WG_CONNECT_RFC5322_H
#define WG_CONNECT_RFC5322_H

#include <stddef.h>

enum {
    WG_MAIL_RECIPIENTS_MAX = 100,   /* to + cc + bcc */
    WG_MAIL_ADDRESS_MAX = 254,      /* one address (RFC 5321 4.5.3.1.3) */
    WG_MAIL_NAME_MAX = 200,         /* one display name, bytes */
    WG_MAIL_SUBJECT_MAX = 900,      /* bytes of subject text */
    WG_MAIL_BODY_MAX = 1 << 20,     /* bytes of body */
    WG_MAIL_WORD_MAX = 75,          /* RFC 2047 2: an encoded-word's length */
};

typedef struct wg_mail {
    const char *from;        /* an address list of one, or NULL (Gmail fills it in) */
    const char *to;          /* comma-separated address list; required */
    const char *cc, *bcc;    /* or NULL */
    const char *subject;     /* required (may be empty) */
    const char *body;        /* required (may be empty) */
    int html;                /* text/html instead of text/plain */
} wg_mail;

/* The message, CRLF line endings, in *out (new, NUL-terminated; *len its
 * length). Returns 0, WG_EINVAL (the message names the field and why:
 * "to: 'x' is not an email address", "subject may not contain control
 * characters"), WG_ENOMEM. */
int wg_mail__build(char **out, size_t *len, const wg_mail *m);

/* The RFC 2047 form of a header text that needs one (non-ASCII), or a copy
 * when it is printable ASCII. *out new. Returns 0, WG_EINVAL (control
 * characters), WG_ENOMEM. Words are joined by CRLF SP (folded). */
int wg_mail__header_text(char **out, const char *text);

/* text as RFC 2047 "=?UTF-8?B?...?=" words, always (also for ASCII), each
 * at most WG_MAIL_WORD_MAX characters and ending on a UTF-8 character,
 * joined by CRLF SP. *out new. Returns 0, WG_EINVAL (control characters),
 * WG_ENOMEM. */
int wg_mail__encoded_words(char **out, const char *text);

/* 1 when a[0..n) is a plain address local@domain: a dot-atom local part
 * (1..64) and LDH labels, WG_MAIL_ADDRESS_MAX bytes at most. */
int wg_mail__address_ok(const char *a, size_t n);

/* base64url without padding (RFC 4648 5), as Gmail's raw field wants it.
 * *out new. Returns 0 or WG_ENOMEM. */
int wg_mail__base64url(char **out, const char *data, size_t len);

#endif
