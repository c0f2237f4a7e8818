import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import dns from 'node:dns';
import { UnsafeUrlError, type UnsafeUrlReason } from '../../src/errors/unsafe-url.error.js';
import { assertSafeExternalUrl, lintUrlQuery, type ExternalUrlPolicy } from '../../src/security/url-policy.js';

const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:2800:220:1:248:1893:25c8:1946';
const SECRET = 'S3cr3t-V4lue-q9Zx';

/** Resolves every name to public addresses only. */
const resolvePublic = (_hostname: string): Promise<string[]> => Promise.resolve([PUBLIC_V4, PUBLIC_V6]);

/** Resolver answering from a table; unknown names fail like getaddrinfo does. */
function resolverFrom(table: Record<string, string[]>): (hostname: string) => Promise<string[]> {
  return (hostname) => {
    const answer = table[hostname];
    if (!answer) return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    return Promise.resolve(answer);
  };
}

async function refusal(input: string, policy: ExternalUrlPolicy = {}): Promise<UnsafeUrlError> {
  try {
    await assertSafeExternalUrl(input, { resolveHost: resolvePublic, ...policy });
  } catch (error) {
    expect(error).toBeInstanceOf(UnsafeUrlError);
    return error as UnsafeUrlError;
  }
  throw new Error(`expected ${input} to be refused`);
}

async function expectRefused(input: string, reason: UnsafeUrlReason, policy: ExternalUrlPolicy = {}) {
  const error = await refusal(input, policy);
  expect(error.reason).toBe(reason);
  expect(error.name).toBe('UnsafeUrlError');
  expect(error.message).toMatch(/^Refused external URL: /);
  return error;
}

/** Every WHATWG-accepted spelling of a dotted-quad IPv4 address. */
function ipv4Spellings(dotted: string): Array<[string, string]> {
  const octets = dotted.split('.').map(Number);
  const [a, b, c, d] = octets as [number, number, number, number];
  const n = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  return [
    ['dotted', dotted],
    ['decimal', String(n)],
    ['octal', octets.map((o) => `0${o.toString(8)}`).join('.')],
    ['hex', `0x${n.toString(16)}`],
    ['dotted hex', octets.map((o) => `0x${o.toString(16)}`).join('.')],
    ['short a.bcd', `${a}.${(b << 16) + (c << 8) + d}`],
    ['short a.b.cd', `${a}.${b}.${(c << 8) + d}`],
    ['hex a + short', `0x${a.toString(16)}.${(b << 16) + (c << 8) + d}`],
    ['trailing dot', `${dotted}.`],
  ];
}

const NON_PUBLIC_V4 = [
  '127.0.0.1',
  '10.0.0.1',
  '169.254.169.254',
  '192.168.1.1',
  '0.0.0.0',
  '255.255.255.255',
  '100.64.0.1',
  '224.0.0.1',
  '172.16.0.1',
  '192.0.2.1',
  '198.18.0.1',
  '240.0.0.1',
];
const IPV4_LITERALS = NON_PUBLIC_V4.flatMap((dotted) => ipv4Spellings(dotted).map(([form, host]) => [dotted, form, host] as const));

afterEach(() => {
  jest.restoreAllMocks();
});

describe('UnsafeUrlError', () => {
  it('is a named Error carrying a machine-readable reason', () => {
    const error = new UnsafeUrlError('not-https', 'plain http', 'Use https');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('UnsafeUrlError');
    expect(error.reason).toBe('not-https');
    expect(error.message).toBe('Refused external URL: plain http. Use https');
  });
});

