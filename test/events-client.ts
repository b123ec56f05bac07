/** A raw SSE reader for the events tests: http.get on a listening app, frames parsed as they come. */
import { type ClientRequest, get, type IncomingMessage, request } from 'node:http';

export interface Frame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  /** comment lines (`: ping`) */
  comments: string[];
}

export interface SseClient {
  status: number;
  res: IncomingMessage;
  req: ClientRequest;
  frames: Frame[];
  /** everything read, as text */
  text(): string;
  /** resolves when the response ends or the connection closes */
  ended: Promise<void>;
  /** resolves with the first frame (from `from` on) the predicate accepts; rejects after `ms` */
  next(pred: (f: Frame) => boolean, ms?: number, from?: number): Promise<Frame>;
  close(): void;
}

export function connect(base: string, path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = get(`${base}${path}`, { headers }, (res) => {
      const frames: Frame[] = [];
      const waiters = new Set<() => void>();
      let buf = '';
      let all = '';
      const ended = new Promise<void>((ok) => {
        res.on('end', ok);
        res.on('close', ok);
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        all += chunk;
        let i = buf.indexOf('\n\n');
        while (i >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const f: Frame = { comments: [] };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) f.comments.push(line.slice(1).trim());
            else {
              const c = line.indexOf(':');
              const k = line.slice(0, c) as 'id' | 'event' | 'data' | 'retry';
              f[k] = line.slice(c + 1).replace(/^ /, '');
            }
          }
          frames.push(f);
          i = buf.indexOf('\n\n');
        }
        for (const w of [...waiters]) w();
      });
      const client: SseClient = {
        status: res.statusCode ?? 0,
        res,
        req,
        frames,
        text: () => all,
        ended,
        next(pred, ms = 5000, from = 0) {
          return new Promise((ok, fail) => {
            // each frame is looked at once: a predicate may parse a 64 KiB frame, and chunks arrive by the hundred
            let seen = from;
            const check = () => {
              for (; seen < frames.length; seen++) {
                const f = frames[seen] as Frame;
                if (!pred(f)) continue;
                waiters.delete(check);
                clearTimeout(t);
                ok(f);
                return true;
              }
              return false;
            };
            const t = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`no matching frame within ${ms} ms; got ${JSON.stringify(frames)}`));
            }, ms);
            if (!check()) waiters.add(check);
          });
        },
        close() {
          req.destroy();
        },
      };
      resolve(client);
    });
    req.on('error', reject);
  });
}

/** One request over the network (inject's Host would not match a listening app's port). */
export function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; etag?: string; json: Record<string, unknown> | null }> {
  return new Promise((ok, fail) => {
    const h: Record<string, string> = body === undefined ? headers : { 'content-type': 'application/json', ...headers };
    const req = request(`${base}${path}`, { method, headers: h }, (res) => {
      let s = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (s += d));
      res.on('end', () => ok({ status: res.statusCode ?? 0, etag: res.headers.etag, json: s ? (JSON.parse(s) as Record<string, unknown>) : null }));
    });
    req.on('error', fail);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

export const data = (f: Frame): Record<string, unknown> => JSON.parse(f.data ?? 'null') as Record<string, unknown>;
