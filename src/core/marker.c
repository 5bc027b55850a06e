/* marker.c - emitting and parsing the capability-request marker (spec 4.3;
 * original-facts 9, 12.4, 13 item 24).
 *
 * The original matched `\{[^}]+\}`, so a "}" inside reason or a nested
 * object dropped the card, and it never sanitized reason. Here the JSON is
 * read by jansson from the opening brace (it reports how many bytes it
 * consumed), the closing "-->" must follow, and reason is sanitized on both
 * emit and parse.
 */
#include "waggle/marker.h"
#include "waggle/error.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char MARKER_WORD[] = "waggle:capability_request";
static const char LEGACY_TOOL[] = "`install_capability`";

/* ---- UTF-8 --------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t k;
    unsigned min;
    unsigned cp;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0) { k = 2; cp = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { k = 3; cp = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { k = 4; cp = c & 0x07; min = 0x10000; }
    else return 0;
    if (k > n)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k;
}

static int is_space_or_ctl(unsigned char c)
{
    return c <= 0x20 || c == 0x7f;
}

/* ---- sanitize ------------------------------------------------------------ */

int wg_marker_sanitize_reason(char **out, const char *reason)
{
    if (!reason)
        reason = "";
    size_t len = strlen(reason);
    char *buf = malloc(len + 1);
    if (!buf)
        return wg_error_set(WG_ENOMEM, "out of memory");
    const unsigned char *s = (const unsigned char *)reason;
    size_t n = 0, chars = 0, i = 0;
    int pending_space = 0;
    while (i < len && chars < WG_MARKER_REASON_MAX) {
        unsigned char c = s[i];
        if (is_space_or_ctl(c)) {
            pending_space = n > 0;
            i++;
            continue;
        }
        if (c == '{' || c == '}' || c == '<' || c == '>') {
            i++;
            continue;
        }
        size_t k = utf8_len(s + i, len - i);
        if (k == 0) {
            i++;
            continue;
        }
        if (pending_space) {
            buf[n++] = ' ';
            chars++;
            pending_space = 0;
            if (chars >= WG_MARKER_REASON_MAX)
                break;
        }
        memcpy(buf + n, s + i, k);
        n += k;
        chars++;
        i += k;
    }
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
    *out = buf;
    return 0;
}

/* ---- emit ---------------------------------------------------------------- */

static int check_field(const char *what, const char *v)
{
    if (!v || !*v)
        return wg_error_set(WG_EINVAL, "marker %s is empty", what);
    size_t n = strlen(v);
    if (n > WG_MARKER_FIELD_MAX)
        return wg_error_set(WG_EINVAL, "marker %s is longer than %d bytes", what,
                            WG_MARKER_FIELD_MAX);
    const unsigned char *s = (const unsigned char *)v;
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c < 0x20 || c == 0x7f || strchr("\"\\{}<>", c))
            return wg_error_set(WG_EINVAL, "marker %s contains a forbidden character "
                                "(control, quote, backslash, { } < >)", what);
        size_t k = utf8_len(s + i, n - i);
        if (k == 0)
            return wg_error_set(WG_EINVAL, "marker %s is not valid UTF-8", what);
        i += k;
    }
    return 0;
}

int wg_marker_emit(char **out, const char *name, const char *source, const char *reason)
{
    int rc;
    if ((rc = check_field("name", name)) < 0 || (rc = check_field("source", source)) < 0)
        return rc;
    char *why = NULL;
    if ((rc = wg_marker_sanitize_reason(&why, reason)) < 0)
        return rc;
    json_t *o = json_object();
    char *js = NULL;
    if (o && json_object_set_new(o, "name", json_string(name)) == 0 &&
        json_object_set_new(o, "source", json_string(source)) == 0 &&
        json_object_set_new(o, "reason", json_string(why)) == 0)
        js = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    free(why);
    if (!js)
        return wg_error_set(WG_ENOMEM, "out of memory");
    char *line = NULL;
    if (asprintf(&line, "<!--%s %s-->\n", MARKER_WORD, js) < 0)
        line = NULL;
    free(js);
    if (!line)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = line;
    return 0;
}

/* ---- parse --------------------------------------------------------------- */

void wg_marker_list_free(wg_marker_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i].name);
        free(list->items[i].source);
        free(list->items[i].reason);
        free(list->items[i].kind);
    }
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

/* Case-insensitive: does text[at..] start with word? */
static int starts_ci(const char *text, size_t len, size_t at, const char *word)
{
    size_t n = strlen(word);
    if (at > len || len - at < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)text[at + i]) != lower((unsigned char)word[i]))
            return 0;
    return 1;
}

static size_t skip_ws(const char *t, size_t len, size_t i)
{
    while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        i++;
    return i;
}

static int already(const wg_marker_list *l, const char *name, const char *source)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->items[i].name, name) == 0 && strcmp(l->items[i].source, source) == 0)
            return 1;
    return 0;
}

