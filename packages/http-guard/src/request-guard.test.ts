import type { IncomingMessage } from 'node:http';
import { ConfigError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { hostName, RequestGuard, tokenFromEnv } from './request-guard';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const TOKEN = 'a-token-of-at-least-16-chars';

describe('request guard', () => {
  it('answers the loopback names on any port and refuses other hosts, rebinding names included', () => {
    const guard = new RequestGuard();
    for (const host of ['localhost', '127.0.0.1:8000', '[::1]:9', 'LOCALHOST:1'])
      expect(guard.check(request({ host }))).toBeUndefined();
    for (const host of ['attacker.example', 'attacker.example:8000', '127.0.0.1.nip.io', '', '[::2]'])
      expect(guard.check(request({ host }))).toMatchObject({ status: 403, reason: 'bad_host' });
    expect(guard.check(request({}))).toMatchObject({ status: 403, reason: 'bad_host' });
  });

  it('answers a host it is bound to or told, and any host with *', () => {
    const guard = new RequestGuard({ allowedHosts: ['trainer.internal'] });
    expect(guard.check(request({ host: 'trainer.internal:80' }))).toBeUndefined();
    expect(guard.check(request({ host: 'localhost' }))).toMatchObject({ status: 403 });
    guard.allowHost('10.0.0.5');
    guard.allowHost('0.0.0.0');
    expect(guard.check(request({ host: '10.0.0.5:8000' }))).toBeUndefined();
    expect(guard.check(request({ host: '0.0.0.0' }))).toMatchObject({ status: 403 });
    expect(new RequestGuard({ allowedHosts: ['*'] }).check(request({ host: 'anything' }))).toBeUndefined();
  });

  it('refuses every browser origin but the ones allowed, and takes requests without one', () => {
    const guard = new RequestGuard({ allowedOrigins: ['http://localhost:3000/'] });
    expect(guard.check(request({ host: 'localhost' }))).toBeUndefined();
    expect(guard.check(request({ host: 'localhost', origin: 'http://LOCALHOST:3000' }))).toBeUndefined();
    for (const origin of ['http://evil.example', 'null', 'http://localhost:3001', 'file://'])
      expect(guard.check(request({ host: 'localhost', origin }))).toMatchObject({
        status: 403,
        reason: 'bad_origin',
      });
  });

  it('needs the bearer token when one is set, and never echoes what was sent', () => {
    const guard = new RequestGuard({ token: TOKEN });
    expect(guard.requiresToken).toBe(true);
    expect(guard.check(request({ host: 'localhost', authorization: `Bearer ${TOKEN}` }))).toBeUndefined();
    expect(guard.check(request({ host: 'localhost', authorization: `bearer  ${TOKEN}` }))).toBeUndefined();
    for (const authorization of ['', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, 'Bearer short', TOKEN]) {
      const refusal = guard.check(request({ host: 'localhost', authorization }));
      expect(refusal).toMatchObject({ status: 401, reason: 'unauthorized' });
      expect(refusal?.message).not.toContain(TOKEN);
    }
    expect(() => new RequestGuard({ token: 'short' })).toThrow(/token/);
  });

  it('reads host names as servers see them', () => {
    expect(hostName('[::1]:8000')).toBe('::1');
    expect(hostName('Example.COM:80')).toBe('example.com');
    expect(hostName('localhost')).toBe('localhost');
    expect(hostName('::1')).toBe('::1');
  });
});

describe('tokenFromEnv', () => {
  it('reads the token from the variable, refusing an unset, empty or short one with the fix', () => {
    expect(tokenFromEnv('T', { T: TOKEN })).toBe(TOKEN);
    expect(() => tokenFromEnv('T', {})).toThrow(ConfigError);
    expect(() => tokenFromEnv('T', { T: '' })).toThrow(/export T=/);
    expect(() => tokenFromEnv('T', { T: 'abc' })).toThrow(/at least 16/);
  });
});
