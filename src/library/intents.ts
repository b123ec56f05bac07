import { type Marker, formatMarker, parseMarker } from './markers.js';

/**
 * Intent files make multi-file writes crash-safe (library-and-api.md §3).
 * One is written (atomically) before the first file a write changes and
 * removed after the last. Readers apply a present intent virtually, and the
 * next start applies it for real, so no instant of a write — and no crash —
 * shows a state that lies.
 *
 * Template intent `<root>/templates/.<name>.intent`:
 *   - `save` + the new marker: it holds the new copy's hash, so if the file on
 *     disk has that hash the copy landed and the marker rolls forward;
 *     otherwise the copy did not land and the intent is discarded.
 *   - `reset`: the reset is decided; finish removing copy and marker.
 *
 * Role intent `<root>/roles/.<name>.intent` is a redo record (JSON): a role
 * save changes up to three files (role.md, kit.json, .shipped), and a torn
 * set of them has no single hash to test, so the intent carries the new
 * content and recovery always rolls it forward.
 */
export type TemplateIntent = { op: 'save'; marker: Marker & { copy: string } } | { op: 'reset' };

export function templateIntentFile(name: string): string {
  return `.${name}.intent`;
}

export function formatTemplateIntent(i: TemplateIntent): string {
  return i.op === 'reset' ? 'reset\n' : `save\n${formatMarker(i.marker)}`;
}

export function parseTemplateIntent(text: string): TemplateIntent | null {
  if (text === 'reset\n') return { op: 'reset' };
  if (!text.startsWith('save\n')) return null;
  const marker = parseMarker(text.slice('save\n'.length));
  if (!marker || marker.copy === undefined) return null;
  return { op: 'save', marker: { shipped: marker.shipped, copy: marker.copy } };
}

export type RoleIntent =
  | {
      op: 'save';
      role_md: string;
      /** canonical kit.json text, or null to remove kit.json */
      kit: string | null;
      /** marker text to write, or null to remove `.shipped` (a custom role) */
      marker: string | null;
    }
  | { op: 'reset' };

export function roleIntentFile(name: string): string {
  return `.${name}.intent`;
}

export function formatRoleIntent(i: RoleIntent): string {
  return JSON.stringify(i) + '\n';
}

export function parseRoleIntent(text: string): RoleIntent | null {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (v.op === 'reset') return { op: 'reset' };
    const okOrNull = (x: unknown) => x === null || typeof x === 'string';
    if (v.op === 'save' && typeof v.role_md === 'string' && okOrNull(v.kit) && okOrNull(v.marker)) {
      return { op: 'save', role_md: v.role_md, kit: v.kit as string | null, marker: v.marker as string | null };
    }
  } catch {
    // malformed: counts as none
  }
  return null;
}
