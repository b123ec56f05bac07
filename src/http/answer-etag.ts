/**
 * The answer's own validator (docs/api.md, "Conditional GET"): a weak ETag
 * over the bytes of a whole answer, sent beside the strong `ETag` of the
 * bytes that load. They differ because an answer holds more than the file:
 * its card depends on the base it is diffed against, the shipped version and
 * the roles and kits the catalogue holds, none of which moves the file's
 * ETag. So `If-None-Match` is answered 304 against this one only, and
 * `If-Match` on a write against the strong one only.
 */
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';

/** The response header carrying it. */
export const ANSWER_ETAG = 'desk-answer-etag';

/** An answer's serialised body and its weak ETag. */
export interface Sent {
  /** as bytes: a kept answer sent again is not encoded again (a string is, at every send) */
  body: Buffer;
  tag: string;
}

export function sentOf(json: string): Sent {
  const body = Buffer.from(json, 'utf8');
  return { body, tag: `W/"${createHash('sha256').update(body).digest('base64url')}"` };
}

/** The opaque part of an entity tag, weak or strong (RFC 9110 §8.8.3.2: If-None-Match compares weakly). */
function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/**
 * Whether `If-None-Match` names `tag` (or is `*`: the answer exists): then
 * the client's copy is current and the answer is 304 with no body. A
 * repeated header is one list; a tag never contains a comma here.
 */
export function noneMatch(header: string | string[] | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const want = opaque(tag);
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const t = part.trim();
    if (t === '*' || (t !== '' && opaque(t) === want)) return true;
  }
  return false;
}

export const NotModified = Type.Null({
  description: 'the answer named in If-None-Match (its desk-answer-etag) is current; no body',
});
