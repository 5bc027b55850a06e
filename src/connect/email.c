/* email.c - the Email connector: SMTP/SMTPS through libcurl, or the
 * SendGrid v3 API (reference 1.3 row 4, 1.4; reference 13 item 15).
 *
 * Mode: SMTP when connector:email:smtp_url is set (smtps://host:465 or
 * smtp://host:587; plain smtp:// must upgrade to TLS unless the operator
 * allows plain upstreams), SendGrid otherwise (the credential is then the
 * API key). smtp_url is a setting, so only the operator sets it, and its
 * host passes the upstream policy (upstream.h) like every other upstream.
 * Headers are built here, never from raw input: addresses are validated,
 * anything with CR/LF is refused, the subject and display name travel as
 * RFC 2047 encoded words, Bcc never appears in the message. The daily send
 * limit (connector:email:max_daily, default 100) is counted in the store
 * under connector-usage:email:<UTC date> (the settings table, through the
 * seam's atomic take), reserved before each send, so it survives restarts,
 * a disconnect does not reset it, and concurrent sends never exceed it.
 */
#include "waggle/connector.h"
#include "waggle/error.h"
#include "connect/specs/specs.h"
#include "connect/rfc5322.h"
#include "connect/upstream.h"

#include <curl/curl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_RECIPIENTS = 50, MAX_BODY = 1024 * 1024,
       MAX_DAILY_MAX = 1000000 };   /* bound of the max_daily setting */

static const wg_connector_action actions[] = {
    { "send_email", "Send an email",
      JSON({"properties":{"to":{"type":["string","array"],"description":"address or list"},
            "subject":{"type":"string"},"body":{"type":"string"},
            "cc":{"type":["string","array"]},"bcc":{"type":["string","array"]},
            "html":{"type":"boolean","description":"body is HTML"}},
            "required":["to","subject","body"]}), WG_RISK_HIGH },
    { "send_template", "Send a SendGrid dynamic template",
      JSON({"properties":{"to":{"type":["string","array"]},"template_id":{"type":"string"},
            "variables":{"type":"object"}},"required":["to","template_id"]}), WG_RISK_HIGH },
    { "check_delivery", "Check the delivery status of a sent message (SendGrid)",
      JSON({"properties":{"message_id":{"type":"string"}},"required":["message_id"]}), WG_RISK_LOW },
};

/* ---- settings from the vault ------------------------------------------------ */

typedef struct {
    char *smtp_url, *smtp_user, *from_email, *from_name, *max_daily;
} settings;

static char *sub(const wg_connector_call *call, const char *key)
{
    char name[128], *v = NULL;
    if (!call->vault)
        return NULL;
    snprintf(name, sizeof name, "connector:email:%s", key);
    return call->vault->get(call->vault->ctx, name, &v, NULL) == 0 ? v : NULL;
}

static void settings_load(settings *s, const wg_connector_call *call)
{
    s->smtp_url = sub(call, "smtp_url");
    s->smtp_user = sub(call, "email");
    s->from_email = sub(call, "from_email");
    s->from_name = sub(call, "from_name");
    s->max_daily = sub(call, "max_daily");
}

static void settings_free(settings *s)
{
    free(s->smtp_url);
    free(s->smtp_user);
    free(s->from_email);
    free(s->from_name);
    free(s->max_daily);
}

/* ---- validation ------------------------------------------------------------ */

/* A plain addr-spec: no spaces, quotes, angle brackets, commas or controls. */
static int valid_address(const char *a)
{
    const char *at = strchr(a, '@');
    if (!at || at == a || !at[1] || strchr(at + 1, '@') || strlen(a) > 254)
        return 0;
    for (const unsigned char *p = (const unsigned char *)a; *p; p++)
        if (*p <= 0x20 || *p == 0x7f || strchr("<>()[]\\,;:\"", *p))
            return 0;
    return strchr(at + 1, '.') != NULL;
}

