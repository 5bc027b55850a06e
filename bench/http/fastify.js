// fastify.js - the baseline for bench/http.sh: a Fastify server with the
// same checks waggled does before a handler (Host allow-list, bearer token)
// answering the same JSON bodies waggled answered (captured by the script),
// so the comparison measures the HTTP stack, not the engine.
// usage: node fastify.js PORT TOKEN CAPTURE_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const fastify = require('fastify')({ logger: false, bodyLimit: 1024 * 1024 });

const [port, token, dir] = process.argv.slice(2);
const body = (name) => fs.readFileSync(path.join(dir, name), 'utf8');
const status = body('status.json');
const gate = body('gate.json');
const search = body('search.json');
const hosts = new Set(['localhost', '127.0.0.1', '[::1]']);

fastify.addHook('onRequest', async (req, reply) => {
  const host = (req.headers.host || '').replace(/:\d+$/, '').toLowerCase();
  if (!hosts.has(host)) {
    reply.code(403).send({ error: 'HOST_NOT_ALLOWED', message: 'bad host' });
    return reply;
  }
  if (req.headers.authorization !== `Bearer ${token}`) {
    reply.code(401).send({ error: 'UNAUTHORIZED', message: 'bad token' });
    return reply;
  }
});

const send = (payload) => async (req, reply) => {
  reply.header('content-type', 'application/json; charset=utf-8');
  reply.header('cache-control', 'no-store');
  return payload;
};

fastify.get('/api/capabilities/status', send(status));
fastify.post('/api/gate/check', async (req, reply) => {
  if (!req.body || typeof req.body.tool !== 'string') {
    reply.code(400);
    return { error: 'INVALID_FIELD', field: 'tool', message: 'tool must be a string' };
  }
  reply.header('content-type', 'application/json; charset=utf-8');
  return gate;
});
fastify.get('/api/catalog/search', send(search));

fastify.listen({ port: Number(port), host: '127.0.0.1' }).catch((e) => {
  console.error(e);
  process.exit(1);
});
