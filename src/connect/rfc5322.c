/* rfc5322.c - internet messages built safely (rfc5322.h). Every value is
 * checked before it is placed on a header line; what cannot be checked
 * (free text) is encoded (RFC 2047 words, base64 bodies). Linear in the
 * input; every loop is bounded by the field's limit. */
#include "connect/rfc5322.h"
#include "waggle/error.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Messages are written to an open_memstream: a FILE that grows in memory. */

static void put(FILE *b, const char *s, size_t n) { fwrite(s, 1, n, b); }

static void puts_(FILE *b, const char *s) { fputs(s, b); }

/* Ends a memstream and hands over its text (new) in *out; ENOMEM when the
 * stream failed. */
static int close_stream(FILE *b, char **buf, size_t *len, char **out, size_t *out_len)
{
    int bad = ferror(b);
    fclose(b);
    if (bad || !*buf) {
        free(*buf);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    *out = *buf;
    if (out_len)
        *out_len = *len;
    return 0;
}

/* ---- RFC 2047 words ---------------------------------------------------------- */

static int has_ctl(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return 1;
    return 0;
}

static int ascii(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return 0;
    return 1;
}

/* Bytes of the UTF-8 sequence starting with lead byte c (1 for a stray
 * continuation byte, so a malformed text still advances). */
static size_t seq_len(unsigned char c)
{
    return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* "=?UTF-8?B?" + base64 + "?=": 12 characters around the base64, so a word
 * of at most 75 holds 63 base64 characters: 45 bytes of text (60 chars). */
enum { WORD_BYTES = (WG_MAIL_WORD_MAX - 12) / 4 * 3 };

static void encoded_words(FILE *b, const char *s, size_t n)
{
    size_t i = 0;
    int first = 1;
    while (i < n) {
        size_t take = 0;
        while (i + take < n) {
            size_t k = seq_len((unsigned char)s[i + take]);
            if (i + take + k > n)
                k = n - i - take;
            if (take + k > WORD_BYTES)
                break;
            take += k;
        }
        if (!take)
            take = n - i < WORD_BYTES ? n - i : WORD_BYTES;
        char b64[WG_MAIL_WORD_MAX];
        sodium_bin2base64(b64, sizeof b64, (const unsigned char *)s + i, take,
                          sodium_base64_VARIANT_ORIGINAL);
        if (!first)
            puts_(b, "\r\n ");
        puts_(b, "=?UTF-8?B?");
        puts_(b, b64);
        puts_(b, "?=");
        first = 0;
        i += take;
    }
}

/* text as a header value: as is when ASCII and !always, else as words. */
static int header_value(char **out, const char *text, int always)
{
    size_t n = strlen(text);
    if (has_ctl(text, n))
        return wg_error_set(WG_EINVAL, "header text may not contain control characters");
    char *buf = NULL;
    size_t len = 0;
    FILE *b = open_memstream(&buf, &len);
    if (!b)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (!always && ascii(text, n))
        put(b, text, n);
    else
        encoded_words(b, text, n);
    return close_stream(b, &buf, &len, out, NULL);
}

int wg_mail__header_text(char **out, const char *text) { return header_value(out, text, 0); }

int wg_mail__encoded_words(char **out, const char *text) { return header_value(out, text, 1); }

/* ---- addresses -------------------------------------------------------------- */

static int atext(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-/=?^_`{|}~", c) != NULL);
}

/* local@domain: a dot-atom local part (1..64) and LDH labels (1..63 each),
 * at most WG_MAIL_ADDRESS_MAX in all. */
int wg_mail__address_ok(const char *a, size_t n)
{
    if (!n || n > WG_MAIL_ADDRESS_MAX)
        return 0;
    const char *at = memchr(a, '@', n);
    if (!at || memchr(at + 1, '@', n - (size_t)(at - a) - 1))
        return 0;
    size_t ll = (size_t)(at - a), dl = n - ll - 1;
    if (!ll || ll > 64 || !dl || a[0] == '.' || a[ll - 1] == '.')
        return 0;
    for (size_t i = 0; i < ll; i++)
        if (!(atext((unsigned char)a[i]) || (a[i] == '.' && a[i + 1] != '.')))
            return 0;
    const char *d = at + 1;
    size_t label = 0;
    for (size_t i = 0; i < dl; i++) {
        char c = d[i];
        if (c == '.') {
            if (!label || d[i - 1] == '-')
                return 0;
            label = 0;
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   (c == '-' && label)) {
            if (++label > 63)
                return 0;
        } else {
            return 0;
        }
    }
    return label > 0 && d[dl - 1] != '-';
}

static const char *trim(const char *s, size_t *n)
{
    while (*n && (*s == ' ' || *s == '\t'))
        s++, (*n)--;
    while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t'))
        (*n)--;
    return s;
}

/* Appends one mailbox ("addr" or "Name <addr>") to b, checked. */
static int mailbox(FILE *b, const char *field, const char *s, size_t n)
{
    if (has_ctl(s, n))
        return wg_error_set(WG_EINVAL, "%s: an address may not contain control characters",
                            field);
    s = trim(s, &n);
    const char *lt = memchr(s, '<', n);
    if (!lt) {
        if (!wg_mail__address_ok(s, n))
            return wg_error_set(WG_EINVAL, "%s: '%.*s' is not an email address", field,
                                (int)(n > 80 ? 80 : n), s);
        put(b, s, n);
        return 0;
    }
    /* "Name <addr>": the address is everything between < and a final > */
    if (s[n - 1] != '>')
        return wg_error_set(WG_EINVAL, "%s: '%.*s' is not an email address", field,
                            (int)(n > 80 ? 80 : n), s);
    const char *addr = lt + 1;
    size_t al = n - (size_t)(addr - s) - 1;
    size_t nl = (size_t)(lt - s);
    const char *name = trim(s, &nl);
    if (!wg_mail__address_ok(addr, al))
        return wg_error_set(WG_EINVAL, "%s: '%.*s' is not an email address", field,
                            (int)(al > 80 ? 80 : al), addr);
    if (nl > WG_MAIL_NAME_MAX)
        return wg_error_set(WG_EINVAL, "%s: a display name is longer than %d bytes", field,
                            WG_MAIL_NAME_MAX);
    for (size_t i = 0; i < nl; i++)
        if (name[i] == '"' || name[i] == '\\' || name[i] == '<' || name[i] == '>')
            return wg_error_set(WG_EINVAL, "%s: a display name may not contain \" \\ < or >",
                                field);
    if (nl && ascii(name, nl)) {
        put(b, "\"", 1);
        put(b, name, nl);
        put(b, "\" ", 2);
    } else if (nl) {
        encoded_words(b, name, nl);
        put(b, " ", 1);
    }
    put(b, "<", 1);
    put(b, addr, al);
    put(b, ">", 1);
    return 0;
}

/* "Field: a,\r\n b\r\n" for a comma-separated list; *count is raised by the
 * number of mailboxes. */
static int address_header(FILE *b, const char *field, const char *list, size_t *count,
                          int required)
{
    if (!list || !*trim(list, &(size_t){ strlen(list) })) {
        if (required)
            return wg_error_set(WG_EINVAL, "%s: at least one address is required", field);
        return 0;
    }
    char lower[16];
    snprintf(lower, sizeof lower, "%s", field);
    lower[0] = (char)(lower[0] | 0x20);
    puts_(b, field);
    puts_(b, ": ");
    const char *p = list;
    for (int first = 1;; first = 0) {
        size_t n = strcspn(p, ",");
        size_t tn = n;
        trim(p, &tn);
        if (tn) {
            if (++*count > WG_MAIL_RECIPIENTS_MAX)
                return wg_error_set(WG_EINVAL, "more than %d recipients",
                                    WG_MAIL_RECIPIENTS_MAX);
            if (!first)
                puts_(b, ",\r\n ");
            int rc = mailbox(b, lower, p, n);
            if (rc < 0)
                return rc;
        } else if (!first || p[n]) {
            return wg_error_set(WG_EINVAL, "%s: an empty address in the list", lower);
        }
        if (!p[n])
            break;
        p += n + 1;
    }
    puts_(b, "\r\n");
    return 0;
}

/* ---- the message --------------------------------------------------------------- */

int wg_mail__build(char **out, size_t *len, const wg_mail *m)
{
    *out = NULL;
    if (!m || !m->subject || !m->body)
        return wg_error_set(WG_EINVAL, "a subject and a body are required");
    size_t sl = strlen(m->subject), bl = strlen(m->body);
    if (sl > WG_MAIL_SUBJECT_MAX)
        return wg_error_set(WG_EINVAL, "subject: longer than %d bytes", WG_MAIL_SUBJECT_MAX);
    if (has_ctl(m->subject, sl))
        return wg_error_set(WG_EINVAL, "subject: may not contain control characters "
                            "(line breaks would start new header lines)");
    if (bl > WG_MAIL_BODY_MAX)
        return wg_error_set(WG_EINVAL, "body: longer than %d bytes", WG_MAIL_BODY_MAX);
    char *buf = NULL;
    size_t blen = 0;
    FILE *b = open_memstream(&buf, &blen);
    if (!b)
        return wg_error_set(WG_ENOMEM, "out of memory");
    size_t count = 0, from_count = 0;
    int rc = 0;
    if (m->from && (rc = address_header(b, "From", m->from, &from_count, 1)) == 0 &&
        from_count != 1)
        rc = wg_error_set(WG_EINVAL, "from: exactly one address");
    if (rc == 0)
        rc = address_header(b, "To", m->to, &count, 1);
    if (rc == 0)
        rc = address_header(b, "Cc", m->cc, &count, 0);
    if (rc == 0)
        rc = address_header(b, "Bcc", m->bcc, &count, 0);
    if (rc < 0) {
        fclose(b);
        free(buf);
        return rc;
    }
    puts_(b, "Subject: ");
    if (ascii(m->subject, sl))
        put(b, m->subject, sl);
    else
        encoded_words(b, m->subject, sl);
    puts_(b, "\r\nMIME-Version: 1.0\r\nContent-Type: text/");
    puts_(b, m->html ? "html" : "plain");
    puts_(b, "; charset=\"UTF-8\"\r\nContent-Transfer-Encoding: base64\r\n\r\n");
    /* base64 in 76-character lines: 57 bytes each */
    for (size_t i = 0; i < bl; i += 57) {
        size_t take = bl - i < 57 ? bl - i : 57;
        char line[80];
        sodium_bin2base64(line, sizeof line, (const unsigned char *)m->body + i, take,
                          sodium_base64_VARIANT_ORIGINAL);
        puts_(b, line);
        puts_(b, "\r\n");
    }
    return close_stream(b, &buf, &blen, out, len);
}

int wg_mail__base64url(char **out, const char *data, size_t len)
{
    size_t el = sodium_base64_encoded_len(len, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    char *o = malloc(el);
    if (!o)
        return wg_error_set(WG_ENOMEM, "out of memory");
    sodium_bin2base64(o, el, (const unsigned char *)data, len,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    *out = o;
    return 0;
}