/* to/cc/bcc as an array of valid addresses (new), or NULL with *fail. */
static json_t *addresses(const json_t *v, const char *field, json_t **fail)
{
    json_t *out = json_array();
    if (!v)
        return out;
    json_t *list = json_is_string(v) ? json_pack("[O]", v) : json_incref((json_t *)v);
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) {
        const char *a = json_string_value(e);
        if (!a || !valid_address(a)) {
            *fail = wg_connector_fail("Invalid %s address%s%s", field, a ? ": " : "",
                                      a && !strpbrk(a, "\r\n") ? a : "");
            break;
        }
        json_array_append(out, e);
    }
    json_decref(list);
    if (*fail || json_array_size(out) > MAX_RECIPIENTS) {
        if (!*fail)
            *fail = wg_connector_fail("At most %d %s recipients", MAX_RECIPIENTS, field);
        json_decref(out);
        return NULL;
    }
    return out;
}

/* ---- the daily limit ----------------------------------------------------------- */

/* Reserves one send for today through the seam's atomic counter: the
 * check and the +1 are one step in the store, so concurrent sends (threads,
 * the CLI beside the server, replicas) take exactly max_daily in total.
 * Returns the new count, or -1 with *fail. */
static long reserve(const wg_connector_call *call, const settings *s, json_t **fail)
{
    long max = s->max_daily ? strtol(s->max_daily, NULL, 10) : 100;
    if (max <= 0)
        max = 100;
    char day[16], key[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(day, sizeof day, "%Y-%m-%d", &tm);
    snprintf(key, sizeof key, "connector-usage:email:%s", day);
    if (!call->vault || !call->vault->take) {
        *fail = wg_connector_fail("Email needs the store to count the daily limit");
        return -1;
    }
    long n = 0;
    int rc = call->vault->take(call->vault->ctx, key, max, &n);
    if (rc == WG_EDENIED) {
        *fail = wg_connector_fail("Daily email limit reached (%ld/day). Resets at midnight UTC.", max);
        return -1;
    }
    if (rc < 0) {
        *fail = wg_connector_fail("Cannot record the send count; not sent");
        return -1;
    }
    return n;
}

/* ---- SMTP ----------------------------------------------------------------------- */

/* RFC 2047 words of at most 75 characters (rfc5322.c); the caller already
 * refused CR/LF. An empty text stays empty. */
static char *encoded_word(const char *s)
{
    char *out = NULL;
    if (!*s)
        return strdup("");
    if (wg_mail__encoded_words(&out, s) < 0) {
        wg_error_clear();
        return NULL;
    }
    return out;
}

static void join(char **acc, const json_t *list)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) {
        char *next = NULL;
        if (asprintf(&next, "%s%s%s", *acc ? *acc : "", *acc ? ", " : "", json_string_value(e)) < 0)
            return;
        free(*acc);
        *acc = next;
    }
}

/* Body with bare LF turned into CRLF. */
static char *crlf(const char *body)
{
    size_t n = strlen(body), k = 0;
    char *o = malloc(n * 2 + 1);
    for (size_t i = 0; o && i < n; i++) {
        if (body[i] == '\n' && (i == 0 || body[i - 1] != '\r'))
            o[k++] = '\r';
        o[k++] = body[i];
    }
    if (o)
        o[k] = 0;
    return o;
}

typedef struct { const char *p; size_t left; } upload;

static size_t on_read(char *buf, size_t size, size_t n, void *ud)
{
    upload *u = ud;
    size_t len = size * n < u->left ? size * n : u->left;
    memcpy(buf, u->p, len);
    u->p += len;
    u->left -= len;
    return len;
}

