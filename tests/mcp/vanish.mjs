// vanish.mjs DIR - a client that starts a call needing approval, prints the
// server's pid once the person is being asked, and is then killed by the test.
import { SEND, stdioClient } from './common.mjs';

const { client, transport } = await stdioClient(process.argv[2], {
  elicit: () => {
    process.stdout.write(`asked pid=${transport.pid}\n`);
    return new Promise(() => {});   // the person never answers
  },
});
await client.callTool({ name: SEND, arguments: { channel: '#general', message: 'hi' } },
  undefined, { timeout: 600000 });
