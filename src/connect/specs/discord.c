/* discord.c - the Discord connector as data (reference 1.3 row 6, 1.4).
 * Bot token ("Authorization: Bot …") against discord.com/api/v10; guild and
 * channel ids are encoded path segments (reference 13 item 11). */
#include "specs.h"

static const wg_connector_action actions[] = {
    { "list_guilds", "List the servers (guilds) the bot is in",
      JSON({"properties":{"limit":{"type":"integer"}}}), WG_RISK_LOW },
    { "list_channels", "List channels of a guild",
      JSON({"properties":{"guild_id":{"type":"string"}},"required":["guild_id"]}), WG_RISK_LOW },
    { "get_messages", "Read recent messages of a channel",
      JSON({"properties":{"channel_id":{"type":"string"},"limit":{"type":"integer"},
            "before":{"type":"string"},"after":{"type":"string"}},"required":["channel_id"]}), WG_RISK_LOW },
    { "send_message", "Send a message to a channel",
      JSON({"properties":{"channel_id":{"type":"string"},"content":{"type":"string"}},
            "required":["channel_id","content"]}), WG_RISK_MEDIUM },
    { "search_messages", "Search messages in a guild",
      JSON({"properties":{"guild_id":{"type":"string"},"query":{"type":"string"}},
            "required":["guild_id","query"]}), WG_RISK_LOW },
    { "get_guild_info", "Get a guild's details",
      JSON({"properties":{"guild_id":{"type":"string"}},"required":["guild_id"]}), WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_guilds", .method = WG_REST_GET, .path = "/users/@me/guilds", .query = "limit" },
    { .name = "list_channels", .method = WG_REST_GET, .path = "/guilds/{guild_id}/channels" },
    { .name = "get_messages", .method = WG_REST_GET, .path = "/channels/{channel_id}/messages",
      .query = "limit=50 before after" },
    { .name = "send_message", .method = WG_REST_POST, .path = "/channels/{channel_id}/messages",
      .body = WG_REST_BODY_TEMPLATE, .body_template = JSON({"content":"$content"}) },
    { .name = "search_messages", .method = WG_REST_GET, .path = "/guilds/{guild_id}/messages/search",
      .query = "content:query" },
    { .name = "get_guild_info", .method = WG_REST_GET, .path = "/guilds/{guild_id}" },
};

static const wg_rest_spec rest = {
    .default_base = "https://discord.com/api/v10",
    .auth = WG_REST_AUTH_BOT,
    .error_prefix = "Discord API error",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/users/@me",
};

const wg_connector_spec wg_spec_discord = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "discord",
    .name = "Discord",
    .description = "Read and send messages in Discord servers through a bot",
    .service = "discord.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "communication",
    .logo_slug = "discord",
    .setup_guide = "Create an application at discord.com/developers, add a bot, invite it to "
                   "your server and paste its bot token.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
};