describe('assertSafeExternalUrl: accepted URLs', () => {
  it.each<[string, string, ExternalUrlPolicy]>([
    ['public https', 'https://example.com/path?page=2#top', {}],
    ['public https with port', 'https://api.example.com:8443/v1', {}],
    ['public IPv4 literal', 'https://8.8.8.8/dns-query', {}],
    ['public IPv6 literal', 'https://[2606:4700:4700::1111]/', {}],
    ['IPv4-mapped public IPv6 literal', 'https://[::ffff:8.8.8.8]/', {}],
    ['allow-list exact hit', 'https://auth.example.com/authorize', { allowedHosts: ['auth.example.com'] }],
    ['allow-list hit, case and trailing dot', 'https://AUTH.Example.COM./x', { allowedHosts: ['auth.example.com'] }],
    ['allow-list entry case-insensitive', 'https://auth.example.com/', { allowedHosts: ['Auth.EXAMPLE.com.'] }],
    ['wildcard subdomain', 'https://tenant.idp.example.org/', { allowedHosts: ['*.idp.example.org'] }],
    ['wildcard deep subdomain', 'https://a.b.idp.example.org/', { allowedHosts: ['*.idp.example.org'] }],
    ['IDN allow-list entry vs punycode URL', 'https://xn--bcher-kva.example/', { allowedHosts: ['bücher.example'] }],
    ['punycode allow-list entry vs IDN URL', 'https://BÜCHER.example/', { allowedHosts: ['xn--bcher-kva.example'] }],
    [
      'Google-style OAuth consent URL',
      'https://accounts.example.com/o/oauth2/v2/auth?client_id=1234-abc.apps.example.com' +
        '&redirect_uri=https%3A%2F%2Fapp.example.com%2Foauth%2Fcallback&response_type=code' +
        '&scope=openid%20email%20profile%20https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fcalendar.readonly' +
        '&state=Zx8_Qm3-kP9vT2wYbL6nR4sD1fH7jC0a&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' +
        '&code_challenge_method=S256&access_type=offline&prompt=consent',
      { allowedHosts: ['accounts.example.com'] },
    ],
    [
      'GitHub-style OAuth consent URL',
      'https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766' +
        '&redirect_uri=https://mcp.example.com/elicit/oauth/callback&state=a1b2c3d4e5f6&scope=repo%20read:user',
      {},
    ],
    ['http loopback name with allowHttpLoopback', 'http://localhost:3000/callback', { allowHttpLoopback: true }],
    ['http *.localhost with allowHttpLoopback', 'http://app.localhost:3000/', { allowHttpLoopback: true }],
    ['http 127.0.0.1 with allowHttpLoopback', 'http://127.0.0.1:8080/cb', { allowHttpLoopback: true }],
    ['http 127.1 (short form) with allowHttpLoopback', 'http://127.1/', { allowHttpLoopback: true }],
    ['http 2130706433 (decimal) with allowHttpLoopback', 'http://2130706433/', { allowHttpLoopback: true }],
    ['http [::1] with allowHttpLoopback', 'http://[::1]:3000/', { allowHttpLoopback: true }],
    ['http [::ffff:127.0.0.1] with allowHttpLoopback', 'http://[::ffff:127.0.0.1]/', { allowHttpLoopback: true }],
    ['https localhost with allowHttpLoopback', 'https://localhost:8443/', { allowHttpLoopback: true }],
  ])('accepts %s', async (_label, input, policy) => {
    const resolveHost = resolverFrom({
      localhost: ['127.0.0.1', '::1'],
      'app.localhost': ['127.0.0.1'],
    });
    const fallback = (hostname: string) => (hostname.endsWith('localhost') ? resolveHost(hostname) : resolvePublic(hostname));
    const url = await assertSafeExternalUrl(input, { resolveHost: fallback, ...policy });
    expect(url).toBeInstanceOf(URL);
    expect(url.href).toBe(new URL(input).href);
  });

  it('resolves a literal-free host with the injected resolver, using the WHATWG-normalised name', async () => {
    const resolveHost = jest.fn((_hostname: string) => Promise.resolve([PUBLIC_V4, PUBLIC_V6, '8.8.4.4']));
    await expect(assertSafeExternalUrl('https://Bücher.Example/a', { resolveHost })).resolves.toBeInstanceOf(URL);
    expect(resolveHost).toHaveBeenCalledTimes(1);
    expect(resolveHost).toHaveBeenCalledWith('xn--bcher-kva.example');
  });

  it('does not resolve literal IP hosts', async () => {
    const resolveHost = jest.fn(resolvePublic);
    await assertSafeExternalUrl('https://8.8.8.8/', { resolveHost });
    await assertSafeExternalUrl('https://[2001:4860:4860::8888]/', { resolveHost });
    expect(resolveHost).not.toHaveBeenCalled();
  });
});

