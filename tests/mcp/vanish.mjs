// vanish.mjs DIR [URL TOKEN] - a client (stdio, or Streamable HTTP when URL
// is given) that starts a call needing approval, prints "asked" (and the
// stdio server's pid) once the person is being asked, and is then killed by
// the test.
import { SEND, stdioClient, httpClient } from './common.mjs';

const [dir, url, token] = process.argv.slice(2);
let transport;
const elicit = () => {
  process.stdout.write(`asked pid=${transport.pid ?? 0}\n`);
  return new Promise(() => {});   // the person never answers
};
const c = url ? await httpClient({ url, token }, { elicit }) : await stdioClient(dir, { elicit });
transport = c.transport;
await c.client.callTool({ name: SEND, arguments: { channel: '#general', message: 'hi' } },
  undefined, { timeout: 600000 });
