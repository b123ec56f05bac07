import { DeskError } from '../../errors.js';
import { problem } from '../../template/problems.js';

/**
 * A save's note (docs/api.md, "Save with a note"): one line of at most
 * NOTE_MAX characters, written into the history entry's subject
 * (`save quick-fix: tighten the gate`). A longer or multi-line text is
 * refused rather than cut: a subject is one line, and a purpose that needs
 * paragraphs belongs on a proposal.
 */
export const NOTE_MAX = 200;

/** The note as it goes into the subject (trimmed; empty is none), or a 422 with the `note.invalid` problem. */
export function checkNote(note: string | undefined, kind: 'template' | 'role'): string | undefined {
  if (note === undefined) return undefined;
  const why = /[\r\n\u2028\u2029]/.test(note)
    ? 'the note is more than one line; a save note is one line (a longer purpose belongs on a proposal)'
    : [...note.trim()].length > NOTE_MAX
      ? `the note is longer than ${NOTE_MAX} characters`
      : // control characters would read as nothing, or as something else, in git's subject line
        /\p{Cc}/u.test(note)
        ? 'the note holds a control character'
        : null;
  if (why) {
    throw new DeskError(kind === 'role' ? 'invalid_role' : 'invalid_template', `${why}; nothing was saved`, { problems: [problem('note.invalid', why, '/note')] });
  }
  const t = note.trim();
  return t === '' ? undefined : t;
}
