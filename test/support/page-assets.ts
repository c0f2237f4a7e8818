/**
 * What the specs know of how a page loads its stylesheet and script (`PageAssets`, layout.hbs): a `<link>` and a
 * `<script src>` under the page's CSP nonce, at `<routePrefix>/assets/page.<fingerprint>.<css|js>`.
 */

/** The path of a page asset under `prefix` (`/elicit/assets/page.1a2b3c4d5e6f.css`). */
export const assetPath = (extension: 'css' | 'js', prefix = '/elicit') =>
  new RegExp(`^${prefix}/assets/page\\.[0-9a-f]{12}\\.${extension}$`);

/** The exact tag a page loads an asset with: the nonce first, then where the asset is (`prefix`: a path, or a pattern of one). */
export function assetTag(tag: 'link' | 'script', nonce: string, extension: 'css' | 'js', prefix = '/elicit'): RegExp {
  const at = `${prefix}/assets/page\\.[0-9a-f]{12}\\.${extension}`;
  return tag === 'link'
    ? new RegExp(`^<link rel="stylesheet" nonce="${nonce}" href="${at}">$`)
    : new RegExp(`^<script nonce="${nonce}" src="${at}" defer>$`);
}
