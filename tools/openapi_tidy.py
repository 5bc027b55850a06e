#!/usr/bin/env python3
# openapi_tidy.py [FILE] - makes data/openapi.json meet the rules contract.openapi
# checks: every operation gets an operationId (derived from method and path
# unless it has one) and references the shared error responses every route can
# give (components/responses); 404 where the path has a parameter. Idempotent;
# keeps the file's formatting (json.dumps, indent 2). Run it after adding a route.
import json, re, sys
P = sys.argv[1] if len(sys.argv) > 1 else "data/openapi.json"
d = json.load(open(P))
ERR = {"$ref": "#/components/schemas/Error"}
def resp(desc):
    return {"description": desc, "content": {"application/json": {"schema": ERR}}}
comp = d["components"]
comp.setdefault("responses", {})
R = comp["responses"]
R.update({
  "BadRequest": resp("INVALID_REQUEST / INVALID_PARAM: bad JSON or field, an encoded NUL (%00) in the path or query, or broken framing (two Content-Length headers, an unknown Transfer-Encoding)"),
  "Unauthorized": resp("UNAUTHORIZED: missing or wrong bearer token"),
  "HostNotAllowed": resp("HOST_NOT_ALLOWED: the Host header is not an allowed name (DNS-rebinding guard)"),
  "NotFound": resp("NOT_FOUND: no such resource"),
  "MethodNotAllowed": resp("METHOD_NOT_ALLOWED: the path exists, the method does not (the Allow header lists the methods)"),
  "PayloadTooLarge": resp("PAYLOAD_TOO_LARGE: the body is larger than the route's limit (the server reads and discards up to 8 MiB so the client can read this answer)"),
  "URITooLong": resp("URI_TOO_LONG: the request path is longer than 8 KiB"),
  "HeadersTooLarge": resp("HEADERS_TOO_LARGE: the request headers are larger than 16 KiB or more than 100 fields (a head past libmicrohttpd's per-connection memory pool gets its own plain answer; docs/security.md)"),
  "InternalError": resp("INTERNAL_ERROR: an unexpected failure; the log has the detail"),
  "Unavailable": resp("STORE_UNAVAILABLE / VAULT_UNAVAILABLE: the store or the vault cannot be reached (retry)"),
})
S = comp["schemas"]
S["Refusal"] = {
  "description": "A 403: a refusal by the host check, the admin token, the upstream policy, or the tier (TierInsufficient). The branches are disjoint by their error code.",
  "oneOf": [
    {"allOf": [ERR, {"properties": {"error": {"enum": ["HOST_NOT_ALLOWED", "ADMIN_REQUIRED", "FORBIDDEN", "ORIGIN_NOT_ALLOWED"]}}}]},
    {"$ref": "#/components/schemas/TierInsufficient"},
  ],
}
# GateDecision everywhere keeps "tool" required (the server now sends it).
def walk(x, fn):
    if isinstance(x, dict):
        fn(x)
        for v in list(x.values()):
            walk(v, fn)
    elif isinstance(x, list):
        for v in x:
            walk(v, fn)
def fix_oneof(x):
    o = x.get("oneOf")
    if isinstance(o, list) and len(o) == 2 and {json.dumps(a, sort_keys=True) for a in o} == {
            json.dumps(ERR, sort_keys=True), json.dumps({"$ref": "#/components/schemas/TierInsufficient"}, sort_keys=True)}:
        del x["oneOf"]
        x["$ref"] = "#/components/schemas/Refusal"
walk(d["paths"], fix_oneof)

def opid(method, path):
    words = [w for w in re.split(r"[/\-_.]", path) if w and w != "api"]
    out = []
    for w in words:
        if w.startswith("{"):
            out.append("By" + w[1:-1][:1].upper() + w[1:-1][1:])
        else:
            out.append(w[:1].upper() + w[1:])
    return method + "".join(out)

NAMES = {
  ("get", "/healthz"): "getHealth",
  ("get", "/api/openapi.json"): "getOpenApiDocument",
}
COMMON = [("400", "BadRequest"), ("401", "Unauthorized"), ("403", "HostNotAllowed"),
          ("405", "MethodNotAllowed"), ("413", "PayloadTooLarge"), ("414", "URITooLong"),
          ("431", "HeadersTooLarge"), ("500", "InternalError"), ("503", "Unavailable")]
seen = set()
for path, item in d["paths"].items():
    for method, op in item.items():
        if method not in ("get", "post", "put", "patch", "delete"):
            continue
        if "operationId" not in op:
            op["operationId"] = NAMES.get((method, path)) or opid(method, path)
        assert op["operationId"] not in seen, op["operationId"]
        seen.add(op["operationId"])
        rs = op["responses"]
        public = op.get("security") == []
        for code, name in COMMON:
            if code == "401" and public:
                continue
            if code not in rs:
                rs[code] = {"$ref": "#/components/responses/" + name}
        if "{" in path and "404" not in rs:
            rs["404"] = {"$ref": "#/components/responses/NotFound"}
        # keep the codes in order
        op["responses"] = dict(sorted(rs.items(), key=lambda kv: kv[0]))
d["servers"] = [{
  "url": "http://{host}:{port}",
  "description": "waggled as started: `waggle serve --listen HOST:PORT` (default 127.0.0.1:3333, or $WAGGLE_PORT)",
  "variables": {"host": {"default": "127.0.0.1"}, "port": {"default": "3333"}},
}]
open(P, "w").write(json.dumps(d, indent=2, ensure_ascii=False) + "\n")
print(len(seen), "operations")