/* Takes ownership of the strings (frees them when the hit is a duplicate). */
static int add_hit(wg_marker_list *l, wg_marker m)
{
    if (already(l, m.name, m.source)) {
        free(m.name);
        free(m.source);
        free(m.reason);
        free(m.kind);
        return 0;
    }
    wg_marker *grown = realloc(l->items, (l->count + 1) * sizeof *grown);
    if (!grown) {
        free(m.name);
        free(m.source);
        free(m.reason);
        free(m.kind);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    l->items = grown;
    l->items[l->count++] = m;
    return 0;
}

/* A name or source taken from text: non-empty, bounded, no control bytes. */
static int field_ok(const char *s, size_t n)
{
    if (n == 0 || n > WG_MARKER_FIELD_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return 0;
    return 1;
}

static int optional_text(char **out, json_t *v)
{
    *out = NULL;
    if (!json_is_string(v))
        return 0;
    return wg_marker_sanitize_reason(out, json_string_value(v));
}

/* Tries a marker at text[at] == '<'. On a hit fills *m and *end. 1 = hit,
 * 0 = not a marker, <0 error. */
static int try_marker(wg_marker *m, size_t *end, const char *t, size_t len, size_t at)
{
    if (!starts_ci(t, len, at, "<!--"))
        return 0;
    size_t i = skip_ws(t, len, at + 4);
    if (!starts_ci(t, len, i, MARKER_WORD))
        return 0;
    i = skip_ws(t, len, i + sizeof MARKER_WORD - 1);
    if (i >= len || t[i] != '{')
        return 0;
    /* Bounded so text full of unterminated markers stays linear. */
    size_t span = len - i < WG_MARKER_JSON_MAX ? len - i : WG_MARKER_JSON_MAX;
    json_error_t jerr;
    json_t *o = json_loadb(t + i, span, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
    if (!o)
        return 0;
    size_t j = skip_ws(t, len, i + (size_t)jerr.position);
    int hit = 0;
    json_t *name = json_object_get(o, "name"), *source = json_object_get(o, "source");
    if (json_is_object(o) && starts_ci(t, len, j, "-->") && json_is_string(name) &&
        json_is_string(source) &&
        field_ok(json_string_value(name), json_string_length(name)) &&
        field_ok(json_string_value(source), json_string_length(source)) &&
        strlen(json_string_value(name)) == json_string_length(name) &&
        strlen(json_string_value(source)) == json_string_length(source)) {
        memset(m, 0, sizeof *m);
        m->name = strdup(json_string_value(name));
        m->source = strdup(json_string_value(source));
        int rc = 0;
        if (m->name && m->source)
            rc = optional_text(&m->reason, json_object_get(o, "reason"));
        if (rc == 0 && m->name && m->source)
            rc = optional_text(&m->kind, json_object_get(o, "kind"));
        if (rc < 0 || !m->name || !m->source) {
            free(m->name);
            free(m->source);
            free(m->reason);
            free(m->kind);
            json_decref(o);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
        m->start = at;
        m->end = *end = j + 3;
        hit = 1;
    }
    json_decref(o);
    return hit;
}

/* Reads `"value"` at t[i]; returns the index after the closing quote or 0. */
static size_t quoted(const char *t, size_t len, size_t i, size_t *vs, size_t *vn)
{
    if (i >= len || t[i] != '"')
        return 0;
    size_t s = i + 1, e = s;
    while (e < len && t[e] != '"' && e - s <= WG_MARKER_FIELD_MAX)
        e++;
    if (e >= len || t[e] != '"' || !field_ok(t + s, e - s))
        return 0;
    *vs = s;
    *vn = e - s;
    return e + 1;
}

/* Requires at least one whitespace, then word (case-insensitive). */
static size_t ws_word(const char *t, size_t len, size_t i, const char *word)
{
    size_t j = skip_ws(t, len, i);
    if (j == i || !starts_ci(t, len, j, word))
        return 0;
    return j + strlen(word);
}

/* `install_capability` with name "<n>" and source "<s>" (original-facts 9). */
static int try_legacy(wg_marker *m, const char *t, size_t len, size_t at)
{
    if (!starts_ci(t, len, at, LEGACY_TOOL))
        return 0;
    size_t i = at + sizeof LEGACY_TOOL - 1, ns, nn, ss, sn;
    if (!(i = ws_word(t, len, i, "with")) || !(i = ws_word(t, len, i, "name")))
        return 0;
    size_t j = skip_ws(t, len, i);
    if (j == i || !(i = quoted(t, len, j, &ns, &nn)))
        return 0;
    if (!(i = ws_word(t, len, i, "and")) || !(i = ws_word(t, len, i, "source")))
        return 0;
    j = skip_ws(t, len, i);
    if (j == i || !(i = quoted(t, len, j, &ss, &sn)))
        return 0;
    memset(m, 0, sizeof *m);
    m->name = strndup(t + ns, nn);
    m->source = strndup(t + ss, sn);
    if (!m->name || !m->source) {
        free(m->name);
        free(m->source);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    m->start = at;
    m->end = i;
    m->legacy = 1;
    return 1;
}

int wg_marker_parse(wg_marker_list *out, const char *text, size_t len)
{
    out->items = NULL;
    out->count = 0;
    if (!text)
        return 0;
    /* One left-to-right scan: hits come out in order, and a legacy phrase
     * inside a marker is never seen because the scan resumes after it. */
    for (size_t i = 0; i < len;) {
        wg_marker m;
        size_t end = 0;
        int rc = 0;
        if (text[i] == '<')
            rc = try_marker(&m, &end, text, len, i);
        else if (text[i] == '`')
            rc = try_legacy(&m, text, len, i), end = rc == 1 ? m.end : 0;
        if (rc < 0) {
            wg_marker_list_free(out);
            return rc;
        }
        if (rc == 1) {
            if ((rc = add_hit(out, m)) < 0) {
                wg_marker_list_free(out);
                return rc;
            }
            i = end;
            continue;
        }
        i++;
    }
    return 0;
}
