import { createServer, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { capConnections, parseRequest } from './http-io';

const withUrl = (url: string) => ({ url, method: 'GET', headers: {} }) as unknown as IncomingMessage;

describe('parseRequest', () => {
  it('reads path and query, one trailing slash dropped', () => {
    expect(parseRequest(withUrl('/maze/step/?id=3'))).toMatchObject({ path: '/maze/step', method: 'GET' });
    expect(parseRequest(withUrl('/maze/step?id=3'))?.query.get('id')).toBe('3');
    expect(parseRequest(withUrl('/'))?.path).toBe('/');
  });

  it('answers undefined, never throws, for a target that is not a path', () => {
    for (const url of ['//[', '//evil.example/x', 'http://x/', '*', '', '/%', '[']) {
      expect(() => parseRequest(withUrl(url))).not.toThrow();
    }
    for (const url of ['//[', '//evil.example/x', 'http://x/', '*'])
      expect(parseRequest(withUrl(url))).toBeUndefined();
  });
});

describe('capConnections', () => {
  const servers: ReturnType<typeof createServer>[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });

  it('closes sockets past the per-client cap as they arrive, and takes new ones once others close', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    servers.push(server);
    const caps = capConnections(server, { maxConnections: 10, maxConnectionsPerClient: 3 });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    const open = async () => {
      const socket = connect(port, '127.0.0.1');
      await new Promise((done) => socket.once('connect', done));
      return socket;
    };
    const closed = (socket: ReturnType<typeof connect>) =>
      new Promise<boolean>((done) => {
        socket.once('close', () => done(true));
        setTimeout(() => done(false), 2000).unref();
      });
    const held = [await open(), await open(), await open()];
    const extra = await open();
    expect(await closed(extra)).toBe(true);
    expect(caps.refused()).toBe(1);
    held[0]!.destroy();
    while (caps.open() > 2) await new Promise((done) => setImmediate(done));
    const again = await open();
    again.write('GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    const reply = await new Promise<string>((done) => {
      let text = '';
      again.on('data', (chunk) => {
        text += chunk;
      });
      again.once('close', () => done(text));
    });
    expect(reply).toMatch(/^HTTP\/1.1 200/);
    for (const socket of held) socket.destroy();
  });
});
