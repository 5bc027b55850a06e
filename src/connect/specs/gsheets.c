/* gsheets.c - Google Sheets (reference 1.3 row 25, 1.4) on the Sheets API
 * v4 (developers.google.com/sheets/api/reference/rest), signing in through
 * the shared Google connection. A range such as "Sheet1!A1:B2" is one
 * encoded path segment; values are a 2-D array of at most
 * WG_SHEETS_CELLS_MAX cells; valueInputOption is RAW or USER_ENTERED. */
#include "specs.h"
#include "google.h"

#include <string.h>

enum { WG_SHEETS_CELLS_MAX = 100000 };

static int prepare_values(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_create(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

#define VALUES_PROPS                                                                       \
    "\"spreadsheetId\":{\"type\":\"string\"},\"range\":{\"type\":\"string\","               \
    "\"description\":\"A1 notation, e.g. Sheet1!A1:C10\"},"                                \
    "\"values\":{\"type\":\"array\",\"items\":{\"type\":\"array\"},\"description\":"        \
    "\"rows of cells\"},\"valueInputOption\":{\"type\":\"string\",\"description\":"         \
    "\"USER_ENTERED (default) or RAW\"}"

static const wg_connector_action actions[] = {
    { "get_spreadsheet", "Get a spreadsheet's properties and sheets",
      JSON({"properties":{"spreadsheetId":{"type":"string"}},"required":["spreadsheetId"]}),
      WG_RISK_LOW },
    { "get_values", "Read the cells of a range",
      JSON({"properties":{"spreadsheetId":{"type":"string"},"range":{"type":"string"},
            "majorDimension":{"type":"string","description":"ROWS or COLUMNS"}},
            "required":["spreadsheetId","range"]}), WG_RISK_LOW },
    { "update_values", "Write cells of a range",
      "{\"properties\":{" VALUES_PROPS "},\"required\":[\"spreadsheetId\",\"range\",\"values\"]}",
      WG_RISK_MEDIUM },
    { "append_values", "Append rows after a range's table",
      "{\"properties\":{" VALUES_PROPS "},\"required\":[\"spreadsheetId\",\"range\",\"values\"]}",
      WG_RISK_MEDIUM },
    { "create_spreadsheet", "Create a spreadsheet",
      JSON({"properties":{"title":{"type":"string"},
            "sheetTitles":{"type":"array","items":{"type":"string"},
                           "description":"default [\"Sheet1\"]"}},"required":["title"]}),
      WG_RISK_MEDIUM },
};

static const wg_rest_action rest_actions[] = {
    { .name = "get_spreadsheet", .method = WG_REST_GET, .path = "/spreadsheets/{spreadsheetId}" },
    { .name = "get_values", .method = WG_REST_GET,
      .path = "/spreadsheets/{spreadsheetId}/values/{range}", .query = "majorDimension" },
    { .name = "update_values", .method = WG_REST_PUT,
      .path = "/spreadsheets/{spreadsheetId}/values/{range}",
      .query = "valueInputOption=USER_ENTERED", .prepare = prepare_values,
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"range":"$range","majorDimension":"ROWS","values":"$values"}) },
    { .name = "append_values", .method = WG_REST_POST,
      .path = "/spreadsheets/{spreadsheetId}/values/{range}:append",
      .query = "valueInputOption=USER_ENTERED", .prepare = prepare_values,
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"range":"$range","majorDimension":"ROWS","values":"$values"}) },
    { .name = "create_spreadsheet", .method = WG_REST_POST, .path = "/spreadsheets",
      .prepare = prepare_create, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"properties":{"title":"$title"},"sheets":"$sheets"}) },
};

/* values: rows (arrays) of scalars, WG_SHEETS_CELLS_MAX cells at most. */
static int prepare_values(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    const char *opt = json_string_value(json_object_get(params, "valueInputOption"));
    if (opt && strcmp(opt, "RAW") && strcmp(opt, "USER_ENTERED"))
        return wg_error_set(WG_EINVAL, "valueInputOption must be RAW or USER_ENTERED");
    size_t cells = 0, i, k;
    json_t *row, *cell;
    json_array_foreach(json_object_get(params, "values"), i, row) {
        if (!json_is_array(row))
            return wg_error_set(WG_EINVAL, "values must be an array of rows (arrays)");
        json_array_foreach(row, k, cell) {
            if (json_is_object(cell) || json_is_array(cell))
                return wg_error_set(WG_EINVAL, "a cell must be a string, number, boolean or null");
            if (++cells > WG_SHEETS_CELLS_MAX)
                return wg_error_set(WG_EINVAL, "more than %d cells", WG_SHEETS_CELLS_MAX);
        }
    }
    *out = json_deep_copy(params);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static int prepare_create(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    json_t *sheets = json_array(), *titles = json_object_get(params, "sheetTitles");
    size_t i;
    json_t *t;
    json_array_foreach(titles, i, t) {
        if (!json_is_string(t) || i >= WG_GOOGLE_LIST_MAX) {
            json_decref(sheets);
            return wg_error_set(WG_EINVAL, "sheetTitles must be at most %d strings",
                                WG_GOOGLE_LIST_MAX);
        }
        json_array_append_new(sheets, json_pack("{s:{s:O}}", "properties", "title", t));
    }
    if (!json_array_size(sheets))
        json_array_append_new(sheets, json_pack("{s:{s:s}}", "properties", "title", "Sheet1"));
    json_t *p = json_deep_copy(params);
    json_object_set_new(p, "sheets", sheets);
    *out = p;
    return p ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static const wg_rest_base bases[] = {
    { "drive", "https://www.googleapis.com/drive/v3" },
    { NULL, NULL },
};

static const wg_rest_spec rest = {
    .default_base = "https://sheets.googleapis.com/v4",
    .override_origin = 1,
    .bases = bases,
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Google Sheets API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/about?fields=user",
    .health_base = "drive",
};

const wg_connector_spec wg_spec_gsheets = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "gsheets",
    .name = "Google Sheets",
    .description = "Read and write Google Sheets cells and create spreadsheets",
    .service = "sheets.google.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "data",
    .logo_slug = "googlesheets",
    .setup_guide = WG_GOOGLE_SETUP_GUIDE,
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .oauth_provider = "google",
    .connection = "google",
    .oauth_scopes = "https://www.googleapis.com/auth/spreadsheets "
                    "https://www.googleapis.com/auth/drive.metadata.readonly",
};
