/* email.c - the Email connector: SendGrid requests against the replay
 * server, SMTP against a local sink. Headers cannot be injected (subject,
 * addresses), Bcc stays out of the message, and the daily limit lives in
 * the store: it survives a restart and a disconnect (reference 13 item 15). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "connect_fixture.h"
#include "connect_replay.h"
#include "connect_smtp_sink.h"

Test(connect_email, sendgrid_actions_send_the_documented_request)
{
    int ran = 0;
    int failures = wgt_connect_run_service("email", &ran);
    cr_assert_eq(failures, 0, "%d of %d email cases failed (see stderr)", failures, ran);
}

static wgt_smtp *sink;
static wgt_connect f;

static void set(const char *key, const char *value)
{
    char name[128];
    snprintf(name, sizeof name, "connector:email:%s", key);
    cr_assert_eq(f.vault->set(f.vault->ctx, name, value, NULL), 0);
}

static void smtp_setup(void)
{
    sink = wgt_smtp_start();
    cr_assert_not_null(sink);
    wgt_connect_open(&f, "email", "app-password-123", 0);
    char url[64];
    snprintf(url, sizeof url, "smtp://127.0.0.1:%d", wgt_smtp_port(sink));
    set("smtp_url", url);
    set("email", "me@example.com");
    set("from_email", "me@example.com");
    set("from_name", "Waggle \"Bot\"");
    set("max_daily", "2");
}

static void smtp_teardown(void)
{
    wgt_connect_close(&f);
    wgt_smtp_stop(sink);
}

TestSuite(connect_email_smtp, .init = smtp_setup, .fini = smtp_teardown);

Test(connect_email_smtp, sends_with_bcc_only_in_the_envelope)
{
    wgt_connect_call(&f, "connector_email_send_email",
                     "{\"to\":[\"ada@example.com\"],\"cc\":\"bob@example.com\",\"bcc\":\"carol@example.com\","
                     "\"subject\":\"Größe \\\"Q3\\\"\",\"body\":\"line one\\n.\\nafter a dot line\"}");
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    json_t *msgs = wgt_smtp_messages(sink);
    cr_assert_eq(json_array_size(msgs), 1);
    json_t *m = json_array_get(msgs, 0);
    const char *data = json_string_value(json_object_get(m, "data"));
    cr_assert_str_eq(json_string_value(json_object_get(m, "from")), "<me@example.com>");
    cr_assert_eq(json_array_size(json_object_get(m, "rcpt")), 3);
    cr_assert(strstr(data, "To: ada@example.com\r\n"));
    cr_assert(strstr(data, "Cc: bob@example.com\r\n"));
    cr_assert_null(strstr(data, "carol@example.com"), "Bcc must not appear in the message");
    cr_assert(strstr(data, "Subject: =?UTF-8?B?"), "subject is an encoded word");
    cr_assert(strstr(data, "\r\n.\r\nafter a dot line"), "dot line survives: %s", data);
    cr_assert(strstr(json_string_value(json_object_get(m, "auth")), "me@example.com"));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(f.last, "data"), "dailySendCount")), 1);
    json_decref(msgs);
}

Test(connect_email_smtp, header_injection_is_refused_and_nothing_is_sent)
{
    static const char *const attempts[] = {
        "{\"to\":\"ada@example.com\",\"subject\":\"Hi\\r\\nBcc: spy@evil.example\",\"body\":\"x\"}",
        "{\"to\":\"ada@example.com\\r\\nBcc: spy@evil.example\",\"subject\":\"Hi\",\"body\":\"x\"}",
        "{\"to\":\"ada@example.com>, <spy@evil.example\",\"subject\":\"Hi\",\"body\":\"x\"}",
        "{\"to\":\"ada@example.com\",\"cc\":[\"ok@example.com\",\"bad address@x.com\"],\"subject\":\"Hi\",\"body\":\"x\"}",
    };
    for (size_t i = 0; i < sizeof attempts / sizeof *attempts; i++) {
        wgt_connect_call(&f, "connector_email_send_email", attempts[i]);
        cr_assert(!wgt_connect_ok(&f), "%s was sent", attempts[i]);
    }
    json_t *msgs = wgt_smtp_messages(sink);
    cr_assert_eq(json_array_size(msgs), 0);
    json_decref(msgs);
}

Test(connect_email_smtp, daily_limit_survives_restart_and_disconnect)
{
    const char *args = "{\"to\":\"ada@example.com\",\"subject\":\"s\",\"body\":\"b\"}";
    wgt_connect_call(&f, "connector_email_send_email", args);
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    wgt_connect_call(&f, "connector_email_send_email", args);
    cr_assert(wgt_connect_ok(&f));
    wgt_connect_call(&f, "connector_email_send_email", args);
    cr_assert_str_eq(wgt_connect_error(&f), "Daily email limit reached (2/day). Resets at midnight UTC.");

    /* a restart: a new registry on the same store */
    wg_registry_free(f.reg);
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                              .vault = f.vault, .allow_private_upstreams = 1,
                              .allow_http_upstreams = 1 };
    cr_assert_eq(wg_registry_new(&f.reg, &o), 0);
    wgt_connect_call(&f, "connector_email_send_email", args);
    cr_assert(strstr(wgt_connect_error(&f), "Daily email limit reached"));

    /* disconnect and connect again: the counter is not a connector sub-key */
    json_t *d = NULL;
    cr_assert_eq(wg_registry_disconnect(&d, f.reg, "email"), 0);
    json_decref(d);
    wg_connect_request req = { .token = "app-password-123" };
    cr_assert_eq(wg_registry_connect(f.reg, "email", &req), 0);
    char url[64];
    snprintf(url, sizeof url, "smtp://127.0.0.1:%d", wgt_smtp_port(sink));
    set("smtp_url", url);
    set("max_daily", "2");
    wgt_connect_call(&f, "connector_email_send_email", args);
    cr_assert(strstr(wgt_connect_error(&f), "Daily email limit reached"));
    json_t *msgs = wgt_smtp_messages(sink);
    cr_assert_eq(json_array_size(msgs), 2);
    json_decref(msgs);
}

Test(connect_email_smtp, templates_and_delivery_need_sendgrid)
{
    wgt_connect_call(&f, "connector_email_send_template", "{\"to\":\"a@example.com\",\"template_id\":\"d-1\"}");
    cr_assert(strstr(wgt_connect_error(&f), "needs SendGrid"));
    wgt_connect_call(&f, "connector_email_check_delivery", "{\"message_id\":\"x\"}");
    cr_assert(strstr(wgt_connect_error(&f), "needs SendGrid"));
}