describe('assertSafeExternalUrl: scheme, credentials, parsing', () => {
  it.each<[string, UnsafeUrlReason, ExternalUrlPolicy?]>([
    ['not a url', 'invalid'],
    ['', 'invalid'],
    ['/relative/path', 'invalid'],
    ['//example.com/protocol-relative', 'invalid'],
    ['https://', 'invalid'],
    ['https://exa mple.com/', 'invalid'],
    ['https://[::1/', 'invalid'],
    ['https://999.1.1.1/', 'invalid'],
    ['http://example.com/', 'not-https'],
    ['http://example.com/', 'not-https', { allowHttpLoopback: true }],
    ['http://10.0.0.1/', 'not-https', { allowHttpLoopback: true }],
    ['http://printer.local/', 'not-https', { allowHttpLoopback: true }],
    ['http://localhost:3000/', 'not-https'],
    ['http://127.0.0.1/', 'not-https'],
    ['ftp://example.com/file', 'not-https'],
    ['javascript:alert(document.cookie)', 'not-https'],
    ['JavaScript:alert(1)', 'not-https'],
    ['data:text/html,<script>alert(1)</script>', 'not-https'],
    ['file:///etc/passwd', 'not-https'],
    ['wss://example.com/socket', 'not-https'],
    ['blob:https://example.com/0f8c', 'not-https'],
    ['https://user:hunter2@example.com/', 'credentials'],
    ['https://user@example.com/', 'credentials'],
    ['https://:hunter2@example.com/', 'credentials'],
  ])('refuses %j as %s', async (input, reason, policy: ExternalUrlPolicy = {}) => {
    const error = await expectRefused(input, reason, policy);
    expect(error.message).not.toContain('hunter2');
  });

  it('does not echo an unparsable input (it may hold a secret)', async () => {
    const error = await expectRefused(`not a url ${SECRET}`, 'invalid');
    expect(error.message).not.toContain(SECRET);
    expect(error.message).toMatch(/https:\/\//);
  });

  it('names the fix for plain http', async () => {
    const error = await expectRefused('http://example.com/', 'not-https');
    expect(error.message).toMatch(/https:\/\//);
    expect(error.message).toMatch(/allowHttpLoopback/);
  });
});

describe('assertSafeExternalUrl: allow-list', () => {
  const policy: ExternalUrlPolicy = { allowedHosts: ['auth.example.com', '*.idp.example.org'] };

  it.each([
    'https://example.com/',
    'https://idp.example.org/', // wildcard does not match the apex
    'https://evilidp.example.org/',
    'https://auth.example.com.evil.test/',
    'https://auth.example.co/',
    'https://8.8.8.8/',
  ])('refuses %s as host-not-allowed', async (input) => {
    const error = await expectRefused(input, 'host-not-allowed', policy);
    expect(error.message).toContain(new URL(input).hostname);
    expect(error.message).toMatch(/allowedHosts/);
  });

  it('still applies the address checks to an allowed host', async () => {
    const resolveHost = resolverFrom({ 'auth.example.com': [PUBLIC_V4, '10.0.0.7'] });
    await expectRefused('https://auth.example.com/', 'private-address', { ...policy, resolveHost });
    await expectRefused('https://printer.local/', 'private-address', { allowedHosts: ['printer.local'] });
  });

  it.each([['https://example.com'], ['example.com:8443'], ['example.com/path'], ['user@example.com'], ['*'], ['']])(
    'throws a TypeError for the malformed entry %j',
    async (entry) => {
      await expect(assertSafeExternalUrl('https://example.com/', { allowedHosts: [entry], resolveHost: resolvePublic })).rejects.toThrow(
        TypeError,
      );
    },
  );
});

describe('assertSafeExternalUrl: literal IPv4 hosts', () => {
  it('the spellings really are WHATWG aliases of the dotted form', () => {
    for (const [dotted, , host] of IPV4_LITERALS) {
      expect(new URL(`https://${host}/`).hostname).toBe(dotted);
    }
  });

  it.each(IPV4_LITERALS)('refuses %s written %s (%s)', async (dotted, _form, host) => {
    const resolveHost = jest.fn(resolvePublic);
    const error = await expectRefused(`https://${host}/`, 'private-address', { resolveHost });
    expect(error.message).toContain(dotted);
    expect(resolveHost).not.toHaveBeenCalled();
  });

  it.each(IPV4_LITERALS.filter(([dotted]) => dotted !== '127.0.0.1'))(
    'keeps refusing %s written %s (%s) with allowHttpLoopback',
    async (_dotted, _form, host) => {
      await expectRefused(`https://${host}/`, 'private-address', { allowHttpLoopback: true });
    },
  );
});

describe('assertSafeExternalUrl: literal IPv6 hosts', () => {
  it.each([
    ['[::1]', 'loopback'],
    ['[fe80::1]', 'link-local'],
    ['[fc00::1]', 'unique local'],
    ['[fd12:3456:789a::1]', 'unique local'],
    ['[ff02::1]', 'multicast'],
    ['[::]', 'unspecified'],
    ['[::ffff:127.0.0.1]', 'IPv4-mapped loopback'],
    ['[::ffff:7f00:1]', 'IPv4-mapped loopback, hex'],
    ['[::ffff:a9fe:a9fe]', 'IPv4-mapped cloud metadata'],
    ['[::ffff:10.0.0.1]', 'IPv4-mapped private'],
    ['[::127.0.0.1]', 'IPv4-compatible loopback'],
    ['[::7f00:1]', 'IPv4-compatible loopback, hex'],
    ['[::a00:1]', 'IPv4-compatible private'],
    ['[::808:808]', 'IPv4-compatible public (deprecated range)'],
    ['[::ffff:0:7f00:1]', 'IPv4-translated (RFC 6145)'],
    ['[64:ff9b::a00:1]', 'NAT64 embedding 10.0.0.1'],
    ['[64:ff9b::10.0.0.1]', 'NAT64 embedding 10.0.0.1, dotted'],
    ['[64:ff9b::7f00:1]', 'NAT64 embedding 127.0.0.1'],
    ['[64:ff9b::a9fe:a9fe]', 'NAT64 embedding 169.254.169.254'],
    ['[64:ff9b:1::a00:1]', 'local-use NAT64 (RFC 8215)'],
    ['[2002:a00:1::]', '6to4 embedding 10.0.0.1'],
    ['[2002:7f00:1::1]', '6to4 embedding 127.0.0.1'],
    ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', 'Teredo'],
    ['[2001:db8::1]', 'documentation'],
    ['[fec0::1]', 'deprecated site-local'],
    ['[100::1]', 'discard'],
    ['[2001:2::1]', 'benchmarking'],
    ['[2001:20::1]', 'ORCHIDv2'],
    ['[5f00::1]', 'segment routing'],
  ])('refuses %s (%s)', async (host) => {
    const resolveHost = jest.fn(resolvePublic);
    await expectRefused(`https://${host}/`, 'private-address', { resolveHost });
    expect(resolveHost).not.toHaveBeenCalled();
  });

  it.each(['[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]'])(
    'accepts the loopback %s over https only with allowHttpLoopback',
    async (host) => {
      await expectRefused(`https://${host}/`, 'private-address');
      await expect(assertSafeExternalUrl(`https://${host}/`, { allowHttpLoopback: true })).resolves.toBeInstanceOf(URL);
    },
  );

  it.each(['[fe80::1]', '[fc00::1]', '[::]', '[::ffff:a9fe:a9fe]', '[::127.0.0.1]', '[::7f00:1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::1]'])(
    'keeps refusing the non-loopback %s with allowHttpLoopback',
    async (host) => {
      await expectRefused(`https://${host}/`, 'private-address', { allowHttpLoopback: true });
      await expectRefused(`http://${host}/`, 'not-https', { allowHttpLoopback: true });
    },
  );
});

describe('assertSafeExternalUrl: local-only host names', () => {
  it.each([
    'localhost',
    'LOCALHOST.',
    'localhost..',
    'foo.localhost',
    'a.b.localhost.',
    'printer.local',
    'printer.local.',
    'db.internal',
    'metadata.google.internal',
    'router.localdomain',
    'localhost.localdomain',
    'nas.home.arpa',
  ])('refuses %s by name, without asking DNS', async (host) => {
    const resolveHost = jest.fn(resolvePublic);
    const error = await expectRefused(`https://${host}/`, 'private-address', { resolveHost });
    expect(error.message).toMatch(/local-only/);
    expect(resolveHost).not.toHaveBeenCalled();
  });

  it.each(['printer.local', 'db.internal', 'router.localdomain', 'nas.home.arpa'])(
    'refuses %s even with allowHttpLoopback (not a loopback name)',
    async (host) => {
      await expectRefused(`https://${host}/`, 'private-address', { allowHttpLoopback: true });
    },
  );

  it('does not confuse look-alike public names with local ones', async () => {
    for (const host of ['localhost.example.com', 'local.example.com', 'internal.example.com', 'mylocal', 'xlocal.com']) {
      await expect(assertSafeExternalUrl(`https://${host}/`, { resolveHost: resolvePublic })).resolves.toBeInstanceOf(URL);
    }
  });
});

describe('assertSafeExternalUrl: DNS pre-resolution', () => {
  it.each<[string, string[]]>([
    ['one private address among public ones', [PUBLIC_V4, '10.0.0.5', PUBLIC_V6]],
    ['cloud metadata', ['169.254.169.254']],
    ['loopback', ['127.0.0.1']],
    ['IPv6 loopback', ['::1']],
    ['IPv4-mapped loopback', ['::ffff:127.0.0.1']],
    ['link-local with a zone id', [PUBLIC_V4, 'fe80::1%eth0']],
    ['unique local', ['fd00::1']],
    ['NAT64 private', ['64:ff9b::a00:1']],
    ['unspecified', ['0.0.0.0']],
    ['carrier-grade NAT', ['100.64.0.1']],
  ])('refuses a host resolving to %s', async (_label, addresses) => {
    const error = await expectRefused('https://rebind.example.net/', 'private-address', {
      resolveHost: () => Promise.resolve(addresses),
    });
    expect(error.message).toContain('rebind.example.net');
  });

  it('refuses loopback answers for a public name even with allowHttpLoopback over http', async () => {
    // http is only for loopback hosts: a public name is refused before DNS.
    await expectRefused('http://dev.example.net/', 'not-https', {
      allowHttpLoopback: true,
      resolveHost: () => Promise.resolve(['127.0.0.1']),
    });
    // https with allowHttpLoopback accepts loopback answers, still not private ones.
    await expect(
      assertSafeExternalUrl('https://dev.example.net/', { allowHttpLoopback: true, resolveHost: () => Promise.resolve(['127.0.0.1']) }),
    ).resolves.toBeInstanceOf(URL);
    await expectRefused('https://dev.example.net/', 'private-address', {
      allowHttpLoopback: true,
      resolveHost: () => Promise.resolve(['127.0.0.1', '192.168.0.10']),
    });
  });

  it('requires every answer for http://localhost to be loopback', async () => {
    await expectRefused('http://localhost/', 'private-address', {
      allowHttpLoopback: true,
      resolveHost: () => Promise.resolve(['127.0.0.1', '10.0.0.5']),
    });
    await expectRefused('http://localhost/', 'private-address', {
      allowHttpLoopback: true,
      resolveHost: () => Promise.resolve([PUBLIC_V4]),
    });
  });

  it('refuses when the resolver throws, naming the error code and keeping the cause', async () => {
    const failure = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example.net'), { code: 'ENOTFOUND' });
    const error = await expectRefused('https://nowhere.example.net/', 'unresolvable', {
      resolveHost: () => Promise.reject(failure),
    });
    expect(error.message).toContain('ENOTFOUND');
    expect(error.message).toContain('nowhere.example.net');
    expect(error.cause).toBe(failure);
  });

  it.each<[string, unknown]>([
    ['an empty list', []],
    ['a non-address', ['not-an-ip']],
    ['a non-array', undefined],
  ])('refuses when the resolver returns %s', async (_label, answer) => {
    await expectRefused('https://empty.example.net/', 'unresolvable', {
      resolveHost: () => Promise.resolve(answer as string[]),
    });
  });
});

describe('assertSafeExternalUrl: default resolver', () => {
  it('uses dns.promises.lookup (all, verbatim) only when no resolveHost is injected', async () => {
    // `as never`: the spy is typed by lookup's last overload (one address), not the `all: true` one the policy calls.
    const lookup = jest
      .spyOn(dns.promises, 'lookup')
      .mockImplementation((() => Promise.resolve([{ address: PUBLIC_V4, family: 4 }])) as never);

    await expect(assertSafeExternalUrl('https://api.example.com/v1')).resolves.toBeInstanceOf(URL);
    // (the spy's type only sees lookup's last overload, hence the untyped comparison of the arguments)
    expect(lookup.mock.calls).toEqual([['api.example.com', { all: true, verbatim: true }]]);

    lookup.mockClear();
    await assertSafeExternalUrl('https://api.example.com/v1', { resolveHost: resolvePublic });
    await assertSafeExternalUrl('https://8.8.8.8/');
    expect(lookup).not.toHaveBeenCalled();
  });

  it('refuses a private answer from the default resolver', async () => {
    jest.spyOn(dns.promises, 'lookup').mockImplementation((() =>
      Promise.resolve([
        { address: PUBLIC_V4, family: 4 },
        { address: '10.1.2.3', family: 4 },
      ])) as never);
    const error = await refusal('https://api.example.com/', { resolveHost: undefined });
    expect(error.reason).toBe('private-address');
  });

  it('really resolves localhost (no network): refused by default, accepted over http with allowHttpLoopback', async () => {
    const lookup = jest.spyOn(dns.promises, 'lookup'); // calls through to the real resolver
    const refused = await assertSafeExternalUrl('https://localhost/').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnsafeUrlError);
    expect((refused as UnsafeUrlError).reason).toBe('private-address');
    expect(lookup).not.toHaveBeenCalled();

    await expect(assertSafeExternalUrl('http://localhost:3000/cb', { allowHttpLoopback: true })).resolves.toBeInstanceOf(URL);
    expect(lookup.mock.calls).toEqual([['localhost', { all: true, verbatim: true }]]);
  });
});

describe('assertSafeExternalUrl / lintUrlQuery: secrets in the query', () => {
  it.each([
    ['session', `?session=${SECRET}`],
    ['sessionid', `?sessionid=${SECRET}`],
    ['SID (case)', `?SID=${SECRET}`],
    ['JSESSIONID', `?JSESSIONID=${SECRET}`],
    ['PHPSESSID', `?PHPSESSID=${SECRET}`],
    ['token', `?token=${SECRET}`],
    ['access_token', `?page=2&access_token=${SECRET}`],
    ['Access-Token (hyphen, case)', `?Access-Token=${SECRET}`],
    ['id_token', `?id_token=${SECRET}`],
    ['refresh_token', `?refresh_token=${SECRET}`],
    ['auth', `?auth=${SECRET}`],
    ['Authorization', `?Authorization=Bearer%20${SECRET}`],
    ['api_key', `?api_key=${SECRET}`],
    ['apikey', `?apikey=${SECRET}`],
    ['key', `?key=${SECRET}`],
    ['secret', `?secret=${SECRET}`],
    ['password', `?password=${SECRET}`],
    ['passwd', `?passwd=${SECRET}`],
    ['pwd', `?pwd=${SECRET}`],
    ['code_verifier', `?code_verifier=${SECRET}`],
    ['client_secret', `?client_id=abc&client_secret=${SECRET}`],
    ['..._token name', `?github_token=${SECRET}`],
    ['..._TOKEN name (case)', `?SLACK_BOT_TOKEN=${SECRET}`],
    ['..._secret name', `?webhook_secret=${SECRET}`],
    ['token name without a value', `?token=`],
    ['token in the fragment (implicit flow)', `#access_token=${SECRET}&token_type=bearer`],
    ['token in a hash-router query', `#/callback?id_token=${SECRET}`],
  ])('refuses a sensitive name: %s', async (_label, suffix) => {
    const input = `https://app.example.com/path${suffix}`;
    const error = await expectRefused(input, 'sensitive-query');
    expect(error.message).not.toContain(SECRET);
    expect(error.message).toMatch(/token, session id or credential/);
    expect(() => lintUrlQuery(new URL(input))).toThrow(UnsafeUrlError);
  });

  const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
  it.each([
    ['an e-mail in a value', '?user=alice.smith%2Btag%40example.com', ['alice', '@example']],
    ['a raw e-mail in a value', '?q=contact+alice.smith@example.com+today', ['alice', '@example']],
    ['an IDN e-mail in a value', '?to=j%C3%BCrgen%40m%C3%BCnchen.example', ['rgen', 'nchen']],
    ['an OAuth login_hint e-mail', '?client_id=abc&login_hint=alice.smith%40example.com', ['alice']],
    ['a JWT in a value', `?data=${JWT}`, ['eyJ', 'dozjg']],
    ['a JWT inside a redirect_uri', `?redirect_uri=${encodeURIComponent(`https://app.example.com/cb?t=${JWT}`)}`, ['eyJ']],
    ['an unsigned JWT (empty signature)', '?assertion=eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.', ['eyJ']],
    ['an e-mail as a parameter name', '?alice.smith@example.com', ['alice']],
    ['a JWT as a parameter name', `?${JWT}`, ['eyJ']],
    ['an e-mail in the fragment', '#alice.smith@example.com', ['alice']],
    ['a percent-encoded e-mail in the fragment', '#to=alice.smith%40example.com', ['alice']],
    ['a JWT in the fragment', `#${JWT}`, ['eyJ']],
  ])('refuses %s without echoing it', async (_label, suffix, leaks) => {
    const input = `https://app.example.com/path${suffix}`;
    const error = await expectRefused(input, 'sensitive-query');
    for (const leak of leaks) expect(error.message).not.toContain(leak);
    expect(error.message).toMatch(/e-mail address or a token/);
  });

  it('names the offending parameter and the fix', async () => {
    const error = await expectRefused(`https://app.example.com/?access_token=${SECRET}`, 'sensitive-query');
    expect(error.message).toContain('"access_token"');
    expect(error.message).toMatch(/headers|server-side/);
  });

  it.each([
    'https://app.example.com/',
    'https://app.example.com/search?q=hello+world&page=2&lang=en',
    'https://app.example.com/?keyword=nestjs&monkey=1&sidebar=open&tokenizer=bpe&author=someone&passage=3',
    'https://app.example.com/?code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256',
    'https://app.example.com/?redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&response_type=code&scope=openid%20email',
    'https://app.example.com/docs#section-2',
    'https://app.example.com/?version=1.2.3&file=archive.tar.gz',
    'https://app.example.com/?at=%40mention&handle=@alice',
  ])('lets a benign query through: %s', (input) => {
    expect(() => lintUrlQuery(new URL(input))).not.toThrow();
  });

  it('never flags random OAuth state values', () => {
    for (let i = 0; i < 500; i++) {
      const state = randomBytes(8 + (i % 40)).toString(i % 2 ? 'base64url' : 'hex');
      const url = new URL('https://idp.example.com/authorize');
      url.searchParams.set('client_id', `client-${i}`);
      url.searchParams.set('redirect_uri', 'https://app.example.com/oauth/callback');
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('scope', 'openid profile offline_access');
      url.searchParams.set('state', state);
      url.searchParams.set('code_challenge', randomBytes(32).toString('base64url'));
      url.searchParams.set('code_challenge_method', 'S256');
      expect(() => lintUrlQuery(url)).not.toThrow();
    }
  });
});
