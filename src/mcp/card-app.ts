/**
 * The card app's one HTML document, as `npm run build:web` writes it
 * (scripts/build-web.mjs: src/mcp-app/ bundled with the page's card and
 * graph code, script and style inline). Read once, then kept.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';

export const CARD_APP_FILE = join(packageRoot, 'dist', 'mcp', 'template-card.html');

let kept: Promise<string> | null = null;

export function cardAppHtml(): Promise<string> {
  kept ??= readFile(CARD_APP_FILE, 'utf8').catch((err: unknown) => {
    kept = null;
    throw new Error(`the card app is not built (${CARD_APP_FILE}): run npm run build:web`, { cause: err });
  });
  return kept;
}
