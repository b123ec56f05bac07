import { roleIntent, templateIntent } from '../layout.js';
import { type Marker, formatMarker, parseMarker, sha256Hex } from './markers.js';

/**
 * Intent files make multi-file writes crash-safe (docs/operations.md).
 * One is made durable before the first file a write changes and removed
 * after the last (a role's by rename, a template save's in place with a
 * checksum). Readers apply a present intent virtually, and the
 * next start applies it for real, so no instant of a write — and no crash —
 * shows a state that lies.
 *
 * A template's intent (layout.ts templateIntent):
 *   - `save` + the new marker (+ what stood before): it holds the new copy's
 *     hash, so if the file on disk has that hash the copy landed and the
 *     marker rolls forward; otherwise the copy did not land, the old marker
 *     stands (or is put back, intentMarker) and the intent is discarded.
 *   - `reset`: the reset is decided; finish removing copy and marker.
 *
 * A role's intent (layout.ts roleIntent) is a redo record (JSON): a role
 * save changes up to three files (role.md, kit.json, .shipped), and a torn
 * set of them has no single hash to test, so the intent carries the new
 * content and recovery always rolls it forward.
 */
export type TemplateIntent =
  | {
      op: 'save';
      marker: Marker & { copy: string };
      /**
       * What stood before the save (absent in intents written before this
       * field): the copy's hash and the marker, each null when there was none.
       * With it, a crash that kept the new marker but lost the copy's rename
       * puts the old marker back, so the copy and the marker may be renamed
       * under one folder flush (template-writes.ts).
       */
      was?: { copy: string | null; marker: Marker | null };
    }
  | { op: 'reset' };

/** The intent's name in its folder, the template folder's listing being where readers look for it. */
export function templateIntentFile(name: string): string {
  return templateIntent(name).at(-1)!;
}

/**
 * `reset`, or
 *
 *     save
 *     <shipped hash>
 *     copy <copy hash>
 *     was-copy <hash> | none
 *     was-marker <shipped hash>[ <copy hash>] | none
 *     sum <sha256 of every line above, newlines included>
 *
 * The sum makes the file self-verifying: it is written in place, not renamed
 * into place, and a torn one (any prefix, or zeros) counts as none. Intents
 * of the older three-line form (no was-, no sum) are still read.
 */
export function formatTemplateIntent(i: TemplateIntent): string {
  if (i.op === 'reset') return 'reset\n';
  const head = `save\n${formatMarker(i.marker)}`;
  if (!i.was) return head;
  const m = i.was.marker;
  const body = `${head}was-copy ${i.was.copy ?? 'none'}\nwas-marker ${m ? (m.copy === undefined ? m.shipped : `${m.shipped} ${m.copy}`) : 'none'}\n`;
  return `${body}sum ${sha256Hex(body)}\n`;
}

const WAS_COPY = /^was-copy ([0-9a-f]{64}|none)$/;
const WAS_MARKER = /^was-marker (?:([0-9a-f]{64})(?: ([0-9a-f]{64}))?|none)$/;
const SUM = /^sum ([0-9a-f]{64})$/;

export function parseTemplateIntent(text: string): TemplateIntent | null {
  if (text === 'reset\n') return { op: 'reset' };
  if (!text.startsWith('save\n')) return null;
  const lines = text.split('\n');
  if (lines.length === 7 && lines[6] === '') {
    // the self-verifying form: checked before anything in it is believed
    const sum = SUM.exec(lines[5]!);
    const body = `${lines.slice(0, 5).join('\n')}\n`;
    if (!sum || sum[1] !== sha256Hex(body)) return null;
    const marker = parseMarker(`${lines[1]}\n${lines[2]}\n`);
    const wc = WAS_COPY.exec(lines[3]!);
    const wm = WAS_MARKER.exec(lines[4]!);
    if (!marker || marker.copy === undefined || !wc || !wm) return null;
    const wasMarker: Marker | null = wm[1] === undefined ? null : wm[2] === undefined ? { shipped: wm[1] } : { shipped: wm[1], copy: wm[2] };
    return { op: 'save', marker: { shipped: marker.shipped, copy: marker.copy }, was: { copy: wc[1] === 'none' ? null : wc[1]!, marker: wasMarker } };
  }
  const marker = parseMarker(text.slice('save\n'.length));
  if (!marker || marker.copy === undefined) return null;
  return { op: 'save', marker: { shipped: marker.shipped, copy: marker.copy } };
}

/**
 * The marker a save intent says stands, given the copy's hash now (null: no
 * copy) and the marker on disk — for readers, which apply it virtually, and
 * for recovery, which writes it. `undefined` means the marker on disk stands.
 *
 * - the copy is the saved one: the save landed, its marker stands;
 * - the copy is the one from before, but the new marker landed (a crash kept
 *   the marker's rename and lost the copy's): the old marker comes back;
 * - anything else (the copy changed by hand since): the disk stands.
 */
export function intentMarker(i: Extract<TemplateIntent, { op: 'save' }>, copyHash: string | null, onDisk: Marker | null): Marker | null | undefined {
  if (copyHash === i.marker.copy) return i.marker;
  if (i.was && copyHash === i.was.copy && sameMarker(onDisk, i.marker)) return i.was.marker;
  return undefined;
}

function sameMarker(a: Marker | null, b: Marker): boolean {
  return a !== null && a.shipped === b.shipped && a.copy === b.copy;
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

/** The intent's name in the roles folder. */
export function roleIntentFile(name: string): string {
  return roleIntent(name).at(-1)!;
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
