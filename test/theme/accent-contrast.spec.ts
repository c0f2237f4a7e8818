/** The accent colour (`primaryColor`) and the text colour drawn on it, at 4.5:1 or more. */
import { describe, expect, it } from '@jest/globals';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { contrastRatio, rgbOf, textColorOn } from '../../src/theme/accent-contrast.js';

const KEY = Buffer.alloc(32, 7);
const DEV: NodeJS.ProcessEnv = { NODE_ENV: 'development' };
const base = { baseUrl: 'https://mcp.example.com', resolvePageUser: () => 'u', encryptionKey: KEY };

describe('primaryColor contrast', () => {
  it('draws white text on a dark accent and near-black text on a light one, each at 4.5:1 or more', () => {
    expect(textColorOn('#2563eb')).toMatchObject({ color: '#ffffff' });
    expect(textColorOn('yellow')).toMatchObject({ color: '#111827' });
    expect(textColorOn('#fde68a')!.ratio).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(rgbOf('#000')!, rgbOf('#fff')!)).toBeCloseTo(21, 5);
    expect(rgbOf('rebeccapurple')).toEqual([0x66, 0x33, 0x99]);
  });

  it('refuses at start-up a colour neither text colour reaches 4.5:1 on, naming primaryColor and the contrast reached', () => {
    let error: unknown;
    try {
      resolveElicitationOptions({ ...base, primaryColor: '#7a7a7a' }, 'elicit', DEV);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ElicitationConfigError);
    expect((error as ElicitationConfigError).option).toBe('primaryColor');
    expect((error as Error).message).toMatch(/reaches only \d\.\d\d:1/);
    expect(resolveElicitationOptions({ ...base, primaryColor: 'navy' }, 'elicit', DEV).options.primaryTextColor).toBe('#ffffff');
  });
});
