// The capability proof stands before what it guards (docs/format.md, Graph
// rules): a node that may mutate tickets needs a capability_assert over
// complete_ticket, passed through its `held` outlet, on every path from the
// entry to it. A near miss each way: the proof after the node, a path around
// it, its `failed` outlet; and the placements that pass.
import { describe, expect, test } from 'vitest';
import { edit, TICKET_CLOSE, validate } from './fixtures/templates/helpers.js';

const unproven = (source: string) => validate(source).problems.filter((p) => p.code === 'ticket.mutation_unproven').map((p) => p.path);

/** read → proof → close, with `close` on the ticket_write profile (it mutates whatever the kits say) */
const BEFORE = TICKET_CLOSE;

describe('the proof before the node that may mutate tickets', () => {
  test('before it, through held: valid', () => {
    expect(validate(BEFORE).problems).toEqual([]);
  });

  test('wired after the node it should guard: refused at that node, naming the path', () => {
    const after = edit(
      BEFORE,
      '  - { from: read.done, to: proof.in }\n  - { from: proof.held, to: close.start }',
      '  - { from: read.done, to: close.start }\n  - { from: close.done, to: proof.in }',
    );
    const found = validate(after).problems.filter((p) => p.code === 'ticket.mutation_unproven');
    expect(found.map((p) => p.path)).toEqual(['/nodes/close/profile']);
    expect(found[0]?.severity).toBe('error');
    expect(found[0]?.message).toContain('read → close');
    expect(validate(after).valid).toBe(false);
  });

  test('a second path around the proof is refused; a second path through it is not', () => {
    const around = `${BEFORE}  - { from: read.done, to: close.start }\n`;
    expect(unproven(around)).toEqual(['/nodes/close/profile']);
    // a second reader that also goes through the proof
    const through = `${edit(BEFORE, '  proof:', '  again: { type: model, role: verifier, profile: read_only }\n  proof:')}  - { from: read.done, to: again.start }\n  - { from: again.done, to: proof.in }\n`;
    expect(validate(through).problems).toEqual([]);
  });

  test("the proof's failed outlet proves nothing; its held outlet does", () => {
    const failed = edit(BEFORE, '{ from: proof.held, to: close.start }', '{ from: proof.failed, to: close.start }');
    expect(unproven(failed)).toEqual(['/nodes/close/profile']);
    expect(unproven(BEFORE)).toEqual([]);
  });

  test('a proof over another capability does not count; over complete_ticket it does', () => {
    const other = edit(BEFORE, 'over: complete_ticket', 'over: land_workspace');
    expect(unproven(other)).toEqual(['/nodes/close/profile']);
  });

  test('a node that reads tickets needs no proof wherever it is', () => {
    const reads = edit(BEFORE, 'profile: ticket_write', 'profile: read_only').replace('{ from: proof.held, to: close.start }', '{ from: read.done, to: close.start }');
    expect(unproven(reads)).toEqual([]);
  });
});
