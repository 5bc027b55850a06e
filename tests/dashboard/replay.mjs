// replay.mjs - a loopback server shaped like the part of GitHub's REST API
// the dashboard's tests reach (docs.github.com/rest: GET /user,
// POST /repos/{owner}/{repo}/issues). It checks what waggle sends (bearer
// token, GitHub's Accept and API-version headers, the JSON body) and keeps
// every request, so a test can assert that a call ran, or did not.
import http from 'node:http';

export async function startReplay(token) {
  const seen = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const entry = { method: req.method, url: req.url, headers: req.headers, body };
      seen.push(entry);
      const send = (status, obj) => {
        res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(obj));
      };
      if (req.headers.authorization !== `Bearer ${token}`) return send(401, { message: 'Bad credentials' });
      if (req.headers.accept !== 'application/vnd.github+json' ||
          req.headers['x-github-api-version'] !== '2022-11-28')
        return send(400, { message: 'missing GitHub headers' });
      if (req.method === 'GET' && req.url === '/user') return send(200, { login: 'octocat', id: 1 });
      const m = req.url.match(/^\/repos\/([^/]+)\/([^/]+)\/issues$/);
      if (req.method === 'POST' && m) {
        let parsed;
        try { parsed = JSON.parse(body); } catch { return send(400, { message: 'Problems parsing JSON' }); }
        if (typeof parsed.title !== 'string') return send(422, { message: 'Validation Failed' });
        return send(201, { number: 1347 + seen.length, title: parsed.title, html_url: `https://github.com/${m[1]}/${m[2]}/issues/1347` });
      }
      send(404, { message: 'Not Found' });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    seen,
    issues: () => seen.filter((s) => s.method === 'POST' && /\/issues$/.test(s.url)),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