static json_t *smtp_send(const wg_connector_call *call, const settings *s, const json_t *p,
                         const json_t *to, const json_t *cc, const json_t *bcc, const char *from)
{
    char *subject = encoded_word(json_string_value(json_object_get(p, "subject")));
    char *name = encoded_word(s->from_name ? s->from_name : "Waggle");
    char *body = crlf(json_string_value(json_object_get(p, "body")));
    char *to_line = NULL, *cc_line = NULL, *msg = NULL, date[64], mid[80];
    unsigned char rnd[12];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", &tm);
    randombytes_buf(rnd, sizeof rnd);
    char hex[25];
    sodium_bin2hex(hex, sizeof hex, rnd, sizeof rnd);
    snprintf(mid, sizeof mid, "<%s@waggle>", hex);
    join(&to_line, to);
    join(&cc_line, cc);
    int html = json_is_true(json_object_get(p, "html"));
    if (!subject || !name || !body || !to_line ||
        asprintf(&msg, "Date: %s\r\nFrom: %s <%s>\r\nTo: %s\r\n%s%s%sSubject: %s\r\n"
                       "Message-ID: %s\r\nMIME-Version: 1.0\r\n"
                       "Content-Type: text/%s; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n"
                       "\r\n%s\r\n",
                 date, name, from, to_line, cc_line ? "Cc: " : "", cc_line ? cc_line : "",
                 cc_line ? "\r\n" : "", subject, mid, html ? "html" : "plain", body) < 0)
        msg = NULL;
    free(subject);
    free(name);
    free(body);
    free(to_line);
    free(cc_line);
    if (!msg)
        return NULL;

    CURL *curl = curl_easy_init();
    struct curl_slist *rcpt = NULL;
    const json_t *lists[] = { to, cc, bcc };
    for (size_t l = 0; l < 3; l++) {
        size_t i;
        json_t *e;
        json_array_foreach(lists[l], i, e) {
            char *a = NULL;
            if (asprintf(&a, "<%s>", json_string_value(e)) > 0)
                rcpt = curl_slist_append(rcpt, a);
            free(a);
        }
    }
    char *mail_from = NULL;
    json_t *out = NULL;
    wg_upstream_pin pin = { 0 };
    if (curl && wg_upstream_curl(&pin, curl, s->smtp_url, WG_UPSTREAM_SMTP, call->upstream) < 0) {
        out = wg_connector_fail("SMTP: %s", wg_error_last());
    } else if (curl && rcpt && asprintf(&mail_from, "<%s>", from) > 0) {
        upload u = { msg, strlen(msg) };
        curl_easy_setopt(curl, CURLOPT_USERNAME, s->smtp_user ? s->smtp_user : from);
        curl_easy_setopt(curl, CURLOPT_PASSWORD, call->creds->token);
        curl_easy_setopt(curl, CURLOPT_MAIL_FROM, mail_from);
        curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt);
        curl_easy_setopt(curl, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(curl, CURLOPT_READDATA, &u);
        curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
        curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
        CURLcode cc_ = curl_easy_perform(curl);
        if (cc_ == CURLE_OK)
            out = wg_connector_ok(json_pack("{s:b,s:O,s:s}", "sent", 1, "to", to, "messageId", mid));
        else if (pin.guard_refused)
            out = wg_connector_fail("SMTP: connection refused by the upstream policy");
        else
            out = wg_connector_fail("SMTP send failed: %s", curl_easy_strerror(cc_));
    }
    free(mail_from);
    curl_slist_free_all(rcpt);
    curl_easy_cleanup(curl);
    wg_upstream_pin_clear(&pin);
    free(msg);
    return out;
}

/* ---- SendGrid ---------------------------------------------------------------------- */

static const wg_rest_spec sendgrid = {
    .default_base = "https://api.sendgrid.com/v3",
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "SendGrid API",
    .health_method = WG_REST_GET,
    .health_path = "/user/profile",
};

static json_t *to_objects(const json_t *list)
{
    json_t *o = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
        json_array_append_new(o, json_pack("{s:O}", "email", e));
    return o;
}

static json_t *sendgrid_post(const wg_connector_call *call, json_t *body, const json_t *to,
                             const json_t *extra)
{
    wg_rest_ctx ctx = { call, &sendgrid, NULL };
    wg_rest_response r = { 0 };
    json_t *params = json_object();
    int rc = wg_rest_call(&r, &ctx, WG_REST_POST, "/mail/send", params, NULL, body, 0);
    json_decref(params);
    json_decref(body);
    if (rc < 0)
        return wg_rest_call_failure(&ctx, rc);
    json_t *out = NULL;
    if (wg_rest_result(&out, &ctx, &r, WG_REST_RESP_JSON) == 0 &&
        json_is_true(json_object_get(out, "success"))) {
        json_t *data = json_pack("{s:b,s:O}", "sent", 1, "to", to);
        if (r.message_id)
            json_object_set_new(data, "messageId", json_string(r.message_id));
        json_object_update(data, (json_t *)extra);
        json_object_set_new(out, "data", data);
    }
    wg_rest_response_clear(&r);
    return out;
}

