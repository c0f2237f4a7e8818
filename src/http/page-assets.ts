import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Injectable } from '@nestjs/common';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { basePathOf } from '../lifecycle/page-urls.js';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';

/** The package's own `templates/` folder, found from this file whether run from `src/` or `dist/`. */
export function builtInTemplatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'templates');
    if (existsSync(join(candidate, 'layout.hbs'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error('nestjs-mcp-elicitation: the templates/ folder is missing from the installed package.');
}

/** A static file of the pages, as served. */
export interface PageAsset {
  /** Its file name under `<routePrefix>/assets/`, with a fingerprint of its content (`page.1a2b3c4d5e6f.css`). */
  readonly name: string;
  readonly contentType: string;
  /** Its text (a string: Nest sends a returned Buffer as JSON on Express). */
  readonly body: string;
}

/** The `Cache-Control` of an asset: its name changes with its content, so a browser may keep it as long as it likes. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * The pages' stylesheet and script (`page.css`, `page.js` of the templates folder; a `templatesDir` holding either
 * replaces it), the same bytes for every page, the inbox's own script (`inbox.js`: it keeps the list current) and the
 * passkeys' (`passkey.js`: the WebAuthn ceremonies):
 * served once under a name that changes with their content (`ElicitationAssetsController`), kept by the browser, and
 * loaded by each page with the page's CSP nonce. A page then carries only what is its own (about a third of its bytes
 * with them inline).
 */
@Injectable()
export class PageAssets {
  readonly style: PageAsset;
  readonly script: PageAsset;
  /** The inbox page's script. */
  readonly inbox: PageAsset;
  /** The passkey ceremonies' script (the passkey page, a confirm page that asks for a passkey). */
  readonly passkey: PageAsset;
  /** Where a page finds them, as the browser sees the paths (`<baseUrl path>/<routePrefix>/assets/<name>`). */
  readonly urls: { readonly style: string; readonly script: string; readonly inbox: string; readonly passkey: string };
  private readonly byName: ReadonlyMap<string, PageAsset>;

  constructor(@InjectPageOptions() options: ElicitationPageOptions) {
    this.style = loadAsset(options.templatesDir, 'page', 'css', 'text/css; charset=utf-8');
    this.script = loadAsset(options.templatesDir, 'page', 'js', 'text/javascript; charset=utf-8');
    this.inbox = loadAsset(options.templatesDir, 'inbox', 'js', 'text/javascript; charset=utf-8');
    this.passkey = loadAsset(options.templatesDir, 'passkey', 'js', 'text/javascript; charset=utf-8');
    const base = `${basePathOf(options.baseUrl)}/${options.routePrefix}/assets/`;
    const { style, script, inbox, passkey } = this;
    this.urls = { style: base + style.name, script: base + script.name, inbox: base + inbox.name, passkey: base + passkey.name };
    this.byName = new Map([style, script, inbox, passkey].map((asset) => [asset.name, asset]));
  }

  /** The asset of this name, or undefined. */
  find(name: string): PageAsset | undefined {
    return this.byName.get(name);
  }
}

function loadAsset(templatesDir: string | undefined, stem: string, extension: string, contentType: string): PageAsset {
  const custom = templatesDir && join(templatesDir, `${stem}.${extension}`);
  const file = custom && existsSync(custom) ? custom : join(builtInTemplatesDir(), `${stem}.${extension}`);
  let body: string;
  try {
    body = readFileSync(file, 'utf8');
  } catch {
    throw new ElicitationConfigError('templatesDir', `points at an unreadable page asset ${file}`);
  }
  const fingerprint = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name: `${stem}.${fingerprint}.${extension}`, contentType, body };
}
