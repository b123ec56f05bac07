/** Exit codes, like actionlint: 0 clean (warnings allowed), 1 some error, 2 usage or I/O. */
export const EXIT = { ok: 0, problems: 1, usage: 2 } as const;

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  /** standard input, for `validate -`; the process's own when absent */
  stdin?: AsyncIterable<Buffer | string>;
}