/* ---- actions ------------------------------------------------------------------------- */

static json_t *send_email(const wg_connector_call *call, const settings *s, const json_t *p)
{
    json_t *fail = NULL, *to, *cc = NULL, *bcc = NULL, *out = NULL;
    const char *from = s->from_email ? s->from_email : "noreply@waggle.dev";
    const char *subject = json_string_value(json_object_get(p, "subject"));
    const char *body = json_string_value(json_object_get(p, "body"));
    if (strpbrk(subject, "\r\n"))
        return wg_connector_fail("Subject may not contain line breaks");
    if (!valid_address(from) || (s->from_name && strpbrk(s->from_name, "\r\n")))
        return wg_connector_fail("Invalid sender (connector:email:from_email / from_name)");
    if (strlen(body) > MAX_BODY)
        return wg_connector_fail("Body too large (over %d bytes)", MAX_BODY);
    if (!(to = addresses(json_object_get(p, "to"), "to", &fail)) ||
        !(cc = addresses(json_object_get(p, "cc"), "cc", &fail)) ||
        !(bcc = addresses(json_object_get(p, "bcc"), "bcc", &fail)))
        goto done;
    if (json_array_size(to) == 0) {
        fail = wg_connector_fail("At least one to address is required");
        goto done;
    }
    long count = reserve(call, s, &fail);
    if (count < 0)
        goto done;
    if (s->smtp_url) {
        out = smtp_send(call, s, p, to, cc, bcc, from);
    } else {
        json_t *pers = json_pack("{s:o}", "to", to_objects(to));
        if (json_array_size(cc))
            json_object_set_new(pers, "cc", to_objects(cc));
        if (json_array_size(bcc))
            json_object_set_new(pers, "bcc", to_objects(bcc));
        json_t *req = json_pack("{s:[o],s:{s:s,s:s},s:s,s:[{s:s,s:s}]}", "personalizations", pers,
                                "from", "email", from, "name", s->from_name ? s->from_name : "Waggle",
                                "subject", subject, "content", "type",
                                json_is_true(json_object_get(p, "html")) ? "text/html" : "text/plain",
                                "value", body);
        json_t *extra = json_pack("{s:I}", "dailySendCount", (json_int_t)count);
        out = sendgrid_post(call, req, to, extra);
        json_decref(extra);
    }
    if (out && json_is_true(json_object_get(out, "success")))
        json_object_set_new(json_object_get(out, "data"), "dailySendCount", json_integer(count));
done:
    json_decref(to);
    json_decref(cc);
    json_decref(bcc);
    return out ? out : fail;
}

static json_t *send_template(const wg_connector_call *call, const settings *s, const json_t *p)
{
    if (s->smtp_url)
        return wg_connector_fail("send_template needs SendGrid (no templates over SMTP)");
    json_t *fail = NULL, *to = addresses(json_object_get(p, "to"), "to", &fail);
    const char *from = s->from_email ? s->from_email : "noreply@waggle.dev";
    if (!to)
        return fail;
    long count = json_array_size(to) ? reserve(call, s, &fail) : -1;
    if (count < 0) {
        json_decref(to);
        return fail ? fail : wg_connector_fail("At least one to address is required");
    }
    const json_t *vars = json_object_get(p, "variables");
    json_t *req = json_pack("{s:[{s:o,s:O}],s:{s:s,s:s},s:O}", "personalizations", "to",
                            to_objects(to), "dynamic_template_data",
                            json_is_object(vars) ? vars : json_object(), "from", "email", from,
                            "name", s->from_name ? s->from_name : "Waggle", "template_id",
                            json_object_get(p, "template_id"));
    json_t *extra = json_pack("{s:O,s:I}", "template", json_object_get(p, "template_id"),
                              "dailySendCount", (json_int_t)count);
    json_t *out = sendgrid_post(call, req, to, extra);
    json_decref(extra);
    json_decref(to);
    return out;
}

