/** `nearestKey`: the known key an unknown option key most likely meant (another case or spelling, the unit left out). */
import { describe, expect, it } from '@jest/globals';
import { nearestKey } from '../../src/options/nearest-key.js';

describe('nearestKey', () => {
  const known = [
    'baseUrl',
    'ttlMs',
    'retentionMs',
    'requestStateTtlMs',
    'primaryColor',
    'title',
    'encryptionKey',
    'resolvePageUser',
    'resolveMcpUser',
  ];

  it.each([
    ['baseURL', 'baseUrl', 'another case'],
    ['BASEURL', 'baseUrl', 'all capitals'],
    ['base_url', 'baseUrl', 'snake case'],
    ['base-url', 'baseUrl', 'kebab case'],
    ['ttl', 'ttlMs', 'the unit left out'],
    ['TTL', 'ttlMs', 'the unit left out, in capitals'],
    ['ttlSeconds', 'ttlMs', 'another unit'],
    ['ttl_sec', 'ttlMs', 'another unit, snake case'],
    ['retention', 'retentionMs', 'the unit left out'],
    ['primaryColour', 'primaryColor', 'one letter more'],
    ['tittle', 'title', 'one letter doubled'],
    ['titel', 'title', 'two letters swapped'],
    ['encryptionKeys', 'encryptionKey', 'a plural'],
    ['resolvePageUsr', 'resolvePageUser', 'one letter missing'],
  ])('%s → %s (%s)', (key, expected) => {
    expect(nearestKey(key, known)).toBe(expected);
  });

  it('adds the size unit as it adds the time unit', () => {
    expect(nearestKey('maxUpload', ['maxBodyBytes', 'maxUploadBytes'])).toBe('maxUploadBytes');
    expect(nearestKey('maxUploadSize', ['maxBodyBytes', 'maxUploadBytes'])).toBe('maxUploadBytes');
  });

  it.each(['x', 'colourScheme', 'store2000', 'resolve', 'timeout'])('suggests nothing for %s, which is close to no key', (key) => {
    expect(nearestKey(key, known)).toBeUndefined();
  });
});
