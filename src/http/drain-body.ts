/**
 * A refusal sent before the request body was read (413 over the cap, 401,
 * 415, a guard's 403 or 421) leaves the body unread in the socket. Closing
 * a socket with unread data makes the kernel reset the connection, and a
 * client still uploading (a browser, fetch) then reports a reset instead of
 * the answer. So the rest of the body is read and thrown away first, up to
 * DRAIN_LIMIT; past it the answer goes out anyway and the connection closes.
 * The 30 s request timeout (guard-server.ts) bounds a client that trickles.
 */
import type { IncomingMessage } from 'node:http';

/** Bytes of an unread body read and discarded before a refusal is sent. Default 8 MiB. */
export const DRAIN_LIMIT = 8 * 1024 * 1024;

/** Resolves when the body has ended, went past `limit`, or the client went away. Never rejects. */
export function drainBody(raw: IncomingMessage, limit: number = DRAIN_LIMIT): Promise<void> {
  if (raw.complete || raw.destroyed || raw.readableEnded) return Promise.resolve();
  // a body announced over the limit is not worth reading
  const declared = Number(raw.headers['content-length']);
  if (declared > limit) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const finish = () => {
      raw.off('data', onData);
      raw.off('end', finish);
      raw.off('error', finish);
      raw.off('close', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limit) finish();
    };
    raw.on('data', onData);
    raw.once('end', finish);
    raw.once('error', finish);
    raw.once('close', finish);
    raw.resume();
  });
}