static json_t *check_delivery(const wg_connector_call *call, const settings *s, const json_t *p)
{
    if (s->smtp_url)
        return wg_connector_fail("check_delivery needs SendGrid (SMTP has no delivery API)");
    wg_rest_ctx ctx = { call, &sendgrid, NULL };
    wg_rest_response r = { 0 };
    int rc = wg_rest_call(&r, &ctx, WG_REST_GET, "/messages/{message_id}", p, NULL, NULL, 0);
    if (rc < 0)
        return wg_rest_call_failure(&ctx, rc);
    json_t *out = NULL;
    wg_rest_result(&out, &ctx, &r, WG_REST_RESP_JSON);
    wg_rest_response_clear(&r);
    return out;
}

static const struct {
    const char *name;
    json_t *(*fn)(const wg_connector_call *, const settings *, const json_t *);
} handlers[] = {
    { "send_email", send_email },
    { "send_template", send_template },
    { "check_delivery", check_delivery },
};

static int email_execute(json_t **out, const wg_connector_call *call,
                         const wg_connector_action *action, const json_t *params)
{
    settings s = { 0 };
    settings_load(&s, call);
    *out = NULL;
    for (size_t i = 0; i < COUNT(handlers); i++)
        if (strcmp(handlers[i].name, action->name) == 0)
            *out = handlers[i].fn(call, &s, params);
    if (!*out)
        *out = wg_connector_fail("Unknown action: %s", action->name);
    settings_free(&s);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static int email_health(char **error, const wg_connector_call *call)
{
    settings s = { 0 };
    settings_load(&s, call);
    int rc = 0;
    if (s.smtp_url) {
        /* connect, EHLO, authenticate and quit, without sending */
        CURL *curl = curl_easy_init();
        wg_upstream_pin pin = { 0 };
        if (!curl) {
            *error = strdup("SMTP: out of memory");
            rc = WG_ENOMEM;
        } else if ((rc = wg_upstream_curl(&pin, curl, s.smtp_url, WG_UPSTREAM_SMTP,
                                          call->upstream)) < 0) {
            *error = NULL;
            if (asprintf(error, "SMTP: %s", wg_error_last()) < 0)
                *error = NULL;
            rc = WG_EUPSTREAM;
        } else {
            curl_easy_setopt(curl, CURLOPT_USERNAME, s.smtp_user ? s.smtp_user : s.from_email);
            curl_easy_setopt(curl, CURLOPT_PASSWORD, call->creds->token);
            curl_easy_setopt(curl, CURLOPT_CONNECT_ONLY, 1L);
            curl_easy_setopt(curl, CURLOPT_TIMEOUT, 5L);
            curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
            CURLcode cc = curl_easy_perform(curl);
            if (cc != CURLE_OK) {
                *error = NULL;
                if (asprintf(error, "SMTP: %s", pin.guard_refused
                                                    ? "connection refused by the upstream policy"
                                                    : curl_easy_strerror(cc)) < 0)
                    *error = NULL;
                rc = WG_EUPSTREAM;
            }
        }
        curl_easy_cleanup(curl);
        wg_upstream_pin_clear(&pin);
    } else {
        wg_connector_spec spec = *call->spec;
        spec.impl = &sendgrid;
        wg_connector_call c2 = *call;
        c2.spec = &spec;
        rc = wg_rest_ops.health(error, &c2);
    }
    settings_free(&s);
    return rc;
}

static const wg_connector_ops ops = { .execute = email_execute, .health = email_health };

static const char *const settings_names[] = { "smtp_url", "from_email", "from_name", "max_daily",
                                               NULL };
static const wg_connector_number_setting number_settings[] = {
    { "max_daily", 1, MAX_DAILY_MAX }, { NULL, 0, 0 },
};

const wg_connector_spec wg_spec_email = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "email",
    .name = "Email",
    .description = "Send email over SMTP/SMTPS or the SendGrid API, with a daily send limit",
    .service = "smtp",
    .auth_type = WG_AUTH_API_KEY,
    .category = "communication",
    .logo_slug = "maildotru",
    .setup_guide = "For SMTP: connect with the account password (or app password), your login "
                   "as email, and set connector:email:smtp_url (smtps://smtp.example.com:465). "
                   "Without smtp_url the credential is a SendGrid API key.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &ops,
    .settings = settings_names,
    .number_settings = number_settings,
};
